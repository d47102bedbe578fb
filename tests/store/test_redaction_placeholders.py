"""Issue 14: documentation placeholders are never redacted, in any of the places a credential
is (assignments, prose, headers, curl -u, a URL's user:password@, flags). Every context masks a
made-up real value (the control), so the test cannot pass by a detector switching off."""

from __future__ import annotations

import pytest
from memvet.store.redaction import redact

CONTEXTS = [
    "API_KEY={}",
    "export GITHUB_TOKEN={}",
    "the password is '{}'",
    "password: {}",
    "use the password {} for the db",
    "we use {} as the deploy key",
    "{} is the api token",
    "Authorization: Bearer {}",
    "curl -u admin:{} https://ci.example.com",
    'token = "{}"',
    "set the api key to {} in .env",
    "postgres://app:{}@db:5432/app",
    "--password {}",
]
PLACEHOLDERS = [
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "xxxxxxxxxxxxxxxx",
    "<token>",
    "<your-api-key>",
    "${API_KEY}",
    "$API_KEY",
    "%API_TOKEN%",
    "{{ vault_pw }}",
    "your-api-key",
    "YOUR_API_KEY",
    "your_token_here",
    "********",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
    "REPLACE_ME",
    "insert-key-here",
    "dummy-secret-value",
    "changeme",
    "123e4567-e89b-12d3-a456-426614174000",
]
REAL = "Zx9pQ2wLm7Kq4vR8"  # made up, generated-looking


@pytest.mark.parametrize("context", CONTEXTS)
def test_a_real_value_is_masked_in_every_context(context: str) -> None:
    assert REAL not in redact(context.format(REAL)).text


@pytest.mark.parametrize("placeholder", PLACEHOLDERS)
def test_a_placeholder_is_kept_in_every_context(placeholder: str) -> None:
    changed = [
        (text, out)
        for text in (context.format(placeholder) for context in CONTEXTS)
        if (out := redact(text).text) != text
    ]
    assert not changed, changed
