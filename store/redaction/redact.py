"""Secret redaction for everything the pipeline keeps (statements, excerpts, hints).

`redact(text)` replaces credentials with markers such as `[REDACTED:aws-access-key]` and says how
many it replaced and of which kinds. It runs on every user statement, so every pattern is
compiled once at import, one cheap prefilter lets ordinary prose through untouched, each
detector is gated on literal substrings of the lower-cased text before its own regex runs (every
gate asked in one pass, gates.py), token shapes are searched only inside runs of 16+ token
characters, and keyword-led patterns are tried only where their keyword occurs.

First the pinned gitleaks provider rules (rule_engine), then memvet's own detectors, most
specific first (each masks only what the earlier ones left), then, as a net under both, the
Nosey Parker / Kingfisher rules and gitleaks' generic rule (rule_engine.runs_late):
1. shapes (patterns): private-key blocks, provider tokens with a known prefix and length,
   JWTs whose header decodes to JSON with "alg", password hashes, webhook URLs;
2. context (context): credentials in URLs, auth headers, -u/-p flags, prose;
3. assignments (assignments): `name = value` where the name says secret, comparisons
   against secret-named variables, (user, password) constructor calls, k8s Secret data, config
   lines; then a secret word followed closely by a generated-looking token;
4. the other half of an AWS key pair; long random tokens on their own.
Placeholders (`xxxx`, `<token>`, `${VAR}`, `get_pass()`, EXAMPLE keys, `abcdef123456`, self-
describing words such as `insert_key_here`), hashes and UUIDs in ordinary contexts, URLs without
credentials, paths and identifiers are left alone (values).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction.assignments import (
    assignments,
    config_lines,
    credential_calls,
    k8s_secret_data,
    reversed_comparisons,
)
from memvet.store.redaction.context import CONTEXT_DETECTORS, nearby
from memvet.store.redaction.gates import GateIndex
from memvet.store.redaction.patterns import LONG_CANDIDATE, SHAPE_DETECTORS, Detector
from memvet.store.redaction.random_tokens import LONG_RUN, aws_secret_pairs, long_tokens
from memvet.store.redaction.rule_engine import rule_findings, ruleset
from memvet.store.redaction.values import MARKER, MARKER_PREFIX, MARKER_REGEX

_MARKER = LazyPattern(MARKER_REGEX.lower())  # a marker in lower-cased text
_GATES = GateIndex((*SHAPE_DETECTORS, *CONTEXT_DETECTORS))  # memvet's own, in order


@dataclass(frozen=True)
class RedactionResult:
    text: str
    count: int
    kinds: tuple[str, ...]  # distinct kinds, in order of first appearance

    @property
    def changed(self) -> bool:
        return self.count > 0


# Nothing to look at: no secret word, no key-block header, no flag, no URL, no long token.
# Matched on the lower-cased text; literal alternatives only, so the engine skips ahead by first
# character. "pass" only as password/passwd/passphrase/passcode or on its own, not "passed".
_PREFILTER = LazyPattern(
    r"pass(?:w|ph|c|\b|_)|pwd|pw\b|secret|token|key|auth|cred|bearer|login|begin|"
    r"\s-[up]|--user|://|@|\$\w+\$|==|!="
)
# A token cut short or masked right after the match (`xoxp-…-####`, `ops_eyJ…`): not usable.
_TRUNCATED = LazyPattern(r"\.\.|…|\*\*|##|(?i:xx)")
# Where these words start. Non-overlapping is enough: a word inside another (pw in pwd, pass in
# password) starts at the same place, and glued names (authtoken, passkey) are matched piece by piece.
_SECRET_WORDS = LazyPattern(
    r"pwd?|secret|token|cred|key|sas|pat|auth|bearer|login|access|private|license|pass"
)
_ASSIGNMENT_WORDS = LazyPattern(r"pwd?|secret|token|cred|key|sas|pat|auth|bearer|login|pass")


def _matches(detector: Detector, text: str, lowered: str, runs: list[tuple[int, int]] | None):
    if detector.anchored:  # the pattern starts with a needle: try it where the gate found one
        end = -1
        for hit in detector.gate.finditer(lowered):
            if (
                hit.start() >= end
                and (match := detector.pattern.match(text, hit.start())) is not None
            ):
                end = match.end()
                yield match
    elif runs is None:
        yield from detector.pattern.finditer(text)
    else:  # a token lies inside one run of token characters: search only those
        for start, end in runs:
            yield from detector.pattern.finditer(text, start, end)


def _detector_spans(
    detector: Detector, text: str, lowered: str, runs: list[tuple[int, int]] | None
) -> list[tuple[int, int]]:
    spans = []
    for match in _matches(detector, text, lowered, runs):
        group = next((g for g in detector.groups if match.group(g) is not None), None)
        if group is None:
            continue
        value = match.group(group)
        if value.startswith(MARKER_PREFIX) or _TRUNCATED.match(text, match.end(group)):
            continue
        if detector.check is None or detector.check(value):
            spans.append(match.span(group))
    return spans


def _word_starts(lowered: str, words: LazyPattern) -> list[int]:
    """Where a secret word starts, outside our own markers ("[redacted:aws-access-key]" names one)."""
    found = {m.start() for m in words.finditer(lowered)}
    if MARKER_PREFIX.lower() in lowered:
        inside = {i for m in _MARKER.finditer(lowered) for i in range(*m.span())}
        found -= inside
    return sorted(found)


def _outside_markers(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans that cut into no earlier marker: `-u [REDACTED:basic-auth]` reads as a
    `user:password` to a later detector, which would mask the marker's tail."""
    markers = [m.span() for m in _MARKER.finditer(text.lower())]
    return [(s, e) for s, e in spans if not any(ms < e and s < me for ms, me in markers)]


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        elif start < end:
            merged.append((start, end))
    return merged


def _replace_spans(text: str, spans: list[tuple[int, int]], kind: str) -> str:
    marker, out, last = MARKER.format(kind), [], 0
    for start, end in spans:
        out.append(text[last:start])
        out.append(marker)
        last = end
    out.append(text[last:])
    return "".join(out)


Finder = Callable[[str, str], list[tuple[int, int]]]  # (text, lower-cased text) -> spans


def _plain(find: Callable[[str], list[tuple[int, int]]]) -> Finder:
    return lambda text, _lowered: find(text)


def _context_finders(lowered: str) -> list[tuple[str, Finder]]:
    """The context finders worth running on this text, in order, each with its marker kind."""
    finders: list[tuple[str, Finder]] = []
    if "==" in lowered or "!=" in lowered:
        finders.append(("secret-assignment", _plain(reversed_comparisons)))
    if "(" in lowered and any(
        w in lowered
        for w in ("credential", "directoryentry", "basicauth", "login", "authenticate", "auth")
    ):
        finders.append(("secret-assignment", _plain(credential_calls)))
    if "kind:" in lowered and "secret" in lowered:
        finders.append(("secret-assignment", _plain(k8s_secret_data)))
    if any(w in lowered for w in ("pass", "pwd", "secret", "token", "key")):
        finders.append(("secret-assignment", _plain(config_lines)))
    finders.append(
        ("secret-assignment", lambda t, low: assignments(t, _word_starts(low, _ASSIGNMENT_WORDS)))
    )
    finders.append(
        ("secret-near-keyword", lambda t, low: nearby(t, _word_starts(low, _SECRET_WORDS)))
    )
    if "aws-access-key" in lowered:
        finders.append(("aws-secret-key", _plain(aws_secret_pairs)))
    return finders


def _merge_findings(
    findings: list[tuple[str, tuple[int, int]]],
) -> list[tuple[str, tuple[int, int]]]:
    """Overlapping findings of several rules become one span, named by the one that starts first."""
    merged: list[tuple[str, tuple[int, int]]] = []
    for kind, (start, end) in sorted(findings, key=lambda f: (f[1][0], -f[1][1])):
        if merged and start < merged[-1][1][1]:
            last_kind, (last_start, last_end) = merged[-1]
            merged[-1] = (last_kind, (last_start, max(end, last_end)))
        elif start < end:
            merged.append((kind, (start, end)))
    return merged


def _replace_findings(text: str, findings: list[tuple[str, tuple[int, int]]]) -> str:
    out, last = [], 0
    for kind, (start, end) in findings:
        out.append(text[last:start])
        out.append(MARKER.format(kind))
        last = end
    out.append(text[last:])
    return "".join(out)


def redact(text: str) -> RedactionResult:
    """Replace every credential found in `text` with a `[REDACTED:<kind>]` marker."""
    return redact_layers(text)


def redact_layers(
    text: str, *, rules: bool | frozenset[str] = True, own: bool = True
) -> RedactionResult:
    """`redact` with layers left out (the benchmark measures each): `rules`, the maintained rule
    sets (rule_engine; a set of RULE_FILES names: only those); `own`, memvet's detectors (shapes,
    context, assignments, prose)."""
    if not text:
        return RedactionResult(text, 0, ())
    lowered = text.lower()
    count = 0
    kinds: list[str] = []
    origins = rules if isinstance(rules, frozenset) else None
    # once: markers added later wake nothing new
    woken = ruleset().woken(lowered, origins=origins) if rules else []
    if woken and (findings := _merge_findings(rule_findings(text, woken, late=False))):
        text = _replace_findings(text, findings)
        lowered = text.lower()
        count = len(findings)
        kinds.extend(dict.fromkeys(kind for kind, _span in findings))
    if own and (_PREFILTER.search(lowered) or LONG_CANDIDATE.search(text)):
        text, more = _own_layer(text, lowered, kinds)
        lowered, count = text.lower(), count + more
    if woken and (findings := _merge_findings(rule_findings(text, woken, late=True))):
        text = _replace_findings(text, findings)
        count += len(findings)
        kinds.extend(kind for kind, _span in findings if kind not in kinds)
    kinds.sort(key=lambda kind: text.find(MARKER.format(kind)))  # in order of first appearance
    return RedactionResult(text, count, tuple(kinds))


def _own_layer(text: str, lowered: str, kinds: list[str]) -> tuple[str, int]:
    """memvet's own detectors, most specific first; returns the text and how many it masked."""
    count = 0

    def apply(kind: str, spans: list[tuple[int, int]]) -> None:
        nonlocal text, lowered, count
        spans = _merge(spans)
        if spans and MARKER_PREFIX in text:
            spans = _outside_markers(text, spans)
        if not spans:
            return
        text = _replace_spans(text, spans, kind)
        lowered = text.lower()
        count += len(spans)
        if kind not in kinds:
            kinds.append(kind)

    runs = [m.span() for m in LONG_CANDIDATE.finditer(text)]  # where a token could be
    gates = _GATES.open(lowered)  # every detector's gate_open, in one pass
    for index, detector in enumerate(_GATES.detectors):
        if detector.long_token and not runs:
            continue
        if gates >> index & 1:
            before = count
            apply(
                detector.kind,
                _detector_spans(detector, text, lowered, runs if detector.long_token else None),
            )
            if count != before:  # the text moved: find the runs and the open gates again
                runs = [m.span() for m in LONG_CANDIDATE.finditer(text)]
                gates = _GATES.open(lowered)
    for kind, finder in _context_finders(lowered):
        apply(kind, finder(text, lowered))
    if LONG_RUN.search(text):
        apply("high-entropy-token", long_tokens(text))
    return text, count
