"""The misses issue 14 measured, in their minimal forms (made up here, shaped like the real
thing), and the over-redaction it measured the other way."""

from __future__ import annotations

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
