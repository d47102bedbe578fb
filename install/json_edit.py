"""Minimal-change edits of a JSON document's text.

Host settings files are written by people (and by the hosts) in many layouts. Re-serialising
the whole file with `json.dumps` would reflow every array and object the user wrote by hand, so
memvet splices its few changes into the original text instead: everything outside the edited
spans stays byte for byte. Every edit is mirrored on the parsed data and the result is checked
(`JsonText.result`); if the splice and the data disagree, the file is re-serialised instead —
correct, if less pretty.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any

Path = tuple[str | int, ...]

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Child:
    """One member of an object (key is a str) or one item of an array (key is its index)."""

    key: str | int
    start: int  # where the member's key (or the item) starts
    value_start: int
    value_end: int


class JsonText:
    def __init__(self, text: str) -> None:
        self.text = text
        self.data = json.loads(text)  # raises json.JSONDecodeError with line and column
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.minified = "\n" not in text.strip() and _is_full(text.strip())
        self.unit = _detect_indent(text)

    # --- reading -------------------------------------------------------------------------

    def get(self, path: Path, default: Any = None) -> Any:
        node = self.data
        for key in path:
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                return default
        return node

    def _locate(self, path: Path) -> tuple[int, int]:
        start = _skip_ws(self.text, 0)
        end = _DECODER.raw_decode(self.text, start)[1]
        for key in path:
            matches = [c for c in self._children(start) if c.key == key]
            if not matches:
                raise KeyError(key)
            start, end = matches[-1].value_start, matches[-1].value_end  # last wins, as json.loads
        return start, end

    def _children(self, start: int) -> list[Child]:
        text = self.text
        is_object = text[start] == "{"
        pos = _skip_ws(text, start + 1)
        children: list[Child] = []
        index = 0
        while text[pos] not in "}]":
            item_start = pos
            key: str | int = index
            if is_object:
                key, pos = _DECODER.raw_decode(text, pos)  # the member name, a JSON string
                pos = _skip_ws(text, pos) + 1  # the colon
                pos = _skip_ws(text, pos)
            value_end = _DECODER.raw_decode(text, pos)[1]
            children.append(Child(key, item_start, pos, value_end))
            pos = _skip_ws(text, value_end)
            if text[pos] == ",":
                pos = _skip_ws(text, pos + 1)
            index += 1
        return children

    # --- editing ---------------------------------------------------------------------------

    def set_member(self, path: Path, key: str, value: Any) -> None:
        """Set `key` in the object at `path`: replace its value in place, or append it."""
        parent = self.get(path)
        if key in parent:
            self.replace(path + (key,), value)
            return
        start, end = self._locate(path)
        member = json.dumps(key, ensure_ascii=False) + self._colon()
        self._append(start, end, member, value)
        parent[key] = copy.deepcopy(value)

    def append_item(self, path: Path, value: Any) -> None:
        start, end = self._locate(path)
        self._append(start, end, "", value)
        self.get(path).append(copy.deepcopy(value))

    def replace(self, path: Path, value: Any) -> None:
        start, end = self._locate(path)
        compact = self.minified or (
            "\n" not in self.text[start:end] and _is_full(self.text[start:end])
        )
        rendered = self._render(value, self._line_indent(start), compact)
        self.text = self.text[:start] + rendered + self.text[end:]
        parent = self.get(path[:-1])
        parent[path[-1]] = copy.deepcopy(value)

    def remove(self, path: Path) -> None:
        """Remove a member or an item, with its comma and the whitespace that came with it."""
        start, _ = self._locate(path[:-1])
        children = self._children(start)
        matches = [i for i, c in enumerate(children) if c.key == path[-1]]
        i = matches[-1]
        if len(children) == 1:
            close = _skip_ws(self.text, children[0].value_end)
            cut = (start + 1, close)
        elif i == len(children) - 1:
            cut = (children[i - 1].value_end, children[i].value_end)
        else:
            cut = (children[i].start, children[i + 1].start)
        self.text = self.text[: cut[0]] + self.text[cut[1] :]
        parent = self.get(path[:-1])
        del parent[path[-1]]

    def result(self) -> str:
        """The edited text, checked against the data; re-serialised if a splice went wrong."""
        try:
            if json.loads(self.text) == self.data:
                return self.text
        except json.JSONDecodeError:
            pass
        indent = None if self.minified else self.unit
        return json.dumps(self.data, indent=indent, ensure_ascii=False) + self.newline

    # --- text helpers -------------------------------------------------------------------------

    def _colon(self) -> str:
        return ":" if self.minified else ": "

    def _append(self, start: int, end: int, prefix: str, value: Any) -> None:
        text, nl = self.text, self.newline
        children = self._children(start)
        single_line = "\n" not in text[start:end]
        if self.minified or (children and single_line):
            sep = "," if self.minified else ", "
            rendered = prefix + self._render(value, "", compact=True)
            if children:
                at = children[-1].value_end
                self.text = text[:at] + sep + rendered + text[at:]
            else:
                self.text = text[: start + 1] + rendered + text[end - 1 :]
            return
        outer = self._line_indent(start)
        if children:
            indent = self._line_indent(children[-1].start)
            if not text[: children[-1].start].rstrip(" \t").endswith("\n"):
                indent = outer + self.unit  # the last child does not start a line
            at = children[-1].value_end
            rendered = prefix + self._render(value, indent, compact=False)
            self.text = text[:at] + "," + nl + indent + rendered + text[at:]
        else:
            indent = outer + self.unit
            rendered = prefix + self._render(value, indent, compact=False)
            self.text = text[: start + 1] + nl + indent + rendered + nl + outer + text[end - 1 :]

    def _render(self, value: Any, indent: str, compact: bool) -> str:
        if compact:
            seps = (",", ":") if self.minified else (", ", ": ")
            return json.dumps(value, ensure_ascii=False, separators=seps)
        rendered = json.dumps(value, ensure_ascii=False, indent=self.unit)
        return rendered.replace("\n", self.newline + indent)

    def _line_indent(self, pos: int) -> str:
        """The leading whitespace of the line holding `pos`."""
        line_start = self.text.rfind("\n", 0, pos) + 1
        line = self.text[line_start:pos]
        return line[: len(line) - len(line.lstrip(" \t"))]


def _skip_ws(text: str, pos: int) -> int:
    """Where the whitespace at `pos` ends (`_WS` matches the empty string too: always a match)."""
    found = _WS.match(text, pos)
    return found.end() if found else pos


def _is_full(fragment: str) -> bool:
    """A non-empty container written on one line (so a replacement stays on one line too)."""
    inner = fragment[1:-1].strip()
    return fragment[:1] in "{[" and bool(inner)


def _detect_indent(text: str) -> str:
    """The file's indent step: the smallest indentation of any line (2 spaces by default)."""
    best: str | None = None
    for line in text.splitlines()[:500]:
        stripped = line.lstrip(" \t")
        lead = line[: len(line) - len(stripped)]
        if lead and stripped:
            if lead.startswith("\t"):
                return "\t"
            if best is None or len(lead) < len(best):
                best = lead
    return best or "  "
