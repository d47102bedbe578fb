"""The maintained rule sets, pinned under `memvet/assets/secret_rules/` and loaded as data:
gitleaks' rules (MIT), matched as gitleaks matches them, and Nosey Parker's and Kingfisher's
(Apache-2.0), whose findings are every capture group of a match (as Nosey Parker reports them).

Per rule, as gitleaks does: a keyword prefilter (a lower-cased substring must be in the lower-
cased text), the regex, the secret (the rule's secret group, else the first non-empty group, else
the match), the rule's entropy floor, the global allowlist and the rule's own allowlists (regexes
on the secret, the match or the line; stop words in the secret). On top, memvet's policy
(docs/threat-model.md): a documentation placeholder is not a secret (`is_placeholder`).

Nothing happens at import. The JSON is read on the first call; each rule's regex is compiled the
first time one of its keywords is seen, so `memvet extract` on one file pays only for the rules
its text can wake up. Regexes are the translations that tests/tools/refresh_secret_rules.py and refresh_np_kf_rules.py
wrote (Go RE2 / Rust regex → Python `re`, checked against RE2 by tests/store/test_secret_rules.py);
the Nosey Parker / Kingfisher keywords are strings every match contains, read from each pattern.
"""

from __future__ import annotations

import json
import os
import re

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.rule_policy import (
    POLICY_CHECKS,
    accept_any,
    is_generic,
    named_not_secret,
    np_kf_value_ok,
    password_is_placeholder,
    policy_excluded,
)
from memvet.store.redaction.values import (
    MARKER_PREFIX,
    MARKER_REGEX,
    PUBLIC_NAME_BEFORE,
    entropy,
    is_placeholder,
)

Span = tuple[int, int]
RULE_FILES = {"gitleaks": "secret_rules/gitleaks.json", "np_kf": "secret_rules/np_kf.json"}
MARKER_SPAN = LazyPattern(MARKER_REGEX)
_LEAD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


class Rule:
    """One rule of a pinned set (`origin`: its RULE_FILES name); its regexes compile on first use."""

    __slots__ = (
        "id",
        "kind",
        "source",
        "origin",
        "keywords",
        "floor",
        "group",
        "every_group",
        "lead",
        "allowlists",
        "_pattern",
    )

    def __init__(self, spec: dict, origin: str) -> None:
        self.id, self.kind, self.source, self.origin = (
            spec["id"],
            spec["kind"],
            spec["regex"],
            origin,
        )
        self.every_group: bool = spec.get("every_group", False)
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

    def secret_spans(self, match: re.Match[str]) -> list[Span]:
        if self.every_group:
            found = [match.span(i) for i in range(1, (match.re.groups or 0) + 1) if match.group(i)]
            return found or [match.span()]
        return [self.secret_span(match)]

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
    """Every pinned set's rules in one keyword index (`documents`: RULE_FILES name → its JSON)."""

    def __init__(self, documents: dict[str, dict]) -> None:
        self.commits = {name: document["commit"] for name, document in documents.items()}
        self.sha256 = {name: document["sha256"] for name, document in documents.items()}
        self.rules = [
            Rule(spec, name)
            for name, document in documents.items()
            for spec in document["rules"]
            if not policy_excluded(spec)
        ]
        self.excluded = [
            spec["id"]
            for doc in documents.values()
            for spec in doc["rules"]
            if policy_excluded(spec)
        ]
        self.dropped = {name: document["dropped"] for name, document in documents.items()}
        self.global_allowlist = Allowlist(  # gitleaks' own: placeholders and stop words, for all
            {"condition": "OR", "target": "secret", **documents["gitleaks"]["global_allowlist"]}
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
        self._woken: dict[tuple[frozenset[str], frozenset[str] | None], list[Rule]] = {}

    def keywords_in(self, lowered: str) -> set[str]:
        """The keywords that occur in the lower-cased text. An Aho-Corasick automaton when
        pyahocorasick is installed (one pass; several times faster than one `in` per keyword on the
        benchmark's texts, secrets.json: keyword_engines), else one `in` per keyword: same answer."""
        if self.automaton is not None:
            return {keyword for _end, keyword in self.automaton.iter(lowered)}
        return {keyword for keyword in self.keywords if keyword in lowered}

    def woken(
        self, lowered: str, keywords: set[str] | None = None, origins: frozenset[str] | None = None
    ) -> list[Rule]:
        """The rules one of whose keywords is in the lower-cased text, in rule-file order
        (`origins`: only the rules of these sets, for the benchmark's per-layer figures).
        Remembered per set of keywords found (most texts wake none or the same few): the list
        returned is shared, never mutate it."""
        key = (frozenset(self.keywords_in(lowered) if keywords is None else keywords), origins)
        rules = self._woken.get(key)
        if rules is None:
            found = {id(rule): rule for rule in self.always}
            for keyword in key[0]:
                for rule in self.by_keyword[keyword]:
                    found[id(rule)] = rule
            rules = sorted(found.values(), key=lambda rule: self.order[id(rule)])
            if origins is not None:
                rules = [rule for rule in rules if rule.origin in origins]
            if len(self._woken) >= 4096:  # bounded: a long run of odd texts cannot grow it
                self._woken.clear()
            self._woken[key] = rules
        return rules


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


def ruleset() -> RuleSet:
    if not _LOADED:
        _LOADED.append(
            RuleSet({name: json.loads(_rules_text(f)) for name, f in RULE_FILES.items()})
        )
    return _LOADED[0]


def _rules_text(rules_file: str) -> str:
    """The packaged JSON; read by path (importlib.resources alone costs `memvet extract` ~20 ms of
    start-up), through importlib.resources only where the package is not a folder (a zip)."""
    import memvet.assets

    folder = getattr(memvet.assets, "__file__", None)
    if folder is not None:
        path = os.path.join(os.path.dirname(folder), rules_file)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                return handle.read()
    from importlib.resources import files

    return files("memvet.assets").joinpath(rules_file).read_text(encoding="utf-8")


def ruleset_version() -> str:
    """redaction_version.py's RULESET_VERSION (tests check it names the pinned copy loaded here)."""
    from memvet.store.redaction_version import RULESET_VERSION

    return RULESET_VERSION


def _line(text: str, start: int, end: int) -> str:
    return text[text.rfind("\n", 0, start) + 1 : (text.find("\n", end) + 1 or len(text) + 1) - 1]


def runs_late(rule: Rule) -> bool:
    """Run after memvet's own detectors, as a net under them (so what those name more precisely
    keeps that name): gitleaks' generic rule and every Nosey Parker / Kingfisher rule."""
    return rule.origin != "gitleaks" or is_generic(rule)


def rule_findings(text: str, woken: list[Rule], *, late: bool) -> list[tuple[str, Span]]:
    """(kind, span of the secret) for every finding of the woken rules (RuleSet.woken), as
    the rule's source reports them and memvet's policy keeps them. `late`: only the rules that
    run after memvet's own detectors (runs_late), else only the others."""
    markers = [m.span() for m in MARKER_SPAN.finditer(text)] if MARKER_PREFIX in text else []
    found = []
    for rule in woken:
        if runs_late(rule) != late:
            continue
        for match in rule.pattern.finditer(text):
            spans = rule.secret_spans(match)
            if rule.every_group and any(
                is_placeholder(text[s:e], lone_word_ok=True) for s, e in spans
            ):  # "-u admin -p %PASSWORD%": one part is a reference, no credential (a lone word,
                continue  # `username "user"`, is no reference: its password is still one)
            for start, end in spans:
                if markers and any(s < end and start < e for s, e in markers):  # redacted already
                    continue
                if _kept(rule, text, match, text[start:end], start):
                    found.append((rule.kind, (start, end)))
    return found


def _kept(rule: Rule, text: str, match: re.Match[str], secret: str, start: int) -> bool:
    """Whether the rule's entropy floor, its allowlists and memvet's policy keep this secret."""
    if not secret.strip() or (rule.floor and entropy(secret) <= rule.floor):
        return False
    match_text, line = rule.match_text(text, match), _line(text, match.start(), match.end())
    if ruleset().global_allowlist.allows(secret, match_text, line) or any(
        allow.allows(secret, match_text, line) for allow in rule.allowlists
    ):
        return False
    if is_placeholder(secret, lone_word_ok=True) or not POLICY_CHECKS.get(rule.kind, accept_any)(
        secret
    ):
        return False
    if password_is_placeholder(rule.kind, secret):  # `admin:REPLACE_ME`, `app:${DB_PASS}@db`
        return False
    if rule.origin != "gitleaks" and not np_kf_value_ok(rule, secret, text, match, start):
        return False
    if is_generic(rule) and named_not_secret(text, start, secret):  # key_sha256 = <hex>
        return False
    return not PUBLIC_NAME_BEFORE.search(text, max(0, start - 40), start)  # a client id: public
