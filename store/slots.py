"""Subjects and slots (issue 13): what a statement is about, which values it asserts or denies,
and when two memories of one slot are rival answers.

A subject is a short normalised phrase ("package manager", "staging postgres port", "deploy"),
derived from the statement and kind at admission and editable at approval. Memories of one subject
in one scope form a slot; a slot has one current answer unless its memories are marked compatible.
Two memories of a slot are rivals when one negates a value the other asserts ("5433, not the
default 5432" against "5432"; a denial against the thing it denies), or when both assert values
of one type (numbers and versions, tool names, paths, code) and those sets share nothing. Word
overlap never makes a rival: values are compared only within one subject.

Deterministic and dictionary-free apart from lexicon.py; nothing here is on the hook's path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memvet.store import context_pack as cp
from memvet.store.lexicon import CONCEPTS, LANGUAGES
from memvet.store.slot_vocabulary import (
    FAMILIES,
    FAMILY_LABELS,
    LINK_VERBS,
    LINK_WORDS,
    PARTS,
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
AUXILIARIES = frozenset(
    """is are was were be been being should must can will has have had get gets got not never
no longer don't dont doesn't doesnt don doesn t always also only still""".split()
)  # between a subject and its relation verb
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
CLAUSE = re.compile(r"[,;:()\[\]!?]|\.(?:\s|$)|\bbut\b|\bso\b|\bthen\b")
NEGATION_CUE = re.compile(
    r"\b(?:not|no longer|never|don'?t|doesn'?t|isn'?t|aren'?t|won'?t|"
    r"cannot|can'?t|without|instead of|rather than|avoid|stop using|"
    r"no more)\b"
)
# A statement whose speaker uses a tool for a purpose ("We use Sentry for errors", "Use X for Y").
USE_FOR = re.compile(
    r"\s*(?:(?:we|i|you)\s+)?(?:use|prefer|chose|choose|pick|picked)\s+.+?\s+(?:for|as)\s+"
    r"([^,;()]+)"
)
CHANGE_FROM = re.compile(
    r"\b(?:moved|switched|migrated|changed|went|move|switch|migrate|"
    r"replaced)\b.*?\bfrom\s+(.+?)\s+(?:to|for|with)\b"
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
WHOLE = ("subject", "")  # the value of a statement whose words are all its subject's
# Words that place a statement in one environment: two memories placed in different ones both
# hold ("SQLite locally", "Postgres in production"); stemmed as claim values are.
ENVIRONMENTS = {
    "local": "local",
    "locally": "local",
    "laptop": "local",
    "ci": "ci",
    "staging": "staging",
    "stage": "staging",
    "prod": "production",
    "production": "production",
    "dev": "development",
    "development": "development",
    "macos": "macos",
    "linux": "linux",
    "windows": "windows",
}
# Words that only grant what a rule forbids ("force-pushing main is allowed"): no qualifier.
PERMISSION = frozenset("allow allowed fine ok okay permit permitted may can free freely".split())
COMPATIBLE_KINDS = ("procedure",)  # two procedures of one subject are two tasks unless they clash


def normalise_subject(text: str) -> str:
    """The comparable form of a subject: case-folded words, light-stemmed, single spaces. Two
    subjects are the same slot when their normal forms are equal."""
    words = re.findall(r"[a-z0-9][a-z0-9_.+/#-]*", text.casefold())
    return " ".join(cp.stem(w) for w in words)[:MAX_SUBJECT]


def clean_subject(text: str) -> str:
    """An operator-typed subject as stored: one line, trimmed, bounded."""
    return " ".join(text.split())[:MAX_SUBJECT].strip()


def _tokens(text: str) -> list[str]:
    text = SPELLED.sub(lambda m: SPELLED_VALUES[m.group(1)], text.casefold().replace("’", "'"))
    return [t.strip("`").strip() for t in TOKEN.findall(text)]


def derive_subject(statement: str, kind: str) -> str:
    """The slot a statement fills, e.g. "The staging postgres listens on port 5433" -> "staging
    postgres port", "We use pnpm in this repo" -> "package manager", "Deploys go through Heroku"
    -> "deploys". A statement naming a number keeps its own words (a port, a version); otherwise a
    tool family in the lexicon names it; otherwise its leading noun phrase does."""
    text = SCOPE_PHRASE.sub(" ", rewritten(statement.casefold().replace("’", "'")))
    cued = cued_subject(text)
    tokens = _tokens(text)
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
            tokens = _tokens(purpose.group(1))
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
            if has_number and i and tokens[i - 1] not in words and _content(tokens[i - 1]):
                words.append(tokens[i - 1])  # "port 5433", "python 3.11": the number's noun
            if words:
                break
            continue
        if words and (token in BOUNDARY or token in LINK_VERBS):
            if not has_number:
                break
            continue
        if _content(token) and token not in FILLER and len(words) < SUBJECT_WORDS:
            words.append(token)
    named = {_concept(w) for w in words if w in TOOLS}
    # "The database is Postgres 16" is about Postgres, as "We're on Postgres 14" is.
    words = [w for w in words if not (w in GENERIC and _concept(w) in named)]
    if has_number and len(words) == 1 and words[0] in TOOLS:
        return _label(_concept(words[0]) or words[0])  # "we use MySQL 8": the database
    return " ".join(words[:SUBJECT_WORDS]) or kind


def _concept(word: str) -> str | None:
    return CONCEPT_OF.get(word) or CONCEPT_OF.get(cp.stem(word))


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
        if name in FAMILIES and _content(following) and following not in FILLER:
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


def _content(token: str) -> bool:
    return (
        token not in STOPWORDS
        and token not in BOUNDARY
        and not NUMBER.fullmatch(token)
        and len(token) > 1
    )


@dataclass(frozen=True)
class Claim:
    """What one statement says about its subject: the values it asserts and those it denies,
    each as (type, value) with type one of number, tool, path, code, word."""

    asserted: frozenset[tuple[str, str]]
    negated: frozenset[tuple[str, str]]
    relation: str | None = None  # the verb linking subject and value ("hosted", "kept"), stemmed

    def of_type(self, kind: str) -> frozenset[str]:
        return frozenset(v for t, v in self.asserted if t == kind)

    def typed(self) -> frozenset[str]:
        return frozenset(t for t, _ in self.asserted if t not in ("word", WHOLE[0]))


def _values(segment: str, subject_words: frozenset[str]) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for token in _tokens(segment):
        if " " in token:
            out.add(("code", " ".join(token.split())))
            out.update(("tool", w) for w in token.split() if w in TOOLS)
        elif NUMBER.fullmatch(token):
            if token not in subject_words:  # a number that names the subject is no value
                out.add(("number", token.lstrip("v")))
        elif token in TOOLS or cp.stem(token) in TOOLS:
            out.add(("tool", token))
        elif "/" in token or re.fullmatch(r"\.?[a-z0-9_-]+\.[a-z0-9]{1,8}", token):
            out.add(("path", token.rstrip("/")))
        elif (
            _content(token)
            and token not in FILLER
            and token not in LINK_VERBS  # a link is no value ("hosted on Netlify")
            and cp.stem(token) not in subject_words
        ):
            out.add(("word", cp.stem(token)))
    return out


def claim_of(statement: str, polarity: str, subject: str) -> Claim:
    """Split a statement into what it asserts and what it denies. A value after a negation cue in
    the same clause is denied ("not the default 5432", "(not pip)", "don't run npm install"), so
    is the old value of a change ("moved from poetry to uv"); a denial denies everything."""
    text = rewritten(statement.casefold().replace("’", "'"))
    subject_words = frozenset(normalise_subject(subject).split())
    negated: set[tuple[str, str]] = set()
    asserted: set[tuple[str, str]] = set()
    change = CHANGE_FROM.search(text)
    if change:
        negated |= _values(change.group(1), subject_words)
        text = text[: change.start(1)] + " " + text[change.end(1) :]
    denies = False
    for clause in CLAUSE.split(text):
        cue = NEGATION_CUE.search(clause)
        if cue:
            asserted |= _values(clause[: cue.start()], subject_words)
            negated |= _values(clause[cue.end() :], subject_words)
            denies = True
        else:
            asserted |= _values(clause, subject_words)
    if not asserted and not negated:
        # Every word is the subject's ("run migrations before deploying"): the statement asserts
        # or denies its subject as a whole.
        (negated if denies else asserted).add(WHOLE)
    if polarity == "deny":
        negated, asserted = negated | asserted, set()
    asserted -= negated
    return Claim(frozenset(asserted), frozenset(negated), _relation(_tokens(text)))


def _relation(tokens: list[str]) -> str | None:
    """The verb after the statement's leading noun phrase and its auxiliaries ("Logs are KEPT
    for 30 days"), stemmed; None when that word is a generic link ("uses", "runs", "on")."""
    i = 0
    while i < len(tokens) and tokens[i] in STOPWORDS and tokens[i] not in BOUNDARY:
        i += 1  # "the", "our"
    while i < len(tokens) and (
        tokens[i] in LINK_WORDS or (_content(tokens[i]) and tokens[i] not in FILLER)
    ):
        i += 1  # the noun phrase
    while i < len(tokens) and tokens[i] in AUXILIARIES:
        i += 1
    if i == 0 or i >= len(tokens) - 1:
        return None  # the statement's last word is its value ("the default branch is master")
    word = tokens[i]
    if (
        word in BOUNDARY
        or word in LINK_VERBS
        or word in STOPWORDS - {"kept", "used"}
        or not word.isalpha()
    ):
        return None
    return cp.stem(word)


def rivalry(a: Claim, b: Claim, kind_a: str, kind_b: str) -> str | None:
    """How two claims of one subject clash: "negation" (one denies what the other asserts),
    "different_value" (both assert values of one type with nothing in common), or None."""
    for where in (ENVIRONMENTS, PARTS):
        places = [_places(c, where) for c in (a, b)]
        if all(places) and not places[0] & places[1]:
            return None  # one subject in two environments (staging, production) or two parts
    if kind_a == kind_b == "constraint" and _is_exception(a, b):
        return None  # a rule and the case it exempts ("dev-only test dependencies are fine")
    if _grants_denied(a, b) or _grants_denied(b, a):
        return "negation"  # "force-pushing main is allowed" against "never force-push main"
    if (kind_a == "constraint") != (kind_b == "constraint"):
        # A rule limits a fact or a habit ("never tabs in YAML"): a boundary, unless it denies
        # exactly what the other asserts, with no qualifier of its own ("don't commit the lockfile").
        rule, other = (a, b) if kind_a == "constraint" else (b, a)
        exact = rule.negated and rule.negated | rule.asserted <= other.asserted
        return "negation" if exact else None
    denied = (a.asserted & b.negated) | (b.asserted & a.negated)
    agreed = {v for v in a.asserted & b.asserted if v[0] not in ("word", WHOLE[0])}
    if denied and not (agreed and all(t == "word" for t, _ in denied)):
        # Both naming one tool while a qualifier sits after "instead of" is agreement.
        return "negation"
    if kind_a != kind_b:
        # A decision and a procedure of one subject differ in what they say, unless each names
        # a tool of the slot and they name none in common ("format with black", "ruff formats").
        # Numbers too: "we are on Django 4.2" against "we upgraded Django to 5.1".
        for of_type in ("tool", "number"):
            mine, theirs = a.of_type(of_type), b.of_type(of_type)
            if mine and theirs and not mine & theirs:
                return "different_value"
        return None
    if kind_a in COMPATIBLE_KINDS and not (a.typed() & b.typed()) - {"word", "code"}:
        # Two procedures that differ only in words or commands are two tasks (iOS and Android).
        return None
    types = a.typed() & b.typed()
    if not types:
        # No value type in common ("fly.io" against "render"): compare every value as a word.
        if a.relation and b.relation and a.relation != b.relation:
            return None  # two things said of one subject ("kept 30 days", "shipped to Loki")
        link = {a.relation, b.relation}  # the shared verb is no value ("hosted on ...")
        mine = {v for t, v in a.asserted if t != WHOLE[0]} - link
        theirs = {v for t, v in b.asserted if t != WHOLE[0]} - link
        if mine and theirs and not mine & theirs:
            return "different_value"
        # One thing named by one word each ("the develop branch", "the main branch").
        return "different_value" if len(mine - theirs) == len(theirs - mine) == 1 else None
    for kind in types:
        if kind == "code" and types - {"code"}:
            continue  # commands differ in flags; their tools and numbers decide
        mine, theirs = a.of_type(kind), b.of_type(kind)
        if mine and theirs and not (mine & theirs):
            return "different_value"
    return None


def _places(claim: Claim, where: dict[str, str]) -> frozenset[str]:
    values = claim.asserted | claim.negated
    # Claim words are stemmed ("staging" -> "stag"): compare stems of the place words.
    places = {cp.stem(w): place for w, place in where.items()} | where
    return frozenset(places[v] for t, v in values if t == "word" and v in places)


def _words(values: frozenset[tuple[str, str]]) -> frozenset[str]:
    return frozenset(v for t, v in values if t != WHOLE[0])


def _is_exception(a: Claim, b: Claim) -> bool:
    """One rule denies, the other allows what it denies for a narrower case: the allowing side
    shares the denied values and adds qualifiers of its own beyond words of permission."""
    for rule, other in ((a, b), (b, a)):
        denied, allowed = _words(rule.negated), _words(other.asserted)
        if denied and not rule.asserted and not other.negated and denied & allowed:
            extra = {v for v in allowed - denied if v not in PERMISSION}
            if extra:
                return True
    return False


def _grants_denied(rule: Claim, other: Claim) -> bool:
    """A whole-subject denial against a statement that only permits its subject."""
    granted = _words(other.asserted)
    return WHOLE in rule.negated and not rule.asserted and bool(granted) and granted <= PERMISSION


def asserts_any(claim: Claim, values: frozenset[tuple[str, str]]) -> bool:
    """Does the claim assert one of these (typed) values? How a correction finds what it replaces:
    every memory that asserts the X of "moved from X to Y" or "not X any more"."""
    return bool({v for v in claim.asserted if v[0] != "word"} & values)
