"""The shape of a question (relevance.py's reading of it): what a what/which question asks
for (its focus), whose it is or what a task is done to (its qualifier), the words of a "how
long" phrase, and Go the language. Standard library and text_terms only: the hook's prompt
path loads it.

The focus and the qualifier came out of the failure analysis of the user-side dev split (issue
13; tests/eval/user, never its test split): most confident false answers shared one word —
often an attribute, "port", "account", "version" — with a memory of another thing.
"""

from __future__ import annotations

import re

from memvet.store import text_terms as tt
from memvet.store.subjects import STOPWORDS

WH_FOCUS = frozenset({"what", "which", "what's", "whats"})
# Words after a what/which focus that say whose it is: "of/for/on X", "does X <verb>".
QUALIFIER_LINKS = frozenset({"of", "for", "on", "does", "do", "did"})
PARTICLES = frozenset("to on with at in from into against up down off out".split())
# "how do/can I <verb> the X": a definite or bare X is a thing memvet should have been told of;
# "how SHOULD I style the new banner", "how do I add A NEW dependency" ask about work to be done.
HOW_AUX = frozenset({"do", "can"})
NEW_THING = frozenset({"a", "an", "new", "this", "these", "my", "our"})
WHO_OBJECT = frozenset({"do", "does", "did", "should", "can", "must", "would", "could"})
# What a task is done to, when it is the project itself or any change of it ("deploy this
# APP", "apply terraform CHANGES"): no thing memvet must have been told of.
GENERIC_OBJECTS = tt.terms(
    "app application change changes code new version versions update updates"
)
COPULA = frozenset({"is", "are", "was", "were"})
DETERMINERS = frozenset(
    "the a an our my your this that these those its their another other some any each every".split()
)
GENERIC_HEADS = tt.terms(
    "library tool framework runner thing kind type option one way file "
    "command format style convention engine runtime"
)
# Words of a wh-phrase ("how LONG", "how MANY") are the question's form, not its subject.
HOW_WORDS = frozenset({"long", "many", "much", "often", "far", "soon", "big", "large"})
_WORDS = re.compile(r"[a-z0-9][a-z0-9_.+/#'-]*")
_PART = re.compile(r"[-_./+#]+")  # text_terms' compound separators

# "go" the language: before a version or a thing made in it, or after "in/with/of".
_GO = re.compile(
    r"\bgo(?=\s+(?:v?\d|version|release|toolchain|module|modules|linter|code|binary|binaries"
    r"|build|builds|service|services)\b)|(?:(?<=\bin\s)|(?<=\bwith\s)|(?<=\bof\s))go\b",
    re.IGNORECASE,
)
_GOLANG = frozenset({"golang"})


def go_language(text: str) -> frozenset[str]:
    """{"golang"} when the text names Go the language ("Go 1.22", "which go version", "written
    in Go"): "go" is a stop word as a verb, and a Go project's questions lost their subject."""
    return _GOLANG if _GO.search(text) else frozenset()


def how_words(text: str) -> frozenset[str]:
    words = _WORDS.findall(text.casefold())
    return frozenset(
        b for a, b in zip(words, words[1:], strict=False) if a == "how" and b in HOW_WORDS
    )


def focus_terms(query: str, noise: frozenset[str]) -> frozenset[str]:
    """What a "what/which" question asks for: the noun phrase right after the wh-word or after
    "what is the" ("what's the snowflake warehouse size for ..." -> snowflake, warehouse, size),
    less class words ("which navigation library" asks for a navigation tool). None when the
    wh-word is an object ("what did we use to install packages?") or for other questions."""
    words = _question_words(query)
    if not words or words[0] not in WH_FOCUS:
        return frozenset()
    rest = words[1:]
    if "use" in rest and rest[rest.index("use") + 1 : rest.index("use") + 2] == ["for"]:
        rest = rest[rest.index("use") + 2 :]  # "what should I use for X?" asks for a tool for X
        while rest and rest[0] in DETERMINERS:
            rest = rest[1:]
    if words[0] in ("what's", "whats") or rest[:1] and rest[0] in COPULA:
        rest = rest[0 if words[0] in ("what's", "whats") else 1 :]
        while rest and rest[0] in DETERMINERS:
            rest = rest[1:]
    return _phrase_terms(_noun_phrase(rest), noise)


def _phrase(words: list[str]) -> list[str]:
    """The words up to the first stop word."""
    phrase: list[str] = []
    for word in words:
        if word in STOPWORDS or word in COPULA:
            break
        phrase.append(word)
    return phrase


def _noun_phrase(words: list[str]) -> list[str]:
    """_phrase less a verb ending it: "which static generator RENDERS these pages" (a word in
    -s right before a determiner is the clause's verb, not part of what is asked for)."""
    phrase = _phrase(words)
    after = words[len(phrase) : len(phrase) + 1]
    last = phrase[-1] if phrase else ""
    if len(phrase) > 1 and after and after[0] in DETERMINERS and _third_person(last):
        return phrase[:-1]
    return phrase


def _third_person(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _phrase_terms(phrase: list[str], noise: frozenset[str]) -> frozenset[str]:
    found = tt.plain_terms(" ".join(phrase))
    # A compound ("elixir/otp") is asked for through its parts, which a text may name apart.
    wholes = {t for t in found if _PART.search(t) and set(_PART.split(t)) & found}
    return frozenset(found - wholes) - noise - GENERIC_HEADS


def qualifier_terms(query: str, noise: frozenset[str]) -> frozenset[str]:
    """What the thing a what/which/who question asks about is said to be of: the phrase after
    its focus ("the port OF THE WEB SERVER", "the timeout FOR TERRAFORM PLAN", "which port DOES
    THE WEB SERVER listen on", "who OWNS the staging account"). When nothing in scope speaks of
    part of it, the memory that shares the attribute is about something else: the staging
    postgres port is no web server's port (the dev split's confident false answers hung on one
    shared attribute word)."""
    words = _question_words(query)
    if not words:
        return frozenset()
    if words[0] == "who" and words[1:2] and words[1] not in WHO_OBJECT:
        rest = words[1:]  # "who owns X?", "who gets paged when ...": the verb is asked for
        while rest and (rest[0] in STOPWORDS or rest[0] in COPULA):
            rest = rest[1:]
        return _phrase_terms(_phrase(rest), noise)
    if words[0] == "how" and words[1:2] and words[1] in HOW_AUX and words[2:3] in (["i"], ["we"]):
        rest = words[4:]  # "how do I run DATABASE MIGRATIONS?": what the task is done to
        if rest[:1] and rest[0] in NEW_THING:
            return frozenset()  # "how do I add A NEW dependency": a thing not made yet
        while rest and rest[0] in DETERMINERS:
            rest = rest[1:]
        return _phrase_terms(_phrase(rest), noise) - GENERIC_OBJECTS
    if not focus_terms(query, noise):
        return frozenset()
    rest = words[1:]
    if words[0] in ("what's", "whats") or rest[:1] and rest[0] in COPULA:
        rest = rest[0 if words[0] in ("what's", "whats") else 1 :]
    while rest and rest[0] in DETERMINERS:
        rest = rest[1:]
    at = len(_noun_phrase(rest))
    rest = rest[at:]
    if at and rest[:1] and rest[0] in COPULA:
        return _copula_qualifier(rest[1:], noise)
    if not rest or rest[0] not in QUALIFIER_LINKS:
        return frozenset()
    link, rest = rest[0], rest[1:]
    while rest and rest[0] in DETERMINERS:
        rest = rest[1:]
    phrase = _phrase(rest)
    after = rest[len(phrase) : len(phrase) + 1]
    if link in ("does", "do", "did") and len(phrase) > 1 and (not after or after[0] in PARTICLES):
        phrase = phrase[:-1]  # "does the web server LISTEN on": the clause's verb, no qualifier
    return _phrase_terms(phrase, noise) - HOW_WORDS


def _copula_qualifier(rest: list[str], noise: frozenset[str]) -> frozenset[str]:
    """Whose the focus is, said after a copula and before a particle ("which port is REDIS
    on?", "what version is NODE pinned to?"), less a verb ending the phrase."""
    while rest and rest[0] in DETERMINERS:
        rest = rest[1:]
    phrase = _phrase(rest)
    after = rest[len(phrase) : len(phrase) + 1]
    if not phrase or not after or after[0] not in PARTICLES:
        return frozenset()  # "which branch is protected?": a predicate, not whose it is
    if len(phrase) > 1:
        phrase = phrase[:-1]
    return _phrase_terms(phrase, noise) - HOW_WORDS


def _question_words(query: str) -> list[str]:
    """The question's words, with Go the language named so ("which go linter": "go" is no verb)."""
    words = _WORDS.findall(query.casefold().replace("\u2019", "'"))
    return ["golang" if w == "go" else w for w in words] if go_language(query) else words
