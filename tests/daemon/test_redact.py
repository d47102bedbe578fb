"""Secret redaction: one example per family (made up here, shaped like the real thing), the
things that must survive, and the result's bookkeeping."""

from __future__ import annotations

import base64
import random
import time
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memvet.store.redaction import redact
from memvet.store.redaction.patterns import github_checksum_ok

# (text, the secret that must disappear, the marker kind expected)
SECRETS = [
    ("export AWS_ACCESS_KEY_ID=AKIA2E0A8F3B244C9986", "AKIA2E0A8F3B244C9986", "aws-access-key"),
    (
        "aws_secret_access_key = Kd8w2PZ0rQ7vT1xYb4N9mC3sL6aF5hJ0eR2uW8iO",
        "Kd8w2PZ0rQ7vT1xYb4N9mC3sL6aF5hJ0eR2uW8iO",
        "secret-assignment",
    ),
    (
        "my token is ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8",
        "ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8",
        "github-token",
    ),
    (
        "use glpat-x7Qm2Rk9Vt4Lp8Wn3Zs1 for the registry",
        "glpat-x7Qm2Rk9Vt4Lp8Wn3Zs1",
        "gitlab-token",
    ),
    (
        "SLACK_BOT=xoxb-2931847561-8391047562-Qw7Er9Ty2Ui4Op6As8Df1Gh3",
        "xoxb-2931847561-8391047562-Qw7Er9Ty2Ui4Op6As8Df1Gh3",
        "slack-token",
    ),
    (
        "stripe: sk_live_4eC39HqLyjWDarjtT1zdp7dcQ2",
        "sk_live_4eC39HqLyjWDarjtT1zdp7dcQ2",
        "stripe-key",
    ),
    (
        "OPENAI_API_KEY=sk-proj-Zq8Xw2Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx",
        "sk-proj-Zq8Xw2Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx",
        "openai-key",
    ),
    (
        "key sk-ant-api03-Tq9Wm2Xr5Zb8Nc1Vd4Lf7Hg0Jk3Pq6Ys9Ua2Ie5Ro8",
        "sk-ant-api03-Tq9Wm2Xr5Zb8Nc1Vd4Lf7Hg0Jk3Pq6Ys9Ua2Ie5Ro8",
        "anthropic-key",
    ),
    (
        "maps key AIzaSyD4r8Tq2Wx6Zc9Vb1Nm3Lk5Jh7Gf0Ds2Ap",
        "AIzaSyD4r8Tq2Wx6Zc9Vb1Nm3Lk5Jh7Gf0Ds2Ap",
        "google-api-key",
    ),
    (
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkYW5hIiwiaWF0IjoxNzAwMDAwMDAwfQ.q3Zk8Rw2Xv5Tn7Lm9Pb1Qc4Yd6Hf0Ja2",
        "eyJzdWIiOiJkYW5hIiwiaWF0IjoxNzAwMDAwMDAwfQ",
        "jwt",
    ),
    (
        "DATABASE_URL=postgres://app:Sup3r-S3cret!@db.internal:5432/shop",
        "Sup3r-S3cret!",
        "url-password",
    ),
    ("connect with Server=db;User Id=sa;Password=Tr0ub4dor&3;", "Tr0ub4dor&3", "secret-assignment"),
    (
        'config = {"password": "correct horse battery staple"}',
        "correct horse battery staple",
        "secret-assignment",
    ),
    ("the staging password is 'blue-Falcon-42'", "blue-Falcon-42", "secret-in-prose"),
    ("curl -u admin:Pa55w0rd-x https://api.example.com/health", "Pa55w0rd-x", "basic-auth"),
    (
        "client_secret: Zq8Xw2Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9ZxCv",
        "Zq8Xw2Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9ZxCv",
        "secret-assignment",
    ),
    (
        "here is the blob 9fQ2xR7mT4wL8zN1vB6kH3pJ5cY0aS2dG7eU4iO9 for you",
        "9fQ2xR7mT4wL8zN1vB6kH3pJ5cY0aS2dG7eU4iO9",
        "high-entropy-token",
    ),
    # the other half of an AWS pair needs no secret word: an access key id next to it is enough
    (
        "AKIAQ3EGT7KL2M5RWZ6Y Zk3v9QmB2xR7tL5pW8nY4cH6jD1sF0gA3eU7iO2q",
        "Zk3v9QmB2xR7tL5pW8nY4cH6jD1sF0gA3eU7iO2q",
        "aws-secret-key",
    ),
    (
        "apiVersion: v1\nkind: Secret\ndata:\n  db-pass: c3VwZXItczNjcmV0LXB3\n",
        "c3VwZXItczNjcmV0LXB3",
        "secret-assignment",
    ),
    (
        'var c = new NetworkCredential("deploy@acme.io", "vq8Lr2Nw7Tz");',
        "vq8Lr2Nw7Tz",
        "secret-assignment",
    ),
    ('if ("Xy7-p4ss-Rq9" == password) { login(); }', "Xy7-p4ss-Rq9", "secret-assignment"),
    ('std::string password("r4Nd0m-Pw!");', "r4Nd0m-Pw!", "secret-assignment"),
    ("db_password: blue falcon river 42", "blue falcon river 42", "secret-assignment"),
    (
        "redis://default:secret@cache:6379/0",
        ":secret@",
        "url-password",
    ),  # a lone word in a URL's password slot
    ("mysql -u root -pS3cr3tPw shop", "S3cr3tPw", "password-flag"),
    # a name ending in PAT is a personal access token, not "...at" (createdAt)
    (
        "AZURE_DEVOPS_PAT=q7x9m2lk4n8p3r5t6v1w0z2y4b6d8f1h3j5k7m9n",
        "q7x9m2lk4n8p3r5t6v1w0z2y4b6d8f1h3j5k7m9n",
        "secret-assignment",
    ),
    ("sshpass -p 'Tq9-wM2x' ssh pi@10.0.0.7", "Tq9-wM2x", "password-flag"),
    ("export BUNDLE_GEMS__ACME__IO=deploy:9f8Kq2Lm", "9f8Kq2Lm", "basic-auth"),
    ("curl --user dana:'pRq7vH2k1L8nWkZ9' https://api.acme.io", "pRq7vH2k1L8nWkZ9", "basic-auth"),
    (
        'The default password for the user "app-admin" is "Zebra-Ocean-7".',
        "Zebra-Ocean-7",
        "secret-in-prose",
    ),
    (
        "billing_private_access USER=c29tZSByYW5kb20gYnl0ZXMgaGVyZSEh",
        "c29tZSByYW5kb20gYnl0ZXMgaGVyZSEh",
        "secret-near-keyword",
    ),
]


@pytest.mark.parametrize(("text", "secret", "kind"), SECRETS, ids=[k for _, _, k in SECRETS])
def test_each_family_is_redacted(text: str, secret: str, kind: str) -> None:
    result = redact(text)
    assert secret not in result.text
    assert f"[REDACTED:{kind}]" in result.text and kind in result.kinds
    assert result.count >= 1 and result.changed


def test_private_key_block_goes_whole() -> None:
    body = "\n".join(["MIIEowIBAAKCAQEA7v2Q9xk3Lm8Rt5Wz1Yb4Nc6Vd8Pf0Hg2Jk4Ls6Qa8Ze0Xr"] * 6)
    text = f"use this key:\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\nthanks"
    result = redact(text)
    assert "MIIEow" not in result.text and "BEGIN RSA" not in result.text
    assert result.text.startswith("use this key:") and result.text.endswith("thanks")
    truncated = redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\nAAAA")
    assert "b3BlbnNz" not in truncated.text


SURVIVES = [
    "Always run `uv run pytest -q` before pushing; docs at https://docs.example.com/guide/setup#tokens",
    "The config is at /home/dana/src/app/config/settings_production_v2.py and ~/.config/app/token_cache.json",
    "revert 3b335d612137949d2f21fcc6c8c8164db7603227, then tag release-2024-05-01",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed",
    "the access token expires after 15 minutes and the refresh token after 7 days",
    "never hardcode API keys; read them from the GITHUB_TOKEN env var",
    "password = os.environ['DB_PASSWORD']",
    "const password = process.env.DB_PASSWORD || ''",
    "git clone git@github.com:acme/shopfront.git",
    "see https://github.com/acme/shopfront/blob/main/src/AuthTokenProvider.ts#L40",
    "class PasswordResetTokenSerializer(serializers.ModelSerializer):",
    "key_name: prod-cmk and kms_key_id: 555ea4a3-d53a-4412-9c66-3a7cb667b0d6",
    # hashes, digests and ids in ordinary contexts
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "the checksum is 9E107D9D372BB6826BD81D3542A419D6 and commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
    # placeholders and code, not literals (from the issue)
    "password = get_pass()",
    "secret: $(vault read -field=pw kv/app)",
    "api_key: <token>",
    "password=changeme",
    "password: ****",
    "token = 'aaaaaaaaaaaaaaaaaaaaaaaa'",
    "token: xxxxxxxxxxxxxxxxxxxx",
    "SERVICE_APIKEY: 'replace_with_api_key'",
    'password = "myfakepassword"',
    "client_secret = ''",
    "token = None",
    'password: "{{ vault_db_password }}"',
    "secret = os.getenv('SECRET')",
    "mysql -u root -p",
    # not the secret itself: publishable keys, csrf nonces, made-up or truncated token shapes
    "stripe publishable key pk_live_51Hq8ZrT2mVx9LcQwN4pYk",
    '<input type="hidden" name="csrf_token" value="Qm9vbGVhbiBmb3JtIG5vbmNlIHZhbHVlIGhlcmUgMTIz">',
    "xoxb-4821-demo77",
    "export OP_TOKEN=ops_eyJhY2NvdW50IjoiZGVtbyIsInVybCI6Imh0dHBzOi8v...",
    "-----BEGIN PRIVATE KEY-----\n<key goes here>\n-----END PRIVATE KEY-----",
    # a JWT-looking string whose header is not JSON with "alg"; a typed sequence with no secret word
    "eyJub3QiOiJhIGp3dCJ9.eyJzdWIiOiJkYW5hIn0.q3Zk8Rw2Xv5Tn7Lm9Pb1",
    "sample value abcdef1234567890abcdef1234567890 in the fixture",
]


@pytest.mark.parametrize("text", SURVIVES)
def test_ordinary_text_is_left_alone(text: str) -> None:
    result = redact(text)
    assert result.text == text and result.count == 0 and result.kinds == ()


def test_redaction_is_idempotent_and_counts_every_secret() -> None:
    text = (
        "AKIA2E0A8F3B244C9986 and ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8 and AKIA4RW7QX2M9TB5NK3Z"
    )
    once = redact(text)
    assert once.count == 3 and once.kinds == ("aws-access-key", "github-token")
    twice = redact(once.text)
    assert twice.text == once.text and twice.count == 0


def test_placeholders_are_not_secrets() -> None:
    for text in (
        "password: ${DB_PASSWORD}",
        "api_key = '<your-api-key>'",
        "token: xxxxxxxxxxxxxxxx",
        "AWS key AKIAIOSFODNN7EXAMPLE from the docs",
        "secret = ''",
    ):
        assert redact(text).count == 0, text


@settings(max_examples=80, deadline=None)
@given(
    prefix=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40),
    path=st.from_regex(r"/(?:[a-z]{3,8}/){1,4}[a-z]{3,8}\.(?:py|md|toml)", fullmatch=True),
    url=st.from_regex(
        r"https://[a-z]{3,10}\.(?:com|org|io)/[a-z]{2,8}(?:/[a-z0-9]{2,8}){0,3}", fullmatch=True
    ),
)
def test_paths_and_plain_urls_survive_around_a_secret(prefix: str, path: str, url: str) -> None:
    text = f"{prefix} see {path} and {url} ; token ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8"
    result = redact(text)
    assert path in result.text and url in result.text
    assert "ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8" not in result.text


def _github_token(body: str) -> str:
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    crc, tail = zlib.crc32(body.encode()), ""
    while crc:
        crc, rest = divmod(crc, 62)
        tail = alphabet[rest] + tail
    return "ghp_" + body + tail.rjust(6, "0")


def test_a_valid_github_checksum_outweighs_a_masked_look() -> None:
    token = _github_token("XXXXq2VbN7xT1mZ4cW9pL3sD6fH0jY")  # looks masked (XXXX) but checks out
    assert github_checksum_ok(token) and not github_checksum_ok(
        token[:-1] + ("A" if token[-1] != "A" else "B")
    )
    assert token not in redact(f"token {token}").text
    assert (
        redact("token ghp_XXXXq2VbN7xT1mZ4cW9pL3sD6fH0jY000000").count == 0
    )  # masked and no checksum


SNIPPETS = [s for s, _, _ in SECRETS] + SURVIVES


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=4), st.sampled_from([" ", "\n", "; "])
)
def test_redacting_twice_changes_nothing(parts: list[str], joiner: str) -> None:
    once = redact(joiner.join(parts))
    again = redact(once.text)
    assert again.text == once.text and again.count == 0


def test_large_and_adversarial_inputs_stay_fast_and_blobs_are_masked() -> None:
    # Deterministic: os.urandom's base64 now and then spells a secret word ("key", "pass")
    # inside the blob, and a run of a different test each time is no test.
    blob = base64.b64encode(random.Random(14).randbytes(30000)).decode()
    assert redact(blob).text == "[REDACTED:high-entropy-token]"
    for text in (
        "token " * 8000,
        "password=hunter2x; " * 2000,
        "eyJ" * 12000,
        '"abcd" == ' * 4000 + "password",
        "kind: Secret\ndata:\n" + "  k: c2VjcmV0LXZhbHVlLTE=\n" * 1500,
        blob.replace("/", "\n"),
    ):
        start = time.perf_counter()
        redact(text)
        # A guard against catastrophic backtracking (minutes), not a speed budget: those are
        # measured by tests/bench/bench_secrets.py. The margin absorbs a loaded CI machine.
        assert time.perf_counter() - start < 10.0, text[:40]
