"""User-global or workspace, decided per message from cues anywhere in it.

A statement is user-global when its own sentence widens it to all the person's work ("in all my
repos", "wherever I work", "not just here"), when it is a first-person fact about the person
("my machine is an M2", "I use fish": the `scope.about-user` rule of assets/rules.toml, its one
definition), or when another sentence of the same message that is not a candidate itself widens
what was said ("Tabs, not spaces. That goes for every project.").
A sentence that ties itself to this workspace ("everywhere in this codebase", "for this repo",
"here") stays in the workspace unless it widens explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from memvet.store.lazy_pattern import LazyPattern

_WORK = r"(?:projects?|repos?|repositories|codebases?|code ?bases?|work|code)"
# Widens to every workspace, whatever else the sentence says ("all my repos, this one too").
_WIDENS = LazyPattern(
    rf"(?i)\b(?:in|for|across|on) (?:all|every|each|any) (?:of )?(?:my |our )?(?:other )?{_WORK}"
    rf"|\b(?:all|every one|each|any) of my {_WORK}|\ball my {_WORK}|\bevery (?:single )?(?:project|repo|codebase) (?:I|of mine)"
    rf"|\bany (?:project|repo|codebase) (?:of mine|I (?:work on|touch|open|start))"
    r"|\bwherever I (?:work|code)|\bwhatever (?:the )?(?:project|repo)|\bno matter (?:the|which|what) (?:project|repo)"
    r"|\bregardless of (?:the |which )?(?:project|repo)|\b(?:all|any|for) future (?:projects|repos)"
    r"|\bnot (?:just|only) (?:here|in this (?:repo|project|codebase|one))|\bfor everything I (?:do|write|build)"
    r"|\bacross the board|\bin general\b(?!\s+(?:here|in this))|\bas a general rule|\buser[- ]wide|\bsystem[- ]wide"
)
# Widens unless the same sentence ties it to this workspace ("everywhere in this codebase").
_WIDENS_WEAKLY = LazyPattern(r"(?i)\b(?:everywhere|globally|always and everywhere)\b")
WIDENS_ANY = LazyPattern(f"(?i){_WIDENS.source[4:]}|{_WIDENS_WEAKLY.source[4:]}")
_LOCAL = LazyPattern(
    r"(?i)\b(?:this|the|our) (?:repo|repository|project|codebase|code ?base|app|application|service|"
    r"monorepo|package|workspace|folder|directory|module|crate|site|server)\b|\b(?:in )?here\b"
)


def _widens(sentence: str) -> bool:
    return _WIDENS.search(sentence) is not None


def _local(sentence: str) -> bool:
    return _LOCAL.search(sentence) is not None


def sentence_scope(sentence: str, *, rule_said_global: bool = False) -> str | None:
    """Why the sentence alone is user-global ("scope.widened"), "" when it ties itself to this
    workspace, None when it does not say. `rule_said_global`: a [[scope]] rule of rules.toml
    matched it (among them `scope.about-user`, the one definition of a fact about the person)."""
    if _widens(sentence):
        return "scope.widened"
    if _local(sentence):
        return ""
    if _WIDENS_WEAKLY.search(sentence) or rule_said_global:
        return "scope.widened"
    return None


def message_widens(others: Iterable[str]) -> bool:
    """Does a sentence of the message that is not a statement itself widen what was said?"""
    for sentence in others:
        if _widens(sentence) or (_WIDENS_WEAKLY.search(sentence) and not _local(sentence)):
            return True
    return False


def scope_cue(
    sentence: str, others: Iterable[str], *, rule_said_global: bool = False
) -> str | None:
    """What the message says about one statement's scope: why it is user-global
    ("scope.widened", "scope.message"), "" when it is tied to this workspace,
    None when the message does not say. `others`: its sentences that are no statement."""
    own = sentence_scope(sentence, rule_said_global=rule_said_global)
    if own is not None:
        return own
    return "scope.message" if message_widens(others) else None


def global_reason(
    sentence: str, others: Iterable[str], *, rule_said_global: bool = False
) -> str | None:
    """Why one statement of a message is user-global, or None when it belongs to the workspace."""
    return scope_cue(sentence, others, rule_said_global=rule_said_global) or None


def with_message_scope(item: Any, others: Sequence[str]) -> Any:
    """An `Extracted` with its scope decided per message (its reasons say why it is global)."""
    reason = global_reason(item.statement, others, rule_said_global=item.user_global)
    if reason is None:
        reasons = tuple(r for r in item.reasons if not r.startswith("scope."))
    elif item.user_global and reason == "scope.widened":
        reasons = item.reasons  # a [[scope]] rule already said so, under its own name
    else:
        reasons = item.reasons if reason in item.reasons else (*item.reasons, reason)
    if (reason is not None) == item.user_global and reasons == item.reasons:
        return item
    return replace(item, user_global=reason is not None, reasons=reasons)


def overridden_by_cues(items: Sequence[Any], sentences: Sequence[str]) -> list[Any]:
    """After the learned scorer guessed each statement's scope: where the message says it
    outright (a widening phrase, a fact about the person, "in this repo"), what it says wins."""
    folded = [item.statement.casefold() for item in items]
    others = [s for s in sentences if not any(s.casefold() in f for f in folded)]
    scoped = []
    for item in items:
        cue = scope_cue(item.statement, others)
        if cue is None or (cue != "") == item.user_global:
            scoped.append(item)
            continue
        reasons = item.reasons if cue == "" or cue in item.reasons else (*item.reasons, cue)
        scoped.append(replace(item, user_global=cue != "", reasons=reasons))
    return scoped
