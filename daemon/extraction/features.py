"""What the learned scorer sees of a sentence: named features of the sentence itself (words,
word pairs, word-internal character n-grams, shape), the rules that fired on it, and its context
(where it sits in the message, what else the message says, the previous assistant turn).

Pure Python and shared by training and runtime, so both hash the same names the same way.
Vocabulary that identifies a project (paths, numbers, code spans) is reduced to its shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from zlib import crc32

BUCKETS = 1 << 20
_TOKEN = re.compile(r"`[^`]*`|[A-Za-z][\w'\-]*(?:[./][\w\-]+)*/?|\d+(?:\.\d+)*[a-z%]*|[^\w\s]")
_PRONOUN_START = frozenset("it it's its they them this that these those he she same ditto".split())
# Cues read from the whole message, not only the sentence (scope and time live anywhere in it).
_MESSAGE_CUES = {
    "global": re.compile(r"(?i)\b(?:all|every|any|each) (?:of )?my\b|\bwherever I\b|\bwhatever the project\b|"
                         r"\bnot (?:just|only) here\b|\bin general\b|\bevery (?:repo|project)\b|\babout me\b|"
                         r"\beverywhere\b|\bin any (?:repo|project)\b|\bof mine\b"),
    "local": re.compile(r"(?i)\b(?:this|our) (?:repo|project|codebase|app)\b|\bonly here\b|\bjust for this\b"),
    "time": re.compile(r"(?i)\b(?:today|tonight|for now|for the moment|at the moment|yet|this (?:week|sprint|time|pr|once)|"
                       r"until|right now|temporar\w*)\b"),
    "ask": re.compile(r"\?|(?i:\b(?:can|could|would) you\b)"),
    "adopt": re.compile(r"(?i)\b(?:from now on|going forward|from here on|make (?:that|it|this) (?:the|a) (?:rule|default|convention)|"
                        r"standing rule|every time|keep doing)\b"),
    "first_person": re.compile(r"(?i)\b(?:I'm|I am|I use|I write|I prefer|I like|I name|my)\b"),
}
_PROPOSAL = re.compile(r"(?i)\b(?:I could|I can|I'd suggest|we could|one option|want me to|shall I|if you want|going forward I)\b")


@dataclass(frozen=True)
class Context:
    """Everything around a sentence that the scorer may use. Defaults mean "not known"."""

    message: str = ""  # the whole (filtered, redacted) user message
    index: int = 0  # the sentence's position in the message
    count: int = 1  # how many sentences the message has
    previous_assistant: str = ""  # the assistant turn before this message (adoption)
    rules: tuple[str, ...] = ()  # names of the rules that fired on the sentence (reject.* too)
    adopted: bool = False  # the statement was built from the assistant's proposal
    host: str | None = None


def tokens(text: str) -> list[str]:
    out = []
    for tok in _TOKEN.findall(text):
        if tok.startswith("`"):
            out.append("<code>")
        elif tok[0].isdigit():
            out.append("<num>")
        elif "/" in tok or ("." in tok.strip(".") and not tok.endswith(".")):
            out.append("<path>")
        else:
            out.append(tok.lower())
    return out


def _bucket(n: int) -> str:
    return "0" if n == 0 else "1" if n == 1 else "2" if n == 2 else "3-4" if n <= 4 else "5-8" if n <= 8 else "9+"


def sentence_features(sentence: str, context: Context, *, chars: bool = True) -> list[str]:
    toks = tokens(sentence)
    feats = [f"w:{t}" for t in toks]
    padded = ["<s>", *toks, "</s>"]
    feats += [f"b:{a}_{b}" for a, b in zip(padded, padded[1:], strict=False)]
    if chars:
        for t in toks:
            if len(t) > 3 and t[0] != "<":
                word = f"^{t}$"
                feats += [f"c:{word[i:i + 4]}" for i in range(len(word) - 3)]
    words = [t for t in toks if t[0].isalnum() or t[0] == "<"]
    if words:
        feats.append(f"f:{words[0]}")
        feats.append(f"f2:{'_'.join(words[:2])}")
        if words[0] in _PRONOUN_START:
            feats.append("shape:pronoun-start")
    feats.append(f"len:{_bucket(len(words) // 3)}")
    last = sentence.rstrip()[-1:]
    feats.append(f"end:{last if last in '.!?:' else 'none'}")
    if sentence[:1].islower():
        feats.append("shape:lower-start")
    if re.search(r",\s*(?:not|never|no)\b", sentence, re.I):
        feats.append("shape:x-not-y")
    if "`" in sentence:
        feats.append("shape:code")
    if sentence.lstrip().startswith(("#", "- [ ]")) or re.match(r"^[A-Z][\w ]{0,20}:\s", sentence):
        feats.append("shape:heading")
    feats += context_features(context)
    return feats


def context_features(context: Context) -> list[str]:
    feats = [f"r:{name}" for name in context.rules]
    feats += [f"rs:{name.split('.', 1)[0]}" for name in context.rules]
    if not context.rules:
        feats.append("r:none")
    position = "only" if context.count <= 1 else "first" if context.index == 0 else (
        "last" if context.index == context.count - 1 else "middle")
    feats.append(f"pos:{position}")
    feats.append(f"msg:{_bucket(context.count)}")
    for name, cue in _MESSAGE_CUES.items():
        if cue.search(context.message):
            feats.append(f"m:{name}")
    if context.previous_assistant:
        feats.append("prev:any")
        if _PROPOSAL.search(context.previous_assistant):
            feats.append("prev:proposal")
    if context.adopted:
        feats.append("adopted")
    return feats


def hashed(features: Iterable[str]) -> dict[int, float]:
    """Feature name → bucket (crc32, stable across processes), counts summed."""
    out: dict[int, float] = {}
    for name in features:
        index = crc32(name.encode()) & (BUCKETS - 1)
        out[index] = out.get(index, 0.0) + 1.0
    return out
