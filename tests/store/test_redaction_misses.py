"""The misses issue 14 measured, in their minimal forms (made up here, shaped like the real
thing), and the over-redaction it measured the other way."""

from __future__ import annotations

import re

import pytest
from memvet.store.redaction import redact

MISSES = [
    # an AWS secret access key whose value starts with "/" (1 in 64 real ones) was taken for a path
    (
        "AWS_SECRET_ACCESS_KEY=/q8Zr2Tt5Yu7Io9Pa1Sd3Fg5Hj7Kl9ZxCvBnMq1Wd",
        "/q8Zr2Tt5Yu7Io9Pa1Sd3Fg5Hj7Kl9ZxCvBnMq1Wd",
    ),
    # the value before the word naming it
    ("we use Hq7vR2kLm9Zt4Wx8Np3Bc6Yd as the deploy key for staging", "Hq7vR2kLm9Zt4Wx8Np3Bc6Yd"),
    # ... also when it is shorter than the 24 characters a token needs to be masked on its own
    ("we use Zq8vT2mW9xK4pL7rN3sB as the deploy key for staging", "Zq8vT2mW9xK4pL7rN3sB"),
    ("we use 'Kx9mQ2vLp7' as the staging password", "Kx9mQ2vLp7"),
    ("Zq8vT2mW9xK4 is the password for the reporting db", "Zq8vT2mW9xK4"),
    ("N7c-Wq2r-Lp9x was our old api token", "N7c-Wq2r-Lp9x"),
    ("try 'Wq2rN7cLp9' as the password", "Wq2rN7cLp9"),
    ("Lp9xN7cWq2 — that's the staging password", "Lp9xN7cWq2"),
    # a secret word, then a short made-up value (8-11 characters) in prose
    ("the api token is Kx9mQ2vLp7", "Kx9mQ2vLp7"),
    ("the staging deploy key is Rt5nW8qZk3", "Rt5nW8qZk3"),
    ("we changed the admin password to Qp4Lm9xR2v", "Qp4Lm9xR2v"),
    ("use the password Tr0ub4dor&3x for the staging db", "Tr0ub4dor&3x"),
    ("Use the password 'blue-Falcon-88' for the VPN", "blue-Falcon-88"),
    # a username/password pair in prose
    ("the login is deploy / Zx9!pQ2wLm", "Zx9!pQ2wLm"),
    ("login: admin / hunter2hunter2", "hunter2hunter2"),
    # Slack legacy token; curl -u with a quoted user:pass
    ("SLACK=xoxo-5820348523-5820348524-5820348525-4f9a2b7c1d3e", "4f9a2b7c1d3e"),
    ('curl -u "dana:Pq8wLz2Rk5" https://ci.acme.io/api', "Pq8wLz2Rk5"),
    # pw: and a pasted .env dump
    ("pw: Kq9-vL2m-Xr7", "Kq9-vL2m-Xr7"),
    (
        "here is my .env:\nDB_HOST=db.internal\nDB_PASS=wR4n9Lq2Vz\nSTRIPE_SECRET=rk_live_51Hq8ZrT2mVx9LcQwN4pYk8s",
        "wR4n9Lq2Vz",
    ),
]


@pytest.mark.parametrize(("text", "secret"), MISSES, ids=[t[:30] for t, _ in MISSES])
def test_measured_miss_is_redacted(text: str, secret: str) -> None:
    result = redact(text)
    assert secret not in result.text and result.changed, result.text


KEPT = [
    'We keep team secrets in the password manager "Bitwarden", never in the repo.',
    "the password manager is 'KeePassXC' on every laptop",
    "use the password manager for the staging db credentials",
    "we use pytest as the test runner for the backend",
    "login is handled by the SSO proxy / auth service",
    # a value before the word naming it that is a name, a file, a version or an algorithm
    "we use AES-256-GCM as the encryption key algorithm",
    "we use id_ed25519 as the deploy key file",
    "we use HashiCorp-Vault as the secret store",
    "we use ssh-ed25519 as the key type for CI",
    "v2.14.0 is the token format we ship",
    "we use sha256sum as the checksum, not a key",
    # a secret word, then a short name, product, version or algorithm
    "the key is in 1Password",
    "the primary key is order_id_v2",
    "password policy: min12chars",
    "the deploy key is ssh-ed25519 and lives in CI",
    "bump the token format to v2.1.0",
    "the signing key is RS256",
]


@pytest.mark.parametrize("text", KEPT)
def test_statement_about_secrets_is_kept(text: str) -> None:
    assert redact(text).text == text


def test_an_aws_secret_starting_with_a_slash_and_holding_a_plus_is_redacted() -> None:
    """Found by the planted credentials (tests/bench/credential_shapes.py): a value starting with
    "/" was taken for a path whenever it held a character that is not a letter or digit."""
    text = "AWS_ACCESS_KEY_ID=AKIAWJMPS23ADGXT2LUP\nAWS_SECRET_ACCESS_KEY=/HgkMmlusZKe4pAqcdMWem7THHXp2A+qOYu8IPYW"
    assert "HgkMmlusZKe4" not in redact(text).text
    for path in ("password=/tmp", "token: /etc/app/token", "key_file=/id_rsa.pub"):
        assert redact(path).text == path


@pytest.mark.parametrize(
    "text",
    [
        'curl -u "deploy:Zx9pQ2wLm" https://api.example.com',
        "git clone http://ada:Zx9pQ2wLm@github.com/ada/repo.git",
    ],
)
def test_a_later_detector_leaves_an_earlier_marker_whole(text: str) -> None:
    """A rule that masked `user:pass` whole left `-u [REDACTED:…]`, and the own basic-auth detector
    then took `[REDACTED` for the user and masked the rest of the marker: `[REDACTED:[REDACTED:…]`."""
    out = redact(text).text
    assert "Zx9pQ2wLm" not in out
    assert "[REDACTED:[" not in out, out
    assert re.sub(r"\[REDACTED:[a-z0-9\-]+\]", "", out).count("REDACTED") == 0, out
