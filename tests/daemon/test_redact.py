"""Secret redaction: one example per family (made up here, shaped like the real thing), the
things that must survive, and the result's bookkeeping."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memvet.daemon.redact import redact

# (text, the secret that must disappear, the marker kind expected)
SECRETS = [
    ("export AWS_ACCESS_KEY_ID=AKIA2E0A8F3B244C9986", "AKIA2E0A8F3B244C9986", "aws-access-key"),
    ("aws_secret_access_key = Kd8w2PZ0rQ7vT1xYb4N9mC3sL6aF5hJ0eR2uW8iO", "Kd8w2PZ0rQ7vT1xYb4N9mC3sL6aF5hJ0eR2uW8iO",
     "secret-assignment"),
    ("my token is ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8", "ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8", "github-token"),
    ("use glpat-x7Qm2Rk9Vt4Lp8Wn3Zs1 for the registry", "glpat-x7Qm2Rk9Vt4Lp8Wn3Zs1", "gitlab-token"),
    ("SLACK_BOT=xoxb-2931847561-8391047562-Qw7Er9Ty2Ui4Op6As8Df1Gh3",
     "xoxb-2931847561-8391047562-Qw7Er9Ty2Ui4Op6As8Df1Gh3", "slack-token"),
    ("stripe: sk_live_4eC39HqLyjWDarjtT1zdp7dcQ2", "sk_live_4eC39HqLyjWDarjtT1zdp7dcQ2", "stripe-key"),
    ("OPENAI_API_KEY=sk-proj-Zq8Xw2Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx", "sk-proj-Zq8Xw2Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx", "openai-key"),
    ("key sk-ant-api03-Tq9Wm2Xr5Zb8Nc1Vd4Lf7Hg0Jk3Pq6Ys9Ua2Ie5Ro8", "sk-ant-api03-Tq9Wm2Xr5Zb8Nc1Vd4Lf7Hg0Jk3Pq6Ys9Ua2Ie5Ro8",
     "anthropic-key"),
    ("maps key AIzaSyD4r8Tq2Wx6Zc9Vb1Nm3Lk5Jh7Gf0Ds2Ap", "AIzaSyD4r8Tq2Wx6Zc9Vb1Nm3Lk5Jh7Gf0Ds2Ap", "google-api-key"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkYW5hIiwiaWF0IjoxNzAwMDAwMDAwfQ.q3Zk8Rw2Xv5Tn7Lm9Pb1Qc4Yd6Hf0Ja2",
     "eyJzdWIiOiJkYW5hIiwiaWF0IjoxNzAwMDAwMDAwfQ", "jwt"),
    ("DATABASE_URL=postgres://app:Sup3r-S3cret!@db.internal:5432/shop", "Sup3r-S3cret!", "url-password"),
    ("connect with Server=db;User Id=sa;Password=Tr0ub4dor&3;", "Tr0ub4dor&3", "secret-assignment"),
    ('config = {"password": "correct horse battery staple"}', "correct horse battery staple", "secret-assignment"),
    ("the staging password is 'blue-Falcon-42'", "blue-Falcon-42", "secret-in-prose"),
    ("curl -u admin:Pa55w0rd-x https://api.example.com/health", "Pa55w0rd-x", "basic-auth"),
    ("client_secret: Zq8Xw2Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9ZxCv", "Zq8Xw2Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9ZxCv", "secret-assignment"),
    ("here is the blob 9fQ2xR7mT4wL8zN1vB6kH3pJ5cY0aS2dG7eU4iO9 for you", "9fQ2xR7mT4wL8zN1vB6kH3pJ5cY0aS2dG7eU4iO9",
     "high-entropy-token"),
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
]


@pytest.mark.parametrize("text", SURVIVES)
def test_ordinary_text_is_left_alone(text: str) -> None:
    result = redact(text)
    assert result.text == text and result.count == 0 and result.kinds == ()


def test_redaction_is_idempotent_and_counts_every_secret() -> None:
    text = "AKIA2E0A8F3B244C9986 and ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8 and AKIA4RW7QX2M9TB5NK3Z"
    once = redact(text)
    assert once.count == 3 and once.kinds == ("aws-access-key", "github-token")
    twice = redact(once.text)
    assert twice.text == once.text and twice.count == 0


def test_placeholders_are_not_secrets() -> None:
    for text in ("password: ${DB_PASSWORD}", "api_key = '<your-api-key>'", "token: xxxxxxxxxxxxxxxx",
                 "AWS key AKIAIOSFODNN7EXAMPLE from the docs", "secret = ''"):
        assert redact(text).count == 0, text


@settings(max_examples=80, deadline=None)
@given(prefix=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40),
       path=st.from_regex(r"/(?:[a-z]{3,8}/){1,4}[a-z]{3,8}\.(?:py|md|toml)", fullmatch=True),
       url=st.from_regex(r"https://[a-z]{3,10}\.(?:com|org|io)/[a-z]{2,8}(?:/[a-z0-9]{2,8}){0,3}", fullmatch=True))
def test_paths_and_plain_urls_survive_around_a_secret(prefix: str, path: str, url: str) -> None:
    text = f"{prefix} see {path} and {url} ; token ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8"
    result = redact(text)
    assert path in result.text and url in result.text
    assert "ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8" not in result.text
