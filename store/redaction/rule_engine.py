"""The maintained rule set: gitleaks' rules (MIT), pinned under `memvet/assets/secret_rules/` and
loaded as data, matched as gitleaks matches them.

Per rule, as gitleaks does: a keyword prefilter (a lower-cased substring must be in the lower-
cased text), the regex, the secret (the rule's secret group, else the first non-empty group, else
the match), the rule's entropy floor, the global allowlist and the rule's own allowlists (regexes
on the secret, the match or the line; stop words in the secret). On top, memvet's policy
(docs/threat-model.md): a documentation placeholder is not a secret (`is_placeholder`).

Nothing happens at import. The JSON is read on the first call; each rule's regex is compiled the
first time one of its keywords is seen, so `memvet extract` on one file pays only for the rules
its text can wake up. Regexes are the translations that tests/tools/refresh_secret_rules.py wrote
(Go RE2 → Python `re`, checked against RE2 itself by tests/store/test_secret_rules.py).
"""

from __future__ import annotations

import json
import os
import re

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.patterns import aws_key_id_ok, jwt_ok
from memvet.store.redaction.values import (
    MARKER_PREFIX,
    PUBLIC_NAME_BEFORE,
    entropy,
    is_placeholder,
)

Span = tuple[int, int]
RULES_FILE = "secret_rules/gitleaks.json"
MARKER_SPAN = LazyPattern(r"\[REDACTED:[a-z0-9\-]+\]")
_LEAD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


class Rule:
    """One gitleaks rule; its regexes are compiled on first use."""

    __slots__ = (
        "id",
        "kind",
        "source",
        "keywords",
        "floor",
        "group",
        "lead",
        "allowlists",
        "_pattern",
    )

    def __init__(self, spec: dict) -> None:
        self.id, self.kind, self.source = spec["id"], spec["kind"], spec["regex"]
        self.keywords: tuple[str, ...] = tuple(spec["keywords"])
        self.floor: float = spec["entropy"]
        self.group: int = spec["secret_group"]
        self.lead: int = spec["lead"]
        self.allowlists = [Allowlist(a) for a in spec["allowlists"]]
        self._pattern: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile(self.source, re.ASCII)  # Go's \w, \s, \b are ASCII
        return self._pattern

    def secret_span(self, match: re.Match[str]) -> Span:
        if self.group:
            return match.span(self.group)
        for index in range(1, (match.re.groups or 0) + 1):
            if match.group(index):
                return match.span(index)
        return match.span()

    def match_text(self, text: str, match: re.Match[str]) -> str:
        """The match as gitleaks sees it: stretched left over the identifier the refresh script
        cut off the front of the regex (`[\\w.-]{0,50}?`), trimmed of newlines."""
        start = match.start()
        floor = max(0, start - self.lead)
        while start > floor and text[start - 1] in _LEAD_CHARS:
            start -= 1
        return text[start : match.end()].strip("\n")


class Allowlist:
    __slots__ = ("condition_and", "target", "sources", "stopwords", "_pattern")

    def __init__(self, spec: dict) -> None:
        self.condition_and = spec["condition"] == "AND"
        self.target: str = spec["target"]
        self.sources: list[str] = spec["regexes"]
        self.stopwords: tuple[str, ...] = tuple(spec["stopwords"])
        self._pattern: re.Pattern[str] | None = None

    def allows(self, secret: str, match: str, line: str) -> bool:
        checks = []
        if self.sources:
            if self._pattern is None:
                self._pattern = re.compile("|".join(map(_scoped, self.sources)), re.ASCII)
            target = match if self.target == "match" else line if self.target == "line" else secret
            checks.append(self._pattern.search(target) is not None)
        if self.stopwords:
            lowered = secret.lower()
            checks.append(any(word in lowered for word in self.stopwords))
        return all(checks) if self.condition_and else any(checks)


_GLOBAL_FLAGS = LazyPattern(r"^\(\?([a-zA-Z]+)\)")


def _scoped(source: str) -> str:
    """One alternative of a joined pattern: a leading `(?i)` becomes `(?i:…)`, as it must there."""
    flags = _GLOBAL_FLAGS.match(source)
    return f"(?{flags.group(1)}:{source[flags.end() :]})" if flags else f"(?:{source})"


class RuleSet:
    def __init__(self, document: dict) -> None:
        self.commit: str = document["commit"]
        self.sha256: str = document["sha256"]
        self.rules = [
            Rule(spec) for spec in document["rules"] if not spec["id"].endswith(POLICY_EXCLUDED)
        ]
        self.excluded = [
            spec["id"] for spec in document["rules"] if spec["id"].endswith(POLICY_EXCLUDED)
        ]
        self.dropped: list[dict] = document["dropped"]
        self.global_allowlist = Allowlist(
            {"condition": "OR", "target": "secret", **document["global_allowlist"]}
        )
        self.by_keyword: dict[str, list[Rule]] = {}
        self.always: list[Rule] = []
        for rule in self.rules:
            for keyword in rule.keywords:
                self.by_keyword.setdefault(keyword, []).append(rule)
            if not rule.keywords:
                self.always.append(rule)
        self.keywords = tuple(self.by_keyword)
        self.order = {id(rule): index for index, rule in enumerate(self.rules)}
        self.automaton = _automaton(self.keywords)

    def keywords_in(self, lowered: str) -> set[str]:
        """The keywords that occur in the lower-cased text. An Aho-Corasick automaton when
        pyahocorasick is installed (one pass; several times faster than one `in` per keyword on the
        benchmark's texts, secrets.json: keyword_engines), else one `in` per keyword: same answer."""
        if self.automaton is not None:
            return {keyword for _end, keyword in self.automaton.iter(lowered)}
        return {keyword for keyword in self.keywords if keyword in lowered}

    def woken(self, lowered: str, keywords: set[str] | None = None) -> list[Rule]:
        """The rules one of whose keywords is in the lower-cased text, in rule-file order."""
        found = {id(rule): rule for rule in self.always}
        for keyword in self.keywords_in(lowered) if keywords is None else keywords:
            for rule in self.by_keyword[keyword]:
                found[id(rule)] = rule
        return sorted(found.values(), key=lambda rule: self.order[id(rule)])


def _automaton(keywords: tuple[str, ...]):  # noqa: ANN202 - ahocorasick.Automaton or None
    try:
        import ahocorasick
    except ImportError:
        return None
    automaton = ahocorasick.Automaton()
    for keyword in keywords:
        automaton.add_word(keyword, keyword)
    automaton.make_automaton()
    return automaton


_LOADED: list[RuleSet] = []

# Rules that name no provider: run after memvet's own detectors, as a net under them, so that a
# value those name more precisely ("secret-near-keyword", "openai-key") keeps that name.
GENERIC = frozenset({"generic-api-key"})
# Rules for what memvet's policy calls public identifiers (docs/threat-model.md): OAuth client
# ids are shipped in web pages and apps; their secrets are caught by the rules for those.
POLICY_EXCLUDED = ("-client-id",)
# memvet's policy where a rule is broader than the credential: a JWT's header is JSON naming its
# "alg" (every real one does; "eyJub3Qi…" spelling {"not": …} is not one); an AWS key id's body is
# random base-32, not typed (AKIAABCDEFGHIJKLMNOP).
POLICY_CHECKS = {"jwt": jwt_ok, "aws-access-token": aws_key_id_ok}


def _any(_secret: str) -> bool:
    return True


def ruleset() -> RuleSet:
    if not _LOADED:
        _LOADED.append(RuleSet(json.loads(_rules_text())))
    return _LOADED[0]


def _rules_text() -> str:
    """The packaged JSON; read by path (importlib.resources alone costs `memvet extract` ~20 ms of
    start-up), through importlib.resources only where the package is not a folder (a zip)."""
    import memvet.assets

    folder = getattr(memvet.assets, "__file__", None)
    if folder is not None:
        path = os.path.join(os.path.dirname(folder), RULES_FILE)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                return handle.read()
    from importlib.resources import files

    return files("memvet.assets").joinpath(RULES_FILE).read_text(encoding="utf-8")


def ruleset_version() -> str:
    """redaction_version.py's RULESET_VERSION (tests check it names the pinned copy loaded here)."""
    from memvet.store.redaction_version import RULESET_VERSION

    return RULESET_VERSION


def _line(text: str, start: int, end: int) -> str:
    return text[text.rfind("\n", 0, start) + 1 : (text.find("\n", end) + 1 or len(text) + 1) - 1]


def rule_findings(text: str, woken: list[Rule], *, generic: bool) -> list[tuple[str, Span]]:
    """(kind, span of the secret) for every finding of the woken rules (RuleSet.woken), as
    gitleaks reports them and memvet's policy keeps them. `generic`: only the generic rules
    (GENERIC), else all the others."""
    loaded = ruleset()
    markers = [m.span() for m in MARKER_SPAN.finditer(text)] if MARKER_PREFIX in text else []
    found = []
    for rule in woken:
        if (rule.id in GENERIC) != generic:
            continue
        for match in rule.pattern.finditer(text):
            start, end = rule.secret_span(match)
            secret = text[start:end]
            if not secret.strip() or (rule.floor and entropy(secret) <= rule.floor):
                continue
            if markers and any(s < end and start < e for s, e in markers):  # redacted already
                continue
            match_text, line = rule.match_text(text, match), _line(text, match.start(), match.end())
            if loaded.global_allowlist.allows(secret, match_text, line) or any(
                allow.allows(secret, match_text, line) for allow in rule.allowlists
            ):
                continue
            if is_placeholder(secret, lone_word_ok=True) or not POLICY_CHECKS.get(rule.id, _any)(
                secret
            ):
                continue
            if PUBLIC_NAME_BEFORE.search(text, max(0, start - 40), start):  # a client id: public
                continue
            found.append((rule.kind, (start, end)))
    return found
