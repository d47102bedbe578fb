"""Loading and validating the rule files: the packaged `assets/rules.toml` (extraction) and
`assets/filters.toml` (filters), optionally overlaid by the user's `MEMVET_HOME/rules.toml`
(and `MEMVET_HOME/filters.toml`).

Overlay: `[policy]` keys replace the packaged values; a table whose `name` matches a packaged
rule replaces it (`enabled = false` switches it off); new names are added. Unknown sections and
keys are rejected, and a bad regex is reported with its file, section, rule name and key.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields
from importlib import resources
from pathlib import Path
from typing import Any

from memvet.daemon.extraction.casefold import WORD as _WORD
from memvet.daemon.extraction.filters import FilterSet
from memvet.daemon.extraction.prefilter import prefilter_for
from memvet.daemon.extraction.rule_types import Policy, Rule, Rules
from memvet.daemon.hosts import HOSTS
from memvet.store.errors import MemvetError
from memvet.store.lazy_pattern import LazyPattern
from memvet.store.records import KINDS, POLARITIES
from memvet.store.vocabulary import Kind


class RulesError(MemvetError):
    code = "invalid_rules"


_COMMON = {"name", "pattern", "description", "enabled", "keywords", "words", "contains"}
_SECTIONS: dict[str, set[str]] = {
    "drop": _COMMON | {"hosts"},
    "strip": _COMMON | {"hosts", "replace"},
    "durable": _COMMON | {"boost"},
    "reject": _COMMON | {"unless_durable"},
    "kind": _COMMON | {"kind", "confidence", "durable", "needs_durable", "polarity"},
    "scope": set(_COMMON),
    "polarity": set(_COMMON),
    "correction": _COMMON | {"boost", "standalone"},
    "skip_line": set(_COMMON),
    "kind_cue": _COMMON | {"kind", "over"},
}
_TOP_LEVEL = set(_SECTIONS) | {"policy", "version"}
_TYPES: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "pattern": str,
    "description": str,
    "enabled": bool,
    "hosts": list,
    "replace": str,
    "boost": (int, float),
    "unless_durable": bool,
    "kind": str,
    "confidence": (int, float),
    "durable": bool,
    "needs_durable": bool,
    "polarity": str,
    "standalone": bool,
    "keywords": list,
    "words": list,
    "contains": list,
    "over": list,
}


def _fail(source: str, where: str, message: str) -> RulesError:
    return RulesError(f"{source}: {where}: {message}", source=source)


def _read(path: str, text: str) -> dict[str, Any]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{path}: not valid TOML: {exc}", source=path) from None
    unknown = set(data) - _TOP_LEVEL
    if unknown:
        raise _fail(
            path,
            "top level",
            f"unknown section(s) {', '.join(sorted(unknown))}; "
            f"expected {', '.join(sorted(_TOP_LEVEL))}",
        )
    return data


def _check_table(source: str, section: str, index: int, table: Any) -> dict[str, Any]:
    where = f"[[{section}]] #{index + 1}"
    if not isinstance(table, dict):
        raise _fail(source, where, "must be a table")
    name = table.get("name")
    if not isinstance(name, str) or not name:
        raise _fail(source, where, "needs a non-empty string 'name'")
    where = f"[[{section}]] '{name}'"
    for key, value in table.items():
        if key not in _SECTIONS[section]:
            raise _fail(
                source,
                where,
                f"unknown key '{key}' (allowed: {', '.join(sorted(_SECTIONS[section]))})",
            )
        if not isinstance(value, _TYPES[key]) or (
            isinstance(value, bool) and _TYPES[key] is not bool
        ):
            raise _fail(source, where, f"key '{key}' has the wrong type")
    if table.get("enabled", True) and not isinstance(table.get("pattern"), str):
        raise _fail(source, where, "needs a string 'pattern'")
    if section in ("kind", "kind_cue") and table.get("enabled", True):
        if table.get("kind") not in KINDS:
            raise _fail(source, where, f"key 'kind' must be one of {', '.join(KINDS)}")
    if "over" in table and not all(k in KINDS for k in table["over"]):
        raise _fail(source, where, f"key 'over' may only list {', '.join(KINDS)}")
    if "polarity" in table and table["polarity"] not in POLARITIES:
        raise _fail(source, where, f"key 'polarity' must be one of {', '.join(POLARITIES)}")
    for key in ("keywords", "contains"):
        if key in table and not all(
            isinstance(k, str) and k and k == k.lower() for k in table[key]
        ):
            raise _fail(source, where, f"key '{key}' must list non-empty lowercase strings")
    if "words" in table and not all(
        isinstance(w, str) and _WORD.fullmatch(w) and w == w.lower() for w in table["words"]
    ):
        raise _fail(source, where, "key 'words' must list lowercase words (letters, digits, _)")
    if "hosts" in table and not all(h in HOSTS for h in table["hosts"]):
        raise _fail(source, where, f"key 'hosts' may only list {', '.join(HOSTS)}")
    for key in ("confidence", "boost"):
        if key in table and not 0.0 <= float(table[key]) <= 1.0:
            raise _fail(source, where, f"key '{key}' must be between 0 and 1")
    return {**table, "_source": source}


def _compile(section: str, table: dict[str, Any]) -> Rule:
    where = f"[[{section}]] '{table['name']}'"
    pattern: re.Pattern[str] | LazyPattern
    if table["_source"].startswith(_PACKAGED):
        pattern = LazyPattern(table["pattern"])  # compiled on first use: start-up (lazy_pattern.py)
    else:
        try:
            pattern = re.compile(table["pattern"])
        except re.error as exc:
            raise _fail(table["_source"], where, f"key 'pattern': bad regex: {exc}") from None
    if (
        section == "correction"
        and not isinstance(pattern, LazyPattern)
        and pattern.groupindex
        and "old" not in pattern.groupindex
    ):
        raise _fail(
            table["_source"], where, "key 'pattern': the only named group allowed is (?P<old>…)"
        )
    hosts = table.get("hosts")
    return Rule(
        name=table["name"],
        section=section,
        pattern=pattern,
        kind=table.get("kind"),
        confidence=float(table.get("confidence", 0.0)),
        boost=float(table.get("boost", 0.0)),
        durable=table.get("durable", False),
        needs_durable=table.get("needs_durable", False),
        unless_durable=table.get("unless_durable", False),
        polarity=table.get("polarity"),
        replace=table.get("replace", ""),
        hosts=tuple(hosts) if hosts is not None else None,
        standalone=table.get("standalone", False),
        keywords=tuple(table.get("keywords", ())),
        words=tuple(table.get("words", ())),
        contains=tuple(table.get("contains", ())),
        over=tuple(table.get("over", ())),
    )


def _policy(source: str, raw: Any, base: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise _fail(source, "[policy]", "must be a table")
    known = {f.name: f for f in fields(Policy)}
    for key, value in raw.items():
        if key not in known:
            raise _fail(
                source, "[policy]", f"unknown key '{key}' (allowed: {', '.join(sorted(known))})"
            )
        expected = type(getattr(Policy(), key))
        ok = isinstance(value, expected) and not (isinstance(value, bool) and expected is not bool)
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            ok, value = True, float(value)
        if not ok:
            raise _fail(source, "[policy]", f"key '{key}' must be a {expected.__name__}")
        base[key] = value
    if base.get("correction_kind", Kind.PREFERENCE) not in KINDS:
        raise _fail(source, "[policy]", f"key 'correction_kind' must be one of {', '.join(KINDS)}")
    return base


_PACKAGED = "memvet/assets/"


def _packaged(name: str) -> tuple[str, str]:
    resource = resources.files("memvet.assets").joinpath(name)
    return f"{_PACKAGED}{name}", resource.read_text(encoding="utf-8")


def _user_files(path: str | None) -> list[Path]:
    if path is not None:
        return [Path(path)]
    from memvet.store.paths import memvet_home

    home = memvet_home()
    return [p for p in (home / "filters.toml", home / "rules.toml") if p.is_file()]


def load_rules(path: str | None = None) -> Rules:
    """The packaged rules and filters, overlaid by `path` or by MEMVET_HOME's files if present."""
    documents = [_packaged("filters.toml"), _packaged("rules.toml")]
    for user_file in _user_files(path):
        try:
            documents.append((str(user_file), user_file.read_text(encoding="utf-8")))
        except OSError as exc:
            raise RulesError(
                f"{user_file}: cannot read rules file: {exc.strerror or exc}", source=str(user_file)
            ) from None
    policy: dict[str, Any] = {}
    tables: dict[str, dict[str, dict[str, Any]]] = {s: {} for s in _SECTIONS}
    for source, text in documents:
        data = _read(source, text)
        if "policy" in data:
            policy = _policy(source, data["policy"], policy)
        for section in _SECTIONS:
            entries = data.get(section, [])
            if not isinstance(entries, list):
                raise _fail(source, f"[[{section}]]", "must be an array of tables ([[...]])")
            seen: set[str] = set()
            for index, table in enumerate(entries):
                checked = _check_table(source, section, index, table)
                if checked["name"] in seen:
                    raise _fail(source, f"[[{section}]] '{checked['name']}'", "duplicate name")
                seen.add(checked["name"])
                tables[section][checked["name"]] = checked  # a later file replaces by name
    compiled = {
        s: tuple(_compile(s, t) for t in tables[s].values() if t.get("enabled", True))
        for s in _SECTIONS
    }
    rules = Rules(
        policy=Policy(**policy),
        filters=FilterSet(compiled["drop"], compiled["strip"]),
        durable=compiled["durable"],
        reject=compiled["reject"],
        kinds=compiled["kind"],
        scope=compiled["scope"],
        polarity=compiled["polarity"],
        correction=compiled["correction"],
        skip_line=compiled["skip_line"],
        kind_cues=compiled["kind_cue"],
        sources=tuple(source for source, _ in documents),
    )
    prefilter_for(rules)  # built once per load, like the compiled patterns, not per file read
    return rules
