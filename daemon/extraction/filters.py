"""Declarative prompt filters (`assets/filters.toml`, user-editable): drop host wrappers and
injected context, strip noise.

- `[[drop]]` rules discard a whole prompt (its text is the host's or a tool's, not the person's).
- `[[strip]]` rules remove spans (a `<system-reminder>` a hook appended, terminal escapes).

URLs, absolute and `~/` paths, inline code and fenced code blocks are masked while strip rules
run, so no rule can cut into them. A prompt that strip rules empty is replaced by a statement
that says which rule did it, never silently dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memvet.daemon.extraction.casefold import folded
from memvet.store import hosts

if TYPE_CHECKING:
    from memvet.daemon.extraction.rule_types import Rule

EMPTIED = "[filtered: all content removed by rule {}]"

_PROTECTED = re.compile(
    r"```.*?(?:```|\Z)"  # fenced code block
    r"|`[^`\n]+`"  # inline code
    r"|\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s<>\"'`]+"  # URL
    r"|(?<![\w/.~<])~?/[\w.\-~@%+]+(?:/[\w.\-~@%+]*)*",  # absolute or ~/ path (not a </tag>)
    re.S,
)
_SLOT = re.compile("\ue000(\\d+)\ue001")  # private-use characters: never in real text
# Without a backtick or "://" only the path alternative can match: the same matches, cheaper.
_PATH = re.compile(_PROTECTED.pattern.rsplit("|", 1)[1], re.S)


@dataclass(frozen=True)
class FilterResult:
    text: str
    dropped_by: str | None = None  # the drop rule that discarded the prompt
    stripped_by: tuple[str, ...] = ()  # strip rules that changed it
    emptied_by: str | None = None  # the strip rule that removed what was left

    @property
    def kept(self) -> bool:
        return self.dropped_by is None and self.emptied_by is None


class FilterSet:
    def __init__(self, drop: tuple[Rule, ...], strip: tuple[Rule, ...]) -> None:
        self.drop = drop
        self.strip = strip
        self._hosts: dict[str | None, tuple[list[Rule], list[Rule], list[str] | None]] = {}
        for host in (None, *hosts.names()):
            self._for(host)

    def _for(self, host: str | None) -> tuple[list[Rule], list[Rule], list[str] | None]:
        """The drop and strip rules for `host`, and strings one of which the text must contain
        for any strip rule to match (None: no such list): what the strip rules declare they contain."""
        found = self._hosts.get(host)
        if found is None:
            strip = [r for r in self.strip if r.applies_to(host)]
            needles: list[str] | None = []
            for rule in strip:
                strings = rule.contains
                if not strings or any(s.isdigit() for s in strings):  # digits: see apply
                    needles = None
                    break
                needles += strings
            found = self._hosts[host] = (
                [r for r in self.drop if r.applies_to(host)],
                strip,
                needles,
            )
        return found

    def apply(self, text: str, host: str | None = None) -> FilterResult:
        drop, rules, needles = self._for(host)
        for rule in drop:
            if rule.pattern.search(text):
                return FilterResult("", dropped_by=rule.name)
        if not rules:
            return FilterResult(text)
        if needles is not None and "\ue000" not in text:
            # No rule can match: what masking, stripping and unmasking would give. (Masking only
            # adds private-use slot marks around digits, so it cannot create a needle.)
            lowered = folded(text)
            if not any(map(lowered.__contains__, needles)):  # `needle in lowered`, in C
                return FilterResult(text.strip())
        masked, slots = mask_protected(text)
        fired: list[str] = []
        for rule in rules:
            changed = rule.pattern.sub(rule.replace, masked)
            if changed != masked:
                fired.append(rule.name)
                masked = changed
                if not unmask(masked, slots).strip():
                    return FilterResult(
                        EMPTIED.format(rule.name), stripped_by=tuple(fired), emptied_by=rule.name
                    )
        return FilterResult(unmask(masked, slots).strip(), stripped_by=tuple(fired))


def mask_protected(text: str) -> tuple[str, list[str]]:
    """`text` with code, URLs and paths replaced by slots; `unmask` puts them back."""
    slots: list[str] = []

    def keep(match: re.Match[str]) -> str:
        slots.append(match.group(0))
        return f"\ue000{len(slots) - 1}\ue001"

    if "`" in text or "://" in text:
        return _PROTECTED.sub(keep, text), slots
    return (_PATH.sub(keep, text) if "/" in text else text), slots


def unmask(text: str, slots: list[str]) -> str:
    return _SLOT.sub(lambda m: slots[int(m.group(1))], text)
