"""Prose that gives a credential before the words naming it: "we use Zq8vT2mW9x as the deploy
key", "Kx9mQ2vLp7 is the staging password". Nothing marks the value but the words after it, so
it must look made to be a secret: 8+ characters with a letter and a digit, not a name, a path,
a file, a version or a placeholder. (A long random token is masked on its own anyway.)"""

from __future__ import annotations

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.patterns import Detector, detector
from memvet.store.redaction.values import (
    entropy,
    is_identifier_like,
    is_pathlike,
    is_placeholder,
    reads_as_words,
)

_VALUE = r"(?:[\"'`](?P<q>[^\"'`\s]{8,64})[\"'`]|(?P<v>[^\s\"'`,;()\[\]]{8,64}))"
_DETERMINER = r"(?:the|our|my|a|an|their|its|your)"
# Up to three words between ("the old staging api token"), then the word naming a secret.
_NAMED = (
    r"(?:[\w\-]+[ \t]+){0,3}?(?:api[ \t]+)?"
    r"(?:key|token|password|passphrase|passcode|secret|pw|pwd|pin|credential)s?\b"
)
# ... unless the words go on to say what the value is *about*: "as the key type", "the secret store".
_ABOUT = (
    r"(?![ \t]+(?:manager|vault|store|safe|algorithm|algo|format|type|name|id|size|length|"
    r"prefix|header|field|policy|rotation|endpoint|url|file|path|hash|scheme|cipher|provider)\b)"
)
VERSION = LazyPattern(r"[vV]?\d+(?:\.\d+)+(?:[\-+.]\w+)?")  # v2.14.0, 1.2.3-beta
_KEY_FILE = LazyPattern(r"(?i)id_\w+|.*\.(?:pem|key|pub|crt|cer|p12|pfx|json|ya?ml|txt|env)")


def _made_to_be_secret(value: str) -> bool:
    return (
        any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and entropy(value) >= 2.5
        and not VERSION.fullmatch(value)
        and not _KEY_FILE.fullmatch(value)
        and not is_placeholder(value)
        and not is_pathlike(value)
        and not is_identifier_like(value)
        and not reads_as_words(value)
    )


NAMED_AFTER: tuple[Detector, ...] = (
    # "we use X as the deploy key", "set X as our api token", "using 'X' for the vpn password"
    detector(
        "secret-in-prose",
        rf"(?i)\b(?:use|uses|used|using|set|chose|picked|try|tried|enter|entered|type)[ \t]+"
        rf"{_VALUE}[ \t]+(?:as|for)[ \t]+(?:{_DETERMINER}[ \t]+)?{_NAMED}{_ABOUT}",
        ("use", "set", "chose", "picked", "try", "tried", "enter", "type"),
        ("q", "v"),
        _made_to_be_secret,
    ),
    # "X is the password for the reporting db", "'X' was our old api token", "X — that's the …"
    detector(
        "secret-in-prose",
        rf"(?i)(?:^|(?<=[\s(])){_VALUE}[ \t]+(?:is|was|(?:[—–\-][ \t]+)?that(?:'s|[ \t]+is))[ \t]+"
        rf"{_DETERMINER}[ \t]+{_NAMED}{_ABOUT}",
        (" is the ", " is our ", " is my ", " was the ", " was our ", " was my ", " is a ", "that"),
        ("q", "v"),
        _made_to_be_secret,
    ),
)
