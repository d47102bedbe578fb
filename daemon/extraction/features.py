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
from functools import lru_cache
from zlib import crc32

BUCKETS = 1 << 20
_TOKEN = re.compile(r"`[^`]*`|[A-Za-z][\w'\-]*(?:[./][\w\-]+)*/?|\d+(?:\.\d+)*[a-z%]*|[^\w\s]")
_PRONOUN_START = frozenset("it it's its they them this that these those he she same ditto".split())
# A demonstrative typed in a hurry ("thiis", "tihs", "htat") is still one: one edit (a letter
# added, dropped, changed or two swapped) from it, and not a word of its own.
_DEMONSTRATIVES = ("this", "that", "these", "those", "they")
_REAL_WORDS = frozenset(
    "the then than thus thin thing this that these those they them thee thy thou tho hat what chat "
    "his tis its hats thai tha thx theme there here their whet whose tat thaw thew".split()
)
# Cues read from the whole message, not only the sentence (scope and time live anywhere in it).
_MESSAGE_CUES = {
    "global": re.compile(
        r"(?i)\b(?:all|every|any|each) (?:of )?my\b|\bwherever I\b|\bwhatever the project\b|"
        r"\bnot (?:just|only) here\b|\bin general\b|\bevery (?:repo|project)\b|\babout me\b|"
        r"\beverywhere\b|\bin any (?:repo|project)\b|\bof mine\b"
    ),
    "local": re.compile(
        r"(?i)\b(?:this|our) (?:repo|project|codebase|app)\b|\bonly here\b|\bjust for this\b"
    ),
    "time": re.compile(
        r"(?i)\b(?:today|tonight|for now|for the moment|at the moment|yet|this (?:week|sprint|time|pr|once)|"
        r"until|right now|temporar\w*)\b"
    ),
    "ask": re.compile(r"\?|(?i:\b(?:can|could|would) you\b)"),
    "adopt": re.compile(
        r"(?i)\b(?:from now on|going forward|from here on|make (?:that|it|this) (?:the|a) (?:rule|default|convention)|"
        r"standing rule|every time|keep doing)\b"
    ),
    "first_person": re.compile(r"(?i)\b(?:I'm|I am|I use|I write|I prefer|I like|I name|my)\b"),
}
# What a sentence means, read across phrasing families (the kind head generalises on these, not
# on one template's words), and who it is about (scope).
_MEANING = {
    "decision": re.compile(
        r"(?i)\b(?:we(?:'ve| have)? (?:went|go|going|gone|moved|switched|migrated|chose|picked|"
        r"settled|decided|standardi[sz]ed|landed|dropped|replaced|adopted|ditched)|"
        r"(?:went|going|moving|moved|switched|migrated) (?:with|to|over|away|off)|decided|decision|"
        r"settled on|in favou?r of|instead of|we(?:'re| are) (?:on|using) \S+ now|no longer)\b"
    ),
    "procedure": re.compile(
        r"(?i)(?:^|\b)(?:to \w+[^,:]{0,40}[,:] *(?:run|use|do|call|type)|run `|run \S+ (?:before|after|first)|"
        r"\bfirst\b.{0,60}\bthen\b|\bbefore (?:you |each |every |any )?\w+ing\b|\bsteps?\b|"
        r"\bby running\b|\bthe way to\b|\bhow to\b|\bafter (?:you |each |every )?\w+ing\b)"
    ),
    "constraint": re.compile(
        r"(?i)\b(?:must|mustn't|never|don't|do not|cannot|can't|no \w+ (?:in|on|to|outside)|"
        r"not allowed|forbidden|required?|has to|have to|only|at most|at least|no more than|"
        r"every \w+ (?:needs|must|has)|needs? to)\b"
    ),
    "preference": re.compile(
        r"(?i)\b(?:I(?:'d)? (?:prefer|like|love|hate|dislike|rather|want|favou?r)|prefer(?:red|ably)?|"
        r"rather than|\bover\b|I'd rather|nicer|cleaner|my (?:taste|style|preference)|"
        r"keep (?:it|them|things) \w+)\b"
    ),
    "fact": re.compile(
        r"(?i)\b(?:lives? (?:in|at|on|under)|is (?:at|in|on|hosted|deployed|served)|runs? (?:on|in|at)|"
        r"hosted (?:on|at|by)|deploy(?:s|ed)? (?:to|on)|listens on|port \d+|is (?:our|the|my) \w+|"
        r"are (?:in|on|under)|located|belongs? to|owned by)\b"
    ),
}
_ABOUT_USER = re.compile(
    r"(?i)^(?:I(?:'m| am| use| work| live| write| name| code| type| run| have| always| never| usually| tend)|"
    r"my (?:machine|laptop|shell|editor|os|terminal|keyboard|setup|name|style|timezone|time zone|"
    r"location|home|dotfiles|workflow|habit))\b"
)
_ALL_REPOS = re.compile(
    r"(?i)\b(?:(?:all|every|any|each) (?:of )?my (?:repos?|repositories|projects?|code(?:bases?)?|work)|"
    r"every (?:repo|repository|project) I|across (?:all )?(?:my )?(?:repos|projects)|"
    r"wherever I|whatever (?:the )?(?:repo|project)|not (?:just|only) (?:here|this (?:repo|project))|"
    r"in general|globally|for me everywhere|all repos|everywhere I)\b"
)
_THIS_CODEBASE = re.compile(
    r"(?i)\b(?:(?:in|across|throughout) (?:this|the|our) (?:codebase|repo|repository|project|app)|"
    r"everywhere in (?:this|the|our)|in here|this repo)\b"
)
# Structure, not vocabulary: how a sentence is built says more across voices than its nouns.
_IMPERATIVE = frozenset(
    """use keep put run add write prefer avoid make start end name always never don't dont do
stick default stay prefix suffix wrap sort pin ask check commit push deploy test format lint document place store
call import include return log target stop""".split()
)
_SUBJECT = {
    "i": "i",
    "we": "we",
    "you": "you",
    "let's": "we",
    "our": "we",
    "my": "i",
    "your": "you",
}
_MODAL = re.compile(
    r"(?i)\b(must|should|need(?:s)? to|ha(?:ve|s) to|shall|may not|can't|cannot|will|would|could|might)\b"
)
_ONE_OFF = re.compile(
    r"(?i)\b(?:this (?:file|function|test|line|bug|change|commit|branch|ticket|issue|method|class)|"
    r"the (?:bug|error|failure|crash) (?:in|at|on)|(?:in|for) (?:this|your) (?:answer|reply|response|turn)|"
    r"(?:once|one more time|again|instead this time))\b"
)
_SECOND_PERSON = re.compile(
    r"(?i)\b(?:you(?:'ll|'re| will| are| can| might)|your (?:career|team|role|first|growth|skills))\b"
)
_PROPOSAL = re.compile(
    r"(?i)\b(?:I could|I can|I'd suggest|we could|one option|want me to|shall I|if you want|going forward I)\b"
)


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
    strength: float = (
        0.0  # the rules' own confidence in the candidate (0: the rules did not propose it)
    )
    third_look: bool = False  # no rule judged it: only the scorer reads it (third_look.py)


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
    return (
        "0"
        if n == 0
        else "1"
        if n == 1
        else "2"
        if n == 2
        else "3-4"
        if n <= 4
        else "5-8"
        if n <= 8
        else "9+"
    )


def sentence_features(sentence: str, context: Context, *, chars: bool = True) -> list[str]:
    toks = tokens(sentence)
    feats = [f"w:{t}" for t in toks]
    padded = ["<s>", *toks, "</s>"]
    feats += [f"b:{a}_{b}" for a, b in zip(padded, padded[1:], strict=False)]
    if chars:
        for t in toks:
            if len(t) > 3 and t[0] != "<":
                word = f"^{t}$"
                feats += [f"c:{word[i : i + 4]}" for i in range(len(word) - 3)]
    words = [t for t in toks if t[0].isalnum() or t[0] == "<"]
    if words:
        feats.append(f"f:{words[0]}")
        feats.append(f"f2:{'_'.join(words[:2])}")
        if words[0] in _PRONOUN_START or typed_demonstrative(words[0]):
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
    feats += structure_features(sentence, words)
    feats += meaning_features(sentence)
    feats += context_features(context)
    return feats


@lru_cache(maxsize=4096)
def typed_demonstrative(word: str) -> bool:
    """`word` is "this"/"that"/"these"/"those"/"they" with one typo."""
    if not 3 <= len(word) <= 6 or word in _REAL_WORDS or not word.isalpha():
        return False
    return any(_one_edit(word, target) for target in _DEMONSTRATIVES)


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def structure_features(sentence: str, words: list[str]) -> list[str]:
    """Mood, subject, modality, one-off and time markers: what carries across phrasings."""
    feats = []
    if words:
        first = words[0]
        if first in _IMPERATIVE:
            feats.append("st:imperative")
        feats.append(f"st:subject-{_SUBJECT.get(first, 'other')}")
    feats += [f"st:modal-{m.split()[0].lower()}" for m in dict.fromkeys(_MODAL.findall(sentence))]
    if _ONE_OFF.search(sentence):
        feats.append("st:one-off")
    if _MESSAGE_CUES["time"].search(sentence):
        feats.append("st:time-limited")
    if _SECOND_PERSON.search(sentence):
        feats.append("st:about-you")
    if any(t in ("<code>", "<path>") for t in words) or re.search(
        r"'[^'\s]{1,30}'|\w+\(\)|--\w", sentence
    ):
        feats.append("st:code-token")
    return feats


def meaning_features(sentence: str) -> list[str]:
    feats = [f"k:{kind}" for kind, cue in _MEANING.items() if cue.search(sentence)]
    if _ABOUT_USER.search(sentence):
        feats.append("g:about-user")
    if _ALL_REPOS.search(sentence):
        feats.append("g:all-repos")
    if _THIS_CODEBASE.search(sentence):
        feats.append("g:this-codebase")
    return feats


def context_features(context: Context) -> list[str]:
    feats = [f"r:{name}" for name in context.rules]
    feats += [f"rs:{name.split('.', 1)[0]}" for name in context.rules]
    if not context.rules:
        feats.append("r:none")
    # The rules' strength as a prior: a strong explicit rule starts high, a weak guess low.
    feats.append(
        "strength:none"
        if context.strength <= 0
        else f"strength:{min(9, int(context.strength * 10))}"
    )
    position = (
        "only"
        if context.count <= 1
        else "first"
        if context.index == 0
        else ("last" if context.index == context.count - 1 else "middle")
    )
    feats.append(f"pos:{position}")
    feats.append(f"msg:{_bucket(context.count)}")
    feats += message_features(context.message, context.previous_assistant)
    if context.adopted:
        feats.append("adopted")
    if context.third_look:
        feats.append("look:third")
    return feats


@lru_cache(maxsize=16)
def message_features(message: str, previous_assistant: str) -> tuple[str, ...]:
    """Cues of the whole message and the turn before it: read once per message, not per sentence."""
    feats = [f"m:{name}" for name, cue in _MESSAGE_CUES.items() if cue.search(message)]
    if _ALL_REPOS.search(message):
        feats.append("m:all-repos")
    if previous_assistant:
        feats.append("prev:any")
        if _PROPOSAL.search(previous_assistant):
            feats.append("prev:proposal")
    return tuple(feats)


def hashed(features: Iterable[str]) -> dict[int, float]:
    """Feature name → bucket (crc32, stable across processes), counts summed."""
    out: dict[int, float] = {}
    buckets = _BUCKET_OF
    for name in features:
        index = buckets.get(name)
        if index is None:
            index = bucket(name)
        out[index] = out.get(index, 0.0) + 1.0
    return out


_BUCKET_OF: dict[str, int] = {}  # feature names repeat from sentence to sentence: hash each once


def bucket(name: str) -> int:
    """The bucket of one feature name (remembered, bounded)."""
    index = _BUCKET_OF.get(name)
    if index is None:
        if len(_BUCKET_OF) >= 200_000:
            _BUCKET_OF.clear()
        index = _BUCKET_OF[name] = crc32(name.encode()) & (BUCKETS - 1)
    return index
