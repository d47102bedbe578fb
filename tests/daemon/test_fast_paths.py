"""The ingest fast paths give exactly what the slow paths give.

- Host parsers read most lines from their bytes (`_from_bytes`): every line must parse to the
  same result, and leave the same state, as when it is decoded, whatever the key order or
  spacing of the JSON.
- The rule prefilter skips a regex only when it cannot match.
- Chunked `read_lines`, masking without backticks and candidate-position sentence splitting
  reproduce the straightforward versions.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from memvet.daemon import tailer
from memvet.daemon.extraction import extract, filters, sentence_split
from memvet.daemon.extraction.prefilter import prefilter_for
from memvet.daemon.hosts import SessionState, parser_for
from memvet.daemon.pipeline import load_rules

from .conftest import DATA, corpus_sentences

RULES = load_rules()


def _variants(line: bytes, rng: random.Random) -> list[bytes]:
    """The line as written, compact, spaced (json.dumps) and with its top-level keys shuffled."""
    try:
        record = json.loads(line)
    except ValueError:
        return [line]
    if not isinstance(record, dict):
        return [line]
    keys = list(record)
    rng.shuffle(keys)
    shuffled = {k: record[k] for k in keys}
    return [
        line,
        json.dumps(record, separators=(",", ":")).encode(),
        json.dumps(record).encode(),
        json.dumps(shuffled).encode(),
        json.dumps(record, ensure_ascii=False).encode(),
    ]


def _lines(transcripts: Path | None) -> dict[str, list[bytes]]:
    files = [DATA / "labelled_claude.jsonl", DATA / "labelled_codex.jsonl"]
    if transcripts is not None:
        files += sorted(transcripts.rglob("*.jsonl"))
    return {str(f): f.read_bytes().splitlines() for f in files}


def _same_as_decoded(
    host: str, path: str, lines: list[bytes], *, want_assistant: bool = False
) -> None:
    fast_state, slow_state = SessionState(), SessionState()
    fast = parser_for(host, path, fast_state, want_assistant=want_assistant)
    slow = parser_for(host, path, slow_state, want_assistant=want_assistant)
    slow._from_bytes = lambda line, line_no: None  # always decode
    for n, line in enumerate(lines, start=1):
        assert fast.parse(line, n) == slow.parse(line, n), (path, n, line[:200])
        assert fast_state.to_dict() == slow_state.to_dict(), (path, n, line[:200])


@pytest.mark.parametrize("want_assistant", [False, True])
def test_bytes_and_decoding_agree_on_every_line(shared_dir: Path, want_assistant: bool) -> None:
    folder = shared_dir / "fixtures" / "transcripts"
    rng = random.Random(7)
    for path, lines in _lines(folder if folder.is_dir() else None).items():
        host = "codex" if "codex" in path else "claude-code"
        for variant in range(5):  # each variant of every line, as one file
            file_lines = [
                v[min(variant, len(v) - 1)] for v in (_variants(line, rng) for line in lines)
            ]
            _same_as_decoded(host, path, file_lines, want_assistant=want_assistant)


def test_deferred_session_fields_resolve_as_if_noted_line_by_line() -> None:
    def line(kind: str, **fields: object) -> bytes:
        return json.dumps(
            {
                "type": kind,
                "message": {"id": f"msg_{fields.pop('n', 0)}", "role": "x", "content": []},
                **fields,
            }
        ).encode()

    lines = [
        line("assistant", n=1, sessionId="s1", cwd="/a", version="1"),
        line("assistant", n=2, cwd="/b", version="2"),
        line("progress", sessionId="s2"),  # no cwd, no version: the earlier ones stand
        line("assistant", n=3, cwd="", version="3"),
    ]  # an empty cwd does not replace one
    _same_as_decoded("claude-code", "/p/s.jsonl", lines)
    state = SessionState()
    parser = parser_for("claude-code", "/p/s.jsonl", state)
    for n, raw in enumerate(lines, start=1):
        parser.parse(raw, n)
    assert (state.session_id, state.cwd, state.host_version) == ("s1", "/b", "3")


def test_the_prefilter_never_skips_a_rule_that_matches() -> None:
    sentences = corpus_sentences(RULES)
    sentences |= {s.upper() for s in list(sentences)[:300]} | {
        s.replace("i", "\u0130") for s in list(sentences)[:300]
    }
    prefilter = prefilter_for(RULES)
    rules = (
        *RULES.reject,
        *RULES.durable,
        *RULES.kinds,
        *RULES.correction,
        *RULES.scope,
        *RULES.polarity,
    )
    for sentence in sentences:
        allowed = prefilter.candidates(sentence, sentence.lower())
        for rule in rules:
            if rule.search(sentence, sentence.lower()):
                assert allowed & prefilter.bits[id(rule)], (rule.name, sentence)


def _reference_lines(
    handle: io.BytesIO, offset: int, max_line_bytes: int
) -> list[tuple[bytes | None, int]]:
    handle.seek(offset)
    out: list[tuple[bytes | None, int]] = []
    while raw := handle.readline(max_line_bytes + 1):
        if raw[-1:] == b"\n":
            offset += len(raw)
            out.append((raw[:-1], offset))
            continue
        if len(raw) <= max_line_bytes:
            break  # a partial last line
        while (more := handle.readline(7)) and more[-1:] != b"\n":
            raw += more
        if not more:
            break
        offset += len(raw) + len(more)
        out.append((None, offset))
    return out


def test_chunked_read_lines_matches_reading_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(3)
    for _ in range(400):
        data = b"".join(
            b"x" * rng.choice([0, 1, 50, 100, 101, 700]) + (b"\n" if rng.random() < 0.85 else b"")
            for _ in range(rng.randint(0, 10))
        )
        for buffer in (3, 64, 1 << 20):
            monkeypatch.setattr(tailer, "READ_BUFFER", buffer)
            monkeypatch.setattr(tailer, "SKIP_CHUNK", max(2, buffer // 2))
            assert list(tailer.read_lines(io.BytesIO(data), 0, 100)) == _reference_lines(
                io.BytesIO(data), 0, 100
            )


def test_masking_and_sentence_boundaries_match_the_plain_regexes() -> None:
    rng = random.Random(5)
    skip_line = extract.Extractor(RULES)._skip_line
    pieces = [
        "we ",
        "dont ",
        "never ",
        "the ",
        "is ",
        "has to ",
        "Y",
        ". ",
        "! ",
        "; ",
        ", ",
        " — ",
        "/usr/x",
        "`c`",
        "http://h",
        "~/p",
        "a.b",
        "\t",
        "(",
        ")",
        "\ue000",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        slots: list[str] = []

        def keep(match, slots=slots):  # noqa: ANN001
            slots.append(match.group(0))
            return f"\ue000{len(slots) - 1}\ue001"

        assert filters.mask_protected(text) == (filters._PROTECTED.sub(keep, text), slots)
        line = text.replace("we ", "    ").replace("; ", "$ ").replace(", ", ": ")
        assert skip_line(line) == any(r.pattern.search(line) for r in RULES.skip_line), line
        assert [m.span() for m in sentence_split._boundaries(text)] == [
            m.span() for m in sentence_split._SENTENCE_END.finditer(text)
        ]


def _normalise_as_written(sentence: str) -> str:
    """sentence_split.normalise before the prefix checks that skip its substitutions."""
    text = " ".join(sentence.split()).strip(" -—–")
    if text.startswith("(") and text.count("(") > text.count(")"):
        text = text[1:]
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    text = sentence_split._PLEASE.sub("", sentence_split._OPENER.sub("", text)).strip(" -—–")
    text = sentence_split._PLEASE.sub("", text)
    return (text[0].upper() + text[1:] if text[0].islower() else text) if text else ""


def test_normalise_skips_only_substitutions_that_cannot_apply() -> None:
    rng = random.Random(4)
    words = [
        "please ",
        "Please, ",
        "PLEASE ",
        "ple\u017fe ",
        "also ",
        "ok, ",
        "now ",
        "we ",
        "use ",
        " - ",
        "—",
        "(",
        ")",
        "tabs",
        "\u0130",
        "yes ",
        "by the way ",
        "wait ",
    ]
    for _ in range(5000):
        sentence = "".join(rng.choice(words) for _ in range(rng.randint(0, 7)))
        assert sentence_split.normalise(sentence) == _normalise_as_written(sentence), sentence
