"""User-global or workspace, decided per message from cues anywhere in it.

A statement is user-global when its own sentence widens it to all the person's work ("in all my
repos", "wherever I work", "not just here"), when it is a first-person fact about the person
("my machine is an M2", "I use fish"), or when another sentence of the same message that is not
a candidate itself widens what was said ("Tabs, not spaces. That goes for every project.").
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
# First-person facts about the person, not a project: their machine, shell, place, style.
_ABOUT_ME = LazyPattern(
    r"(?i)\bmy (?:own )?(?:machine|laptop|computer|workstation|desktop|mac|macbook|pc|box|os|shell|"
    r"terminal|editor|ide|keyboard(?: layout)?|time ?zone|locale|name|pronouns|handle|username|"
    r"e-?mail|setup|dotfiles|native language|first language|screen|monitor|display)\b"
    r"|\bI(?:'m| am) (?:(?:usually|mostly|always|generally|normally|often) )?(?:on (?:a |an |the )?(?!(?:it|my way|a call|the call|leave|vacation|holiday|the phone|"
    r"the train|board|top|track|a break|break|the same page|the fence|this|that|it|call|duty)\b)"
    r"(?-i:[A-Z])|on (?:a |an )?(?:mac|macos|linux|windows|ubuntu|fedora|arch|nixos|wsl|m\d|old|new)|"
    r"based in|located in|in (?-i:[A-Z])(?!(?-i:PR|CI)\b)|from (?-i:[A-Z])|"
    r"in (?:the )?[A-Z][\w/+\-]* (?:time ?zone|time)|(?:colou?r ?blind|left-handed))"
    r"|\bI (?:use|run|prefer|like|write|name|type|live|work from|speak|code in|am using|'m using)\b"
    r"|\bI (?:always|never|usually|generally|mostly|only|tend to) (?:use|run|write|name|prefer|type|work)\b"
    r"|\bcall me\b"
)


def _widens(sentence: str) -> bool:
    return _WIDENS.search(sentence) is not None


def _local(sentence: str) -> bool:
    return _LOCAL.search(sentence) is not None


def sentence_scope(sentence: str, *, rule_said_global: bool = False) -> str | None:
    """Why the sentence alone is user-global ("scope.widened", "scope.about_user"), "" when it
    ties itself to this workspace, None when it does not say."""
    if _widens(sentence):
        return "scope.widened"
    if _local(sentence):
        return ""
    if _WIDENS_WEAKLY.search(sentence) or rule_said_global:
        return "scope.widened"
    if _ABOUT_ME.search(sentence):
        return "scope.about_user"
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
    ("scope.widened", "scope.about_user", "scope.message"), "" when it is tied to this workspace,
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
