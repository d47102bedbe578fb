"""Issue 14: the Nosey Parker / Kingfisher rules as a net under gitleaks and memvet's detectors,
memvet's policy over what they find, and the short prose forms. One made-up minimal form per
class, each with a control that must still be redacted (or kept), so no test passes by a layer
switching off. No value is a corpus row."""

from __future__ import annotations

from functools import partial

import pytest
from memvet.store.redaction import redact
from memvet.store.redaction.redact import redact_layers

WITHOUT_NP_KF = partial(redact_layers, rules=frozenset({"gitleaks"}))
NP_KF_ONLY = partial(redact_layers, rules=frozenset({"np_kf"}), own=False)


def _kept(text: str) -> None:
    assert redact(text).text == text, redact(text).text


def _masked(text: str, secret: str) -> None:
    result = redact(text)
    assert result.changed and secret not in result.text, result.text


def test_a_webhook_only_the_np_kf_rules_know_is_masked() -> None:
    path = "1234567/q7x9m2l"
    text = f"the hook is https://hooks.zapier.com/hooks/catch/{path}/"
    assert WITHOUT_NP_KF(text).text == text  # what the layer adds: nothing else has this shape
    _masked(text, path)


def test_a_typed_body_is_a_secret_only_behind_a_provider_prefix_or_a_secret_word() -> None:
    typed = "ABCDEF1234567890ABCDEF1234567890"
    _masked(f"NF-{typed}", typed)  # a prefix makes a token one, even with a made-up body
    assert NP_KF_ONLY(f"NF-{typed}").changed
    _kept("the wandb run is 1234567890abcdef1234567890abcdef12345678")  # no prefix, no word


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("timezoneapi access token: mnoPQRSTuvwxyzABCDEF", "mnoPQRSTuvwxyzABCDEF"),
        ("requestfinance api key HIJKLMN-OPQRSTU-VWXYZAB-CDEFGHI", "HIJKLMN-OPQRSTU"),
    ],
)
def test_a_typed_body_named_a_secret_in_a_providers_rule_is_masked(text: str, body: str) -> None:
    """Policy: next to a secret word a typed sequence may be a weak real secret, and is masked —
    also where its alphabet runs read as words or as a name (they were let through as such)."""
    assert NP_KF_ONLY(text).changed, NP_KF_ONLY(text).text
    _masked(text, body)
    _kept("the requestfinance docs list HIJKLMN-OPQRSTU-VWXYZAB-CDEFGHI as the format")


def test_a_credential_pair_with_a_reference_in_it_is_no_credential() -> None:
    _kept("PsExec.exe \\\\build01 -u deploy -p %DEPLOY_PASSWORD% cmd /c whoami")
    _masked("PsExec.exe \\\\build01 -u deploy -p Zx9pQ2wLm7 cmd /c whoami", "Zx9pQ2wLm7")


def test_rules_for_public_identifiers_do_not_fire() -> None:
    assert not NP_KF_ONLY("the Okta domain is dev-123456.okta.com").changed
    assert not NP_KF_ONLY(
        "client 123456789012-q7x9m2lk4n8p3r5t6v1w0z2yab3cd4ef.apps.googleusercontent.com"
    ).changed


def test_the_jwt_check_holds_for_every_rule_set() -> None:
    payload, signature = "eyJzdWIiOiIxMjM0NTY3ODkwIn0", "q7X9m2Lk4N8p3R5t6V1w0Z2yAb3Cd4Ef"
    not_a_header = "eyJub3QiOiAxfQ"  # {"not": 1}: no "alg", not a JWT
    assert not NP_KF_ONLY(f"{not_a_header}.{payload}.{signature}").changed
    assert NP_KF_ONLY(f"eyJhbGciOiJIUzI1NiJ9.{payload}.{signature}").changed


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("pw is hunter2", "hunter2"),
        ("the pw is hunter2 for staging", "hunter2"),
        ("the wifi pass is hunter22", "hunter22"),
        ("pass for staging is Zx9pQ2", "Zx9pQ2"),
        ("login admin:hunter2", "hunter2"),
    ],
)
def test_short_prose_forms(text: str, secret: str) -> None:
    _masked(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "the boarding pass is valid",
        "we passed the test",
        "test pass is 2024-01-01",
        "the pass is v2.0",
        "login at 10:30am",
        "login host:8080",
    ],
)
def test_short_prose_controls(text: str) -> None:
    _kept(text)


def test_a_discord_token_starts_with_its_bots_numeric_id() -> None:
    import base64

    tail = ".GSwJyi.q7X9m2Lk4N8p3R5t6V1w0Z2yAb3Cd4Ef5Gh6Ij7"
    real_head = base64.b64encode(b"1029481399591300016").decode().rstrip("=")
    made_up_head = base64.b64encode(b"10294813y9591300x16").decode().rstrip("=")
    _masked(f"bot {real_head}{tail}", real_head + tail)
    _kept(f"bot {made_up_head}{tail}")


def test_a_providers_suffix_glued_to_a_typed_body_makes_it_a_token() -> None:
    """Policy: a provider's mark says what a token is, at its end (MaxMind's `…_mmk`) as at its
    start; without it the same typed body is no secret."""
    body = "Qx7mL2_1234567890abcdef1234567890abc"
    assert NP_KF_ONLY(f"{body}_mmk").changed
    _masked(f"geoip license {body}_mmk", body)
    _kept("the build id is 1234567890abcdef1234567890abc")


def test_a_lone_word_in_a_credential_pair_is_no_reference() -> None:
    """`username "user"` is a weak literal, not a reference like %VAR%: its password is masked
    ("however weak"); a pair with a reference in it is still no credential."""
    _masked('credentials {\n  username "user"\n  password "password"\n}', '"password"\n}')
    _kept('credentials {\n  username "user"\n  password "${GRADLE_PASSWORD}"\n}')
