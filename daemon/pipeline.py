"""The daemon's pure ingest pipeline: one transcript line in, candidate drafts out.

parse (host format → turns) → filter (drop wrappers, strip injections) → redact (secrets) →
extract (rules → drafts with scope and evidence). Nothing here writes anywhere; the watcher and
admission build on `FilePipeline` and persist `FilePipeline.state` in the file checkpoint.
"""

from __future__ import annotations

import getpass
import logging
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memvet.daemon.extraction import adoption
from memvet.daemon.extraction.extract import Extracted, Extractor
from memvet.daemon.extraction.kind_cues import with_kind_cues
from memvet.daemon.extraction.learned import LearnedExtractor
from memvet.daemon.extraction.rules import Rules, load_rules
from memvet.daemon.extraction.scope_cues import overridden_by_cues
from memvet.daemon.hosts import HOSTS, SessionState, Turn, parser_for
from memvet.daemon.hosts.turns import ERROR_REASONS
from memvet.daemon.workspace import resolve_workspace
from memvet.store.errors import MemvetError, NotFoundError, UsageError
from memvet.store.records import EXCERPT_LIMIT, CandidateDraft, Evidence, Scope
from memvet.store.redaction import redact
from memvet.store.vocabulary import SourceType

log = logging.getLogger(__name__)

__all__ = ["HOSTS", "FilePipeline", "PipelineStats", "extract_paths", "load_rules"]


@dataclass
class PipelineStats:
    lines: int = 0
    skipped_lines: int = 0  # lines that could not be read or had an unknown type
    turns: int = 0  # user prompts plus assistant messages (grouped by message id)
    candidates: int = 0
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    host_version: str | None = None

    @property
    def errors(self) -> int:
        """Lines that could not be read at all (malformed JSON, bad UTF-8, too long, wrong shape)."""
        return sum(n for reason, n in self.skipped_by_reason.items() if reason in ERROR_REASONS)

    def count(self, reason: str) -> None:
        self.skipped_by_reason[reason] = self.skipped_by_reason.get(reason, 0) + 1


_SKIPPED_LINES = ERROR_REASONS | {"unknown_type"}  # reasons that count as a skipped line


class FilePipeline:
    """Feeds one transcript file's lines, in order, through the whole pipeline."""

    def __init__(
        self,
        host: str,
        path: str,
        *,
        rules: Rules,
        user: str,
        state: dict | None = None,
        scorer: Any = None,
    ) -> None:
        """`scorer`: the learned scorer to decide with (default: the packaged one; the daemon
        passes the one adapted to this user's reviewer decisions)."""
        if host not in HOSTS:
            raise UsageError(f"unknown host {host!r}; expected one of {', '.join(HOSTS)}")
        self.host, self.path, self.rules, self.user = host, path, rules, user
        self._session = SessionState.from_dict(state)
        self._workspace = state.get("workspace") if isinstance(state, dict) else None
        self._parser = parser_for(
            host, path, self._session, want_assistant=rules.policy.assistant_inference
        )
        self._parse = self._parser.parse
        self._extractor = Extractor(rules)
        self._learned = (
            LearnedExtractor(self._extractor, scorer) if rules.policy.learned_scorer else None
        )
        self._stats = PipelineStats(host_version=self._session.host_version)

    @property
    def stats(self) -> PipelineStats:
        self._stats.host_version = self._session.host_version  # read when asked: it may be deferred
        return self._stats

    @property
    def state(self) -> dict[str, Any]:
        """Small JSON-serialisable parser state to keep in the file checkpoint (of the last
        assistant message only its redacted proposal sentence, if it has one)."""
        self._parser.previous.reduced(_proposal_of)
        self._session.proposal = self._parser.previous.to_state()
        return {**self._session.to_dict(), "workspace": self._workspace_for(self._session.cwd)}

    def feed(self, line: bytes, line_no: int) -> list[CandidateDraft]:
        """One complete line (no trailing newline). Never raises on bad input."""
        stats = self._stats
        stats.lines += 1
        try:
            turns, reason = self._parse(line, line_no)
            if reason is not None:
                by_reason = stats.skipped_by_reason
                by_reason[reason] = by_reason.get(reason, 0) + 1
                if reason in _SKIPPED_LINES:
                    stats.skipped_lines += 1
            if not turns:
                return []
            drafts = self._from_turns(turns)
        except Exception as exc:  # a transcript must never stop the daemon
            log.warning(
                "line %d of a %s transcript skipped: %s", line_no, self.host, type(exc).__name__
            )
            stats.count("internal_error")
            stats.skipped_lines += 1
            return []
        stats.candidates += len(drafts)
        return drafts

    def _from_turns(self, turns: tuple[Turn, ...]) -> list[CandidateDraft]:
        drafts: list[CandidateDraft] = []
        policy = self.rules.policy
        for turn in turns:
            self._stats.turns += 1
            if turn.role == "user":
                drafts.extend(self._drafts(turn, SourceType.EXPLICIT_USER, 1.0))
            elif turn.text and policy.assistant_inference:
                drafts.extend(
                    self._drafts(
                        turn, SourceType.MODEL_INFERENCE, policy.assistant_confidence_factor
                    )
                )
        return drafts

    def _drafts(self, turn: Turn, source_type: str, factor: float) -> list[CandidateDraft]:
        text = turn.text
        if len(text) > self.rules.policy.max_turn_chars:  # a pasted file: its head is enough
            self._stats.count("turn_truncated")
            text = text[: self.rules.policy.max_turn_chars]
        filtered = self.rules.filters.apply(text, self.host)
        if filtered.dropped_by or filtered.emptied_by:
            self._stats.count(f"filter:{filtered.dropped_by or filtered.emptied_by}")
            return []
        redacted = redact(filtered.text).text  # before anything leaves: statement, excerpt, hints
        found = self._extractor.extract(redacted)
        proposal = None
        if source_type == SourceType.EXPLICIT_USER and adoption.may_adopt(redacted):
            found, proposal = self._adoption(redacted, found)
        if (
            self._learned is not None and source_type == SourceType.EXPLICIT_USER
        ):  # rules propose, the scorer decides
            found = self._learned.decide(
                redacted, found, previous_assistant=proposal[1] if proposal else "", host=self.host
            )
            if found:
                found = overridden_by_cues(found, self._extractor.sentences(redacted))
        if not found:
            self._stats.count("no_candidate")
            return []
        found = with_kind_cues(found, self.rules.kind_cues)  # whoever proposed it: kind_cues.py
        scope_workspace = self._workspace_for(self._session.cwd)
        stamp = _parse_time(turn.timestamp)
        drafts = []
        for item in found:
            confidence = round(item.confidence * factor, 3)
            if proposal is not None:  # the wording is the model's: below the user's own words
                confidence = min(confidence, adoption.ADOPTED_CONFIDENCE)
            if (
                source_type == SourceType.MODEL_INFERENCE
                and confidence < self.rules.policy.min_confidence
            ):
                continue
            scope = Scope(
                user=self.user,
                workspace=None if item.user_global else scope_workspace,
                agent=self.host,
                session=self._session.session_id,
            )
            quoted = (
                adoption.evidence_excerpt(proposal, redacted, EXCERPT_LIMIT)
                if proposal is not None
                else excerpt(redacted, item.statement)
            )  # an adoption quotes both lines
            evidence = Evidence(
                path=self.path,
                line=turn.line,
                message_id=turn.message_id,
                timestamp=stamp,
                excerpt=quoted,
                session=self._session.session_id,
            )
            drafts.append(
                CandidateDraft(
                    statement=item.statement,
                    kind=item.kind,
                    source_type=source_type,
                    scope=scope,
                    host=self.host,
                    confidence=confidence,
                    reasons=_reasons(item, source_type),
                    evidence=evidence,
                    polarity=item.polarity,
                    supersedes_hint=item.supersedes_hint,
                )
            )
        return drafts

    def _adoption(
        self, reply: str, found: list[Extracted]
    ) -> tuple[list[Extracted], tuple[int, str] | None]:
        """The reply keeps the assistant's proposal as a standing rule: the candidate is the
        proposal (marked adopted), unless the reply said a rule of its own."""
        if not adoption.adopts(reply) or adoption.states_own_rule([f.statement for f in found]):
            return found, None
        previous = self._parser.previous
        sentence = previous.reduced(_proposal_of)
        if sentence is None:
            return found, None
        kept = adoption.adopted(reply, sentence, self._extractor.classify)
        if kept is None:
            return found, None
        self._stats.count("adopted")
        return [kept], (previous.line, sentence)

    def _workspace_for(self, cwd: str | None) -> str | None:
        if cwd:
            self._workspace = resolve_workspace(cwd)
        return self._workspace


def _proposal_of(message: str) -> str | None:
    """What an assistant message is kept as: its proposal sentence, redacted, or nothing."""
    return adoption.proposal_sentence(redact(message[-adoption.TAIL_CHARS :]).text)


def _reasons(item: Extracted, source_type: str) -> tuple[str, ...]:
    return (
        item.reasons
        if source_type == SourceType.EXPLICIT_USER
        else ("assistant_text", *item.reasons)
    )


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def excerpt(text: str, statement: str, limit: int = EXCERPT_LIMIT) -> str:
    """A window of the (redacted) prompt around the statement, at most `limit` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    anchor = flat.find(statement[:60])
    if anchor < 0:
        return statement if len(statement) <= limit else statement[: limit - 1] + "…"
    start = max(0, min(anchor - (limit - len(statement)) // 2, len(flat) - limit))
    window = flat[start : start + limit]
    if start > 0:
        window = "…" + window[1:]
    if start + limit < len(flat):
        window = window[:-1] + "…"
    return window


def extract_paths(
    host: str, paths: list[str], *, user: str | None = None
) -> tuple[list[CandidateDraft], dict]:
    """The dry run behind `memvet extract`: every line of every file through the pipeline.
    Writes nothing anywhere. The dict is the `stats` object of interfaces.md."""
    if host not in HOSTS:
        raise UsageError(f"unknown host {host!r}; expected one of {', '.join(HOSTS)}")
    for path in paths:
        _check_readable(path)
    rules = load_rules()
    user = user or getpass.getuser()
    drafts: list[CandidateDraft] = []
    totals: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    versions: list[str] = []
    for path in paths:
        pipeline = FilePipeline(host, path, rules=rules, user=user)
        try:
            with open(path, "rb") as handle:
                for line_no, raw in enumerate(handle, start=1):
                    drafts.extend(pipeline.feed(raw.rstrip(b"\r\n"), line_no))
        except OSError as exc:
            raise MemvetError(
                f"cannot read {path}: {exc.strerror or exc}", code="unreadable", path=path
            ) from None
        stats = pipeline.stats
        totals.update(
            lines=stats.lines,
            skipped_lines=stats.skipped_lines,
            turns=stats.turns,
            candidates=stats.candidates,
            errors=stats.errors,
        )
        reasons.update(stats.skipped_by_reason)
        if stats.host_version and stats.host_version not in versions:
            versions.append(stats.host_version)
    summary = {
        "files": len(paths),
        "lines": totals["lines"],
        "skipped_lines": totals["skipped_lines"],
        "turns": totals["turns"],
        "candidates": totals["candidates"],
        "errors": totals["errors"],
        "host_versions": versions,
        "skipped_by_reason": dict(sorted(reasons.items())),
    }
    return drafts, summary


def _check_readable(path: str) -> None:
    import os

    if not os.path.exists(path):
        raise NotFoundError(f"no such file: {path}", path=path)
    if os.path.isdir(path):
        raise MemvetError(f"not a file: {path}", code="unreadable", path=path)
    if not os.access(path, os.R_OK):
        raise MemvetError(f"cannot read {path}: permission denied", code="unreadable", path=path)
