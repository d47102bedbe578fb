"""Subjects (issue 13): what a statement is about, and the tokens and word classes that
say it, which claims.py reads too.

A subject is a short normalised phrase ("package manager", "staging postgres port", "deploy"),
derived from the statement and kind at admission and editable at approval. Memories of one subject
in one scope form a slot; a slot has one current answer unless its memories are marked compatible
(claims.py says when two of them are rival answers).

Deterministic and dictionary-free apart from lexicon.py; nothing here is on the hook's path.
"""

from __future__ import annotations

import re

from memvet.store import text_terms as tt
from memvet.store.lexicon import CONCEPTS, LANGUAGES
from memvet.store.slot_vocabulary import (
    FAMILIES,
    FAMILY_LABELS,
    LINK_VERBS,
    LINK_WORDS,
    cued_subject,
    rewritten,
)
from memvet.store.subjects import STOPWORDS

SUBJECT_WORDS = 3  # words at most in a derived subject
MAX_SUBJECT = 80  # characters of an operator-typed subject
CONCEPT_LABELS = {
    "package-manager": "package manager",
    "lint": "linter",
    "format": "formatter",
    "container": "containers",
    "test-framework": "test framework",
}
# Lexicon words that name the concept, not one of its values ("database" is not a rival of "uv").
GENERIC = frozenset(
    """package manager dependency dependencies deps lockfile database db sql orm ci
style styling shell indent indentation test framework lint linter linting format formatter
formatting async concurrent concurrently concurrency warehouse container containers""".split()
)
# Words that end the leading noun phrase of a subject (verbs and prepositions a statement links
# its subject to its value with), and words never part of a subject.
BOUNDARY = frozenset(
    """is are was be go goes went through with via using uses use in on at to for
from into listens listen lives live runs run located sits called named set has have should must
can will lives points point means and or but by""".split()
)
FILLER = (
    frozenset(
        """listens listen lives located called named default set value currently
straight really always never please don't dont do does don doesn didn isn aren wasn won not
no longer re ve ll upgraded upgrade downgraded switched migrated""".split()
    )
    | LINK_WORDS
)  # "don't" tokenises as "don", "we're" as "re": a negation or contraction is no subject
SCOPE_PHRASE = re.compile(
    r"\b(?:in|for|across|on)\s+(?:all\s+|every\s+|each\s+)?(?:of\s+)?"
    r"(?:this|the|my|our|these)?\s*(?:projects?|repos?|repositor(?:y|ies)|"
    r"codebases?|workspaces?)\b"
)
# Nouns a number names rather than measures ("service number 3", but "port 5433", "python 3.11").
NAMING = frozenset(
    """number no id server service worker replica shard instance host region
step phase stage item case issue ticket pr job queue cluster env environment""".split()
)
TOKEN = re.compile(r"`[^`]+`|[a-z0-9][a-z0-9_.+/#:-]*[a-z0-9+#]|[a-z0-9]")
NUMBER = re.compile(r"v?\d+(?:\.\d+)*[a-z]?")
# A spelled count before the noun it counts ("two approvals") is a number; "one of", "one in" not.
SPELLED_VALUES = {
    w: str(i) for i, w in enumerate("one two three four five six seven eight nine ten".split(), 1)
}
SPELLED = re.compile(
    r"\b(" + "|".join(SPELLED_VALUES) + r")\b(?=\s+(?!(?:of|in|on|at|to|or|and|by|is|for)\b)[a-z])"
)
# A statement whose speaker uses a tool for a purpose ("We use Sentry for errors", "Use X for Y").
USE_FOR = re.compile(
    r"\s*(?:(?:we|i|you)\s+)?(?:use|prefer|chose|choose|pick|picked)\s+.+?\s+(?:for|as)\s+"
    r"([^,;()]+)"
)
FAMILIES_AND_CONCEPTS = {**CONCEPTS, **FAMILIES}
TOOLS = frozenset(
    w
    for name, words in FAMILIES_AND_CONCEPTS.items()
    for w in words
    if " " not in w and w not in GENERIC
)
CONCEPT_OF = {
    w: name for name, words in FAMILIES_AND_CONCEPTS.items() for w in words if " " not in w
}
# A package manager's own verbs (about the package manager), and script names that say a role.
INSTALLING = frozenset("install i add remove rm uninstall sync lock update upgrade ci init".split())
SCRIPT_ROLES = {"test": "tests", "tests": "tests", "fmt": "formatter"}


def normalise_subject(text: str) -> str:
    """The comparable form of a subject: case-folded words, light-stemmed, single spaces. Two
    subjects are the same slot when their normal forms are equal."""
    words = re.findall(r"[a-z0-9][a-z0-9_.+/#-]*", text.casefold())
    return " ".join(tt.stem(w) for w in words)[:MAX_SUBJECT]


def clean_subject(text: str) -> str:
    """An operator-typed subject as stored: one line, trimmed, bounded."""
    return " ".join(text.split())[:MAX_SUBJECT].strip()


def statement_tokens(text: str) -> list[str]:
    """The statement's words, numbers and `code` spans, case-folded, spelled counts as digits."""
    text = SPELLED.sub(lambda m: SPELLED_VALUES[m.group(1)], text.casefold().replace("’", "'"))
    return [t.strip("`").strip() for t in TOKEN.findall(text)]


def derive_subject(statement: str, kind: str) -> str:
    """The slot a statement fills, e.g. "The staging postgres listens on port 5433" -> "staging
    postgres port", "We use pnpm in this repo" -> "package manager", "Deploys go through Heroku"
    -> "deploys". A statement naming a number keeps its own words (a port, a version); otherwise a
    tool family in the lexicon names it; otherwise its leading noun phrase does."""
    text = SCOPE_PHRASE.sub(" ", rewritten(statement.casefold().replace("’", "'")))
    cued = cued_subject(text)
    tokens = statement_tokens(text)
    if cued is not None:  # a familiar phrasing of a slot ("sessions expire after …"), per language
        language = next((t for t in tokens if t in LANGUAGES and t != "go"), None)
        return f"{language} {cued}" if language else cued
    has_number = any(NUMBER.fullmatch(t) for t in tokens)
    if not has_number:
        role = _tool_role(tokens)
        if role is not None:
            # A tool's role is per language: black for Python and prettier for TypeScript are
            # two formatters, not rivals ("go" is left out: it is mostly a verb).
            language = next((t for t in tokens if t in LANGUAGES and t != "go"), None)
            return f"{language} {role}" if language else role
        purpose = USE_FOR.match(text)
        if purpose:  # "we use Sentry for errors": the purpose is the slot, the tool its value
            tokens = statement_tokens(purpose.group(1))
    words: list[str] = []
    for i, token in enumerate(tokens):
        if (
            NUMBER.fullmatch(token)
            and i
            and tokens[i - 1] in NAMING
            and words[-1:] == [tokens[i - 1]]
            and len(words) < SUBJECT_WORDS
        ):
            words.append(token)  # "service number 3", "worker 2": the number names the thing
            continue
        if " " in token or NUMBER.fullmatch(token):
            if has_number and i and tokens[i - 1] not in words and is_content_word(tokens[i - 1]):
                words.append(tokens[i - 1])  # "port 5433", "python 3.11": the number's noun
            if words:
                break
            continue
        if words and (token in BOUNDARY or token in LINK_VERBS):
            if not has_number:
                break
            continue
        if is_content_word(token) and token not in FILLER and len(words) < SUBJECT_WORDS:
            words.append(token)
    named = {_concept(w) for w in words if w in TOOLS}
    # "The database is Postgres 16" is about Postgres, as "We're on Postgres 14" is.
    words = [w for w in words if not (w in GENERIC and _concept(w) in named)]
    if has_number and len(words) == 1 and words[0] in TOOLS:
        return _label(_concept(words[0]) or words[0])  # "we use MySQL 8": the database
    return " ".join(words[:SUBJECT_WORDS]) or kind


def _concept(word: str) -> str | None:
    return CONCEPT_OF.get(word) or CONCEPT_OF.get(tt.stem(word))


def _label(name: str) -> str:
    return CONCEPT_LABELS.get(name) or FAMILY_LABELS.get(name) or name.replace("-", " ")


def _tool_role(tokens: list[str]) -> str | None:
    """The role of the first tool the statement names. A package manager running a script is
    the script's role ("cargo clippy" lints, "yarn test" tests); only installing with it (or
    naming it) is about the package manager."""
    words = [(w, " " in t) for t in tokens for w in (t.split() if " " in t else (t,))]
    for i, (word, in_code) in enumerate(words):
        name = _concept(word)
        if name is None:
            continue
        following = words[i + 1][0] if i + 1 < len(words) else ""
        if name in FAMILIES and is_content_word(following) and following not in FILLER:
            continue  # "every aws resource": a qualifier of what it is about, not its value
        if name != "package-manager":
            return _label(name)
        rest = [w for w, _ in words[i + 1 : i + 3]]
        script = rest[1] if rest[:1] == ["run"] and len(rest) > 1 else (rest[:1] or [""])[0]
        other = _concept(script) if script else None
        if other is not None and other != "package-manager":
            return _label(other)
        if script in SCRIPT_ROLES:
            return SCRIPT_ROLES[script]
        if in_code and script and script not in INSTALLING and not script.startswith("-"):
            continue  # a script of no known role: what it does is the subject, not the tool
        return _label(name)
    return None


def is_content_word(token: str) -> bool:
    """A word that can name a subject or a value: no stopword, link, bare number or letter."""
    return (
        token not in STOPWORDS
        and token not in BOUNDARY
        and not NUMBER.fullmatch(token)
        and len(token) > 1
    )
