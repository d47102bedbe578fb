"""Adoption: the user keeps the assistant's proposal as a standing rule.

"Should I add a pre-commit hook that runs ruff?" — "yes, from now on". The rule is in the
assistant's words; the user's reply only makes it theirs. A candidate is built from the
proposal when the reply (1) says explicitly that it stands ("from now on", "going forward",
"make that the rule"), (2) refers back to what was proposed ("that", "it", "your suggestion",
or a bare yes), (3) states no rule of its own and (4) is not limited in time ("for now", "this
time"). A bare "ok" / "yes, do it" keeps nothing: it answers a one-off proposal.

The proposal is a sentence near the end of the assistant message that proposes something (the
last one that says it lasts, "before every commit", else the last one), with its framing taken
off: "I'd suggest we pin every dependency" becomes "Pin every dependency".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.records import ADOPTED
from memvet.store.vocabulary import Kind, Polarity

if TYPE_CHECKING:  # at run time adopted() imports it, on first use
    from memvet.daemon.extraction.extract import Extracted

# Patterns compile on first use (LazyPattern): most processes (`memvet extract`, the hooks) never adopt.
MAX_REPLY_WORDS = 30  # a longer reply says something of its own
MAX_PROPOSAL_CHARS = 300
TAIL_CHARS = 4000  # the proposal closes the message: only its end is read (and redacted)

_STANDING = LazyPattern(
    r"(?i)\b(?:from now on|going forward|moving forward|from here on(?: out)?|in (?:the )?future|"
    r"(?:every|each) time|always|as a rule|by default|make (?:that|this|it) (?:the|a|our|my) (?:standing |permanent |general |new )?"
    r"(?:rule|default|standard|convention|practice|policy|habit)|(?:that|this|it)(?:'s| is| should be| becomes) "
    r"(?:the|a|our|my) (?:rule|default|standard|convention|practice|policy)|keep doing (?:that|this|it)|"
    r"stick (?:with|to) (?:that|this|it)|remember (?:that|this|it)|for (?:all|every) (?:future )?"
    r"(?:projects?|repos?|tasks?|changes?|commits?|prs?))\b"
)
_REFERS_BACK = LazyPattern(
    r"(?i)(?:^\W*(?:yes|yeah|yep|yup|sure|ok|okay|agreed|deal|perfect|great|good (?:idea|call)|"
    r"sounds good|exactly|please do|do it|let's do (?:it|that))\b"
    r"|\b(?:that|this|it|those|these|your (?:suggestion|proposal|idea|approach|plan)|"
    r"what you (?:said|suggested|proposed|described))\b)"
)
_TIME_LIMITED = LazyPattern(
    r"(?i)\b(?:for now|for the moment|for today|this time|just (?:this )?once|today|not yet|"
    r"until (?:we|i|the)|temporarily|this (?:pr|branch|session|turn|task))\b"
)
_NEGATED = LazyPattern(r"(?i)^\W*(?:no|nope|nah|don'?t|do not|never mind|not)\b")
_CUE_WORDS = (
    "now on",
    "forward",
    "future",
    "time",
    "always",
    "rule",
    "default",
    "standard",
    "convention",
    "practice",
    "policy",
    "habit",
    "keep doing",
    "stick",
    "remember",
    "every",
    "here on",
)

# How an assistant proposes; the group `rule` is what it proposes.
_PROPOSAL = LazyPattern(
    r"(?i)^(?:(?:so|ok|okay|alternatively|also|instead|going forward|from now on|moving forward|in future),?\s+)?(?:"
    r"(?:i(?:'d| would)? (?:suggest|recommend|propose)|my (?:suggestion|recommendation) (?:is|would be))"
    r"(?: that)?(?: (?:we|you))?(?: should)?"
    r"|(?:should|shall|can|may) i(?: go ahead and)?|(?:do you )?want me to|would you like me to|"
    r"(?:should|shall|could) we(?: also)?|how about(?: we)?|what about|we (?:could|should|might)(?: also)?|"
    r"you (?:could|might|may) want to|you (?:could|should)|it (?:might|may|would) be (?:better|worth|good|wise) to|"
    r"(?:a|the) (?:better|cleaner|safer|simpler) (?:approach|option|way) (?:would be|is) to|let's|"
    r"i (?:can|could)(?: also)?(?: go ahead and)?|consider|one option is to|i propose"
    r")\s+(?P<rule>.+)$"
)
_LASTING = LazyPattern(
    r"(?i)\b(?:every|each|always|never|by default|instead of|whenever|all (?:future|new)|"
    r"from now on|going forward|as a rule|before (?:every|each|any)|after (?:every|each|any))\b"
)
_SENTENCE = LazyPattern(r"(?<=[.!?])\s+(?=[A-Z\"'`(\[])|\n+")
_FOR_YOU = LazyPattern(
    r"(?i)\s+(?:for you|for us|if you(?:'d)? like|if you want|instead|as well)(?=[\s?.!,]*$)"
)


def may_adopt(reply: str) -> bool:
    """Cheap first look: could this reply adopt a proposal? (Most replies: no.)"""
    lowered = reply.lower()
    # map(__contains__): the same `in` tests without a generator frame per word
    return any(map(lowered.__contains__, _CUE_WORDS)) and len(reply.split()) <= MAX_REPLY_WORDS


def adopts(reply: str) -> bool:
    """Does the reply keep the previous proposal as a standing rule?"""
    text = " ".join(reply.split())
    return (
        len(text.split()) <= MAX_REPLY_WORDS
        and _STANDING.search(text) is not None
        and _REFERS_BACK.search(text) is not None
        and _TIME_LIMITED.search(text) is None
        and _NEGATED.match(text) is None
    )


def proposal_sentence(message: str) -> str | None:
    """The last sentence of an assistant message that proposes something (as written)."""
    tail = message[-TAIL_CHARS:]
    found = []
    for sentence in reversed(_SENTENCE.split(tail)):
        sentence = " ".join(sentence.split()).strip(" -*>")
        if sentence and len(sentence) <= MAX_PROPOSAL_CHARS and _PROPOSAL.match(sentence):
            found.append(sentence)
            if len(found) == 3:
                break
    # "I'd suggest we run ruff before every commit. Want me to add a hook?": the lasting one
    lasting = [s for s in found if _LASTING.search(s)]
    return (lasting or found or [None])[0]


def as_rule(sentence: str) -> str | None:
    """The proposal without its framing, as a statement the user could have typed."""
    found = _PROPOSAL.match(sentence)
    if found is None:
        return None
    rule = _FOR_YOU.sub("", found.group("rule").strip()).rstrip(" ?!.,;:")
    rule = re.sub(r"(?i)^(?:to|that|we|you|i)\s+", "", rule)
    rule = re.sub(r"(?i)^(?:should|could|can|would)\s+", "", rule)
    if len(rule.split()) < 3:
        return None
    return rule[0].upper() + rule[1:] + "."


_OWN_WORD = LazyPattern(r"[A-Za-z0-9_./\-`]{2,}")
_NOT_CONTENT = frozenset(
    "yes yeah yep yup sure ok okay agreed deal perfect great good idea call sounds exactly please do it "
    "let's lets that this those these your suggestion proposal approach plan what you said suggested "
    "proposed from now on going forward moving here out in the future every each time always as rule by "
    "default make the our my standard convention practice policy habit keep doing stick with remember "
    "and so too also for all future just should be becomes is a an of".split()
)


def states_own_rule(statements: list[str]) -> bool:
    """Did the reply's own candidates say something beyond adopting ("yes, and always use uv")?"""
    return any(
        sum(w.lower().strip("`") not in _NOT_CONTENT for w in _OWN_WORD.findall(s)) >= 2
        for s in statements
    )


def adopted(
    reply: str, proposal: str, classify: Callable[[str], Extracted | None]
) -> Extracted | None:
    """The candidate (an `Extracted`) the reply makes of `proposal`, or None. `classify` is the
    extractor's: it types the rule (kind, polarity) when its rules know the phrasing."""
    from memvet.daemon.extraction.extract import Extracted
    from memvet.daemon.extraction.scope_cues import global_reason

    rule = as_rule(proposal)
    if rule is None:
        return None
    typed = classify(rule)
    kind = typed.kind if typed is not None else Kind.PREFERENCE
    polarity = (
        typed.polarity
        if typed is not None
        else (
            Polarity.DENY
            if re.match(r"(?i)(?:never|don'?t|do not|avoid|stop)\b", rule)
            else Polarity.ASSERT
        )
    )
    scope = global_reason(rule, [reply])
    reasons = (
        ADOPTED,
        "adoption.standing_reply",
        *(typed.reasons if typed is not None else ()),
        *((scope,) if scope else ()),
    )
    return Extracted(
        statement=rule,
        kind=kind,
        confidence=ADOPTED_CONFIDENCE,
        reasons=tuple(dict.fromkeys(reasons)),
        polarity=polarity,
        user_global=scope is not None,
    )


ADOPTED_CONFIDENCE = 0.6  # below what the user's own words get: the wording is the model's


def evidence_excerpt(proposal: tuple[int, str], reply: str, limit: int) -> str:
    """Both lines, bounded: the assistant's proposal (with its line) and the user's reply."""
    line, sentence = proposal
    reply = " ".join(reply.split())
    head = f"assistant (line {line}): "
    room = max(0, limit - len(head) - len(" | user: ") - min(len(reply), limit // 3))
    said = sentence if len(sentence) <= room else sentence[: max(0, room - 1)] + "…"
    text = f"{head}{said} | user: {reply}"
    return text if len(text) <= limit else text[: limit - 1] + "…"
