"""Issue 14: one minimal form per policy class the detectors were tuned on (docs/threat-model.md,
"What counts as a secret"). Each class has a control beside it that must still be redacted, so a
test cannot pass by a detector switching off. Values are made up; none is a corpus row."""

from __future__ import annotations

import pytest
from memvet.store.redaction import redact

RANDOM = "Qm7vK2xZp9LwR4tY8nB3cJ6hF1dS5gAe"  # 32 generated-looking characters
PEM_BODY = "\n".join(
    [
        "mQENBFOrMNcBCAC+gLI4s3bUkobS5NpOQbWfjWXbqC0Ixpc5bZYDOvsmfstmswna",
        "UWUXkRH9RONabzrAu4TGvW0f5DkC2fuWWHJhZWEccn+VE83+avMZN4/mzldSXPNX",
        "A6F7+wHb1DjG+FCDcxMghkwDjGc16LOtZGufUo5iRQaC5pmNBOgDWdiObGPKOTEL",
    ]
)


def _kept(text: str) -> None:
    assert redact(text).text == text, redact(text).text


def _masked(text: str, secret: str) -> None:
    result = redact(text)
    assert result.changed and secret not in result.text, result.text


@pytest.mark.parametrize("kind", ["PGP PUBLIC KEY BLOCK", "PUBLIC KEY", "RSA PUBLIC KEY"])
def test_public_key_blocks_are_public(kind: str) -> None:
    _kept(f"-----BEGIN {kind}-----\n\n{PEM_BODY}\n-----END {kind}-----\n")
    private = kind.replace("PUBLIC", "PRIVATE")
    _masked(f"-----BEGIN {private}-----\n{PEM_BODY}\n-----END {private}-----\n", PEM_BODY[:40])


def test_private_key_in_a_string_with_escaped_line_breaks() -> None:
    escaped = PEM_BODY.replace("\n", "\\r\\n")
    _masked(f'"-----BEGIN RSA PRIVATE KEY-----\\r\\n{escaped}\\r\\n"', escaped[:40])


@pytest.mark.parametrize(
    "text",
    [
        "arn:aws:kms:eu-west-1:111122223333:key/7c9e6679-7425-40de-944b-e07fc1f90ae7",
        "the row is at key/6fa459ea-ee8a-4ca4-894e-db77e160355e in the store",
    ],
)
def test_paths_of_names_and_uuids_are_identifiers(text: str) -> None:
    _kept(text)
    _masked(f"key/{RANDOM}", RANDOM)


def test_names_spelled_with_numbered_words_are_identifiers() -> None:
    _kept('pub const NID_sha3_Keccak256_Padding = "id-sha3-Keccak256-Padding"')
    _masked(f'pub const NID_SECRET = "{RANDOM}"', RANDOM)


def test_a_value_named_public_is_public() -> None:
    _kept(f'publicToken = "{RANDOM}"')
    _masked(f'accessToken = "{RANDOM}"', RANDOM)


def test_client_ids_are_public_identifiers_for_the_rules_too() -> None:
    _kept(f"auth0_client_id = '{RANDOM}'")
    _masked(f"auth0_client_secret = '{RANDOM}'", RANDOM)


def test_a_host_named_by_a_secret_word_is_not_the_secret() -> None:
    _kept("staging.credentials.url=db-lb2.eu1.a4cme.io:6432")
    _masked(f"staging.credentials={RANDOM}", RANDOM)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "acmerelationshipcrmACCESS=abcdefabcdefabcdefabcdefabcdef",
            "abcdefabcdefabcdefabcdefabcdef",
        ),
        ("acme token xyzxyzxyzxyzxyzxyzxyzxyzxyzxyz12", "xyzxyzxyzxyzxyzxyzxyzxyzxyzxyz12"),
    ],
)
def test_typed_values_next_to_a_secret_word_are_secrets(text: str, secret: str) -> None:
    _masked(text, secret)  # policy: a typed sequence near a secret word may be a weak real one


def test_typed_values_without_a_secret_word_are_left_alone() -> None:
    _kept("acme build abcdefabcdefabcdefabcdefabcdef")


def test_a_connection_string_password_slot_takes_any_literal() -> None:
    _masked("Server=db;User Id=app;Password=secret;Database=app;", "Password=secret")
    _kept("Server=db;User Id=app;Password=${DB_PASSWORD};Database=app;")


def test_a_provider_token_saying_fake_is_a_placeholder() -> None:
    _kept("xoxb-123456789012-Ab12FakeToken99")
    _masked(f"xoxb-123456789012-{RANDOM}", RANDOM)


def test_a_dropbox_short_lived_token_is_a_token() -> None:
    token = "sl." + (RANDOM + "-_") * 4
    _masked(f"DROPBOX_ACCESS={token}", RANDOM)
    _masked(token, RANDOM)
    _kept("see tsl.conf and dsl.yaml for the settings")


def test_a_provider_prefix_makes_a_made_up_body_a_token() -> None:
    _masked("glptt-hellOworld380_testing", "hellOworld380")  # policy: masking a fake costs nothing


def _adjudicator():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "adjudicate_secrets.py"
    spec = importlib.util.spec_from_file_location("adjudicate_secrets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_adjudication_criteria_follow_the_policy() -> None:
    """tests/tools/adjudicate_secrets.py decides by the row alone: a provider prefix, a webhook
    path token, a .NET password value, a pwd/pat name make a negative a secret; placeholders do not."""
    live = _adjudicator().live_literal
    assert live(f"sgp_{RANDOM}") and live(f"ibm-cloud-pwd = {RANDOM}")
    assert live('<add key="ClearTextPassword" value="k3!rT9_zq" />')
    assert live("https://hooks.example-chat.io/hooks/catch/9f8e7d6c5b4a")
    assert live(f"asana_pat = {RANDOM}") and not live(f"compat = {RANDOM}")
    assert live(f"OAuth('{RANDOM}', '{RANDOM[::-1]}')") and not live(f"OAuth('{RANDOM}')")
    for placeholder in (
        "xoxb-Slack_BOT_TOKEN",
        "xoxp-1-SlackAppConfigurationTokenHere",
        "glpat-xxxxxxxxxxxxxxxxxxxx",
    ):
        assert live(placeholder) is None, placeholder
    assert live("https://indieweb.org/images/2018-250-xoxo-indieweb-1.jpg") is None


def test_adjudication_keeps_a_typed_body_behind_a_glued_provider_prefix() -> None:
    """A rule often captures only the body (`sbp_` + 40 characters): the prefix before it in the
    text still makes it a token (policy), where a provider's name apart from it does not."""
    typed = _adjudicator().typed_without_context
    body = "1234567890abcdefghij1234567890klmnopqrst"
    assert not typed(body, f"sbp_{body}") and not typed(body, f"NF-{body}")
    assert typed(body, f"cloudsmith {body}")


def test_a_short_value_of_two_letter_chunks_is_no_camel_case_name() -> None:
    """Policy: any literal assigned to a key name is the secret, however weak; `XyPqRS749` was
    read as a camelCase identifier (Xy-Pq-RS-749), which is made of words, and kept."""
    _masked("DEPLOY_ACCESS_KEY: XyPqRS749", "XyPqRS749")
    _kept("api_key: apiKeyFromEnv")  # a name: code, not a literal


def test_an_ip_address_is_a_hosts_and_kept() -> None:
    """Policy: hosts are public identifiers; an address grants nothing when pasted."""
    name = _adjudicator()._IDENTIFIER_NAME
    assert name.search("ip_public") and not name.search("Ripple Secret")
    _kept("the build host is 203.0.113.7, the cache 198.51.100.23:6379")
    _masked("redis://cache:Zx9pQ2wLm7@198.51.100.23:6379", "Zx9pQ2wLm7")


def test_an_aws_key_id_with_a_typed_body_is_not_a_key() -> None:
    _kept("AKIAABCDEFGHIJKLMNOP")  # policy: a typed sequence with no secret word near it
    _masked("AKIAQ7ZK3MW5RT2YX4NB", "AKIAQ7ZK3MW5RT2YX4NB")


def test_a_run_of_blanks_in_a_long_random_body_leaves_a_token() -> None:
    """Blanks written over a value mask it; a run of four inside a long generated body does not
    make a prefixed token a placeholder."""
    token = f"HRKU-AA{RANDOM[:20]}_____{RANDOM}_u"
    _masked(f'const KEY = "{token}"', RANDOM)
    _kept("STRIPE_KEY=sk_live_________________________")


def test_adjudication_placeholder_and_nonce_criteria() -> None:
    """A slot's name as a CONSTANT (`-p PASSWORD`) is a reference, a lower-case lone word a weak
    literal; a CSRF token grants nothing alone; "…Identifier" rules find identifiers."""
    judge = _adjudicator()
    assert judge.placeholder("PASSWORD") and judge.placeholder("ACCESS_TOKEN")
    assert judge.placeholder("password") is None and judge.placeholder(RANDOM) is None
    assert judge.nonce_value(RANDOM, f"csrf-token={RANDOM}")
    assert not judge.nonce_value(RANDOM, f"csrf-token={RANDOM}\napi_token = {RANDOM[::-1]}")
    assert judge.live_literal(f"csrf_token = {RANDOM}") is None
    assert judge.live_literal(f"auth_token = {RANDOM}")
    assert judge._IDENTIFIER_NAME.search("Snowflake Account Identifier")


def test_adjudication_typed_runs_but_not_behind_a_glued_prefix() -> None:
    """abcd1234efgh5678… and a repeated 8-chunk are typed; letters that are no run leading the
    value (`dapi…`) are a provider's prefix glued without a separator, and keep it a token."""
    typed = _adjudicator().is_typed
    assert typed("abcd1234efgh5678ijkl9012mnop3456") and typed("123e4567abcd4567abcd4567abcd4567")
    assert not typed("dapiabcd1234abcd1234abcd1234abcd1234") and not typed(RANDOM)
