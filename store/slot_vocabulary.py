"""The words slots.py needs beyond lexicon.py to tell one slot from another (issue 13): one name
for one thing said several ways, the slots a few familiar phrasings name, the families whose
members are rival values of one slot, and the parts of a project that hold a value each.

Kept apart from lexicon.py, which recall's matching also reads: these decide only which memories
share a slot and what values they assert. Each table is short and general (what users say about
any project), never a phrase taken from one evaluation pair.
"""

from __future__ import annotations

import re

# One spelling for one thing, applied to a statement before its subject and values are read:
# "Google Cloud" and "gcp" are one value, ":9090" is a port, "prod" is production.
REWRITES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"\bgoogle cloud(?: platform)?\b", "gcp"),
        (r"\bamazon web services\b", "aws"),
        (r"\b(?:aws )?secrets manager\b", "secrets-manager"),
        (r"\bhashicorp vault\b", "vault"),
        (r"\bpostgresql\b", "postgres"),
        (r"\bk8s\b", "kubernetes"),
        (r"(?<![\w/.:-]):(\d{2,5})\b", r"port \1"),
        (r"(?<![\w-])prod(?![\w-])", "production"),
        (r"(?<![\w-])(?:settings|configuration)(?![\w.-])", "config"),
        (r"\b(?:is|are|gets|get) deployed\b", "deploys"),
        (r"^(?:we )?host (.+?) on\b", r"\1 is hosted on"),
        # Where the logs go, said from the sender's side ("we ship our logs to Loki").
        (r"^(?:we )?(?:send|ship|forward|write) (?:our |the |all )?logs to\b", "logs go to"),
        (r"^(?:the )?(?:app|application|service) logs to\b", "logs go to"),
        # "It is fine to X" says X is fine: the permission is not what it is about.
        (r"^it(?:'s| is) (?:fine|ok|okay|allowed) to (.+)$", r"\1 is fine"),
        # "ruff replaced pylint": pylint is the old value, as in "moved from pylint to ruff".
        (r"^(\S+) replaced (\S+)\b", r"switched from \2 to \1"),
    )
)

# Familiar phrasings of a slot, at the start of a statement (a qualifier before them — "docs-only
# PRs need one approval" — keeps the statement out of the general slot).
SLOT_CUES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), subject)
    for pattern, subject in (
        (
            r"^(?:the )?(?:default|main|primary) branch (?:is|is called|is named)\b",
            "default branch",
        ),
        (
            r"^(?:the )?sessions? (?:timeout|time out|times out|expire|expires|expiry)\b",
            "session timeout",
        ),
        (r"^(?:the )?(?:max(?:imum)? )?line length\b", "line length"),
        (
            r"^lines (?:are|may be|must be|can be) (?:at most|up to|limited to|no longer than)\b",
            "line length",
        ),
        (r"^(?:keep |we keep )?\d+ (?:days|weeks|months) of logs\b", "log retention"),
        (r"^(?:the )?logs (?:are|is) (?:retained|kept) for\b", "log retention"),
        (r"^(?:the )?log retention\b", "log retention"),
        (
            r"^(?:every |all |each )?(?:prs?|pull requests?|merge requests?) "
            r"(?:needs?|requires?|must have) (?:at least )?\S+ approvals?\b",
            "pr approvals",
        ),
    )
)

# Families of values that fill one slot (the slot is the family's name): two members are rivals.
FAMILIES: dict[str, tuple[str, ...]] = {
    "cloud-provider": ("aws", "gcp", "azure", "digitalocean", "hetzner"),
    "issue-tracker": ("jira", "linear", "youtrack"),
    "secret-store": ("vault", "secrets-manager", "1password", "doppler"),
}
FAMILY_LABELS = {name: name.replace("-", " ") for name in FAMILIES}

# Words that end a subject's noun phrase or carry no subject (a link verb, a quantifier).
LINK_WORDS = frozenset("everywhere minimum version url base".split())
# Verbs that link a subject to its value as "runs" and "uses" do ("the web app deploys to …").
LINK_VERBS = frozenset("deploys deployed serves served hosted".split())

# Parts of a project that each hold their own value (the frontend's package manager and the
# backend's): two memories placed in different parts both hold, as two environments do.
PARTS = {
    w: w
    for w in """frontend backend web api mobile ios android cli docs server client worker
    tests test app""".split()
} | {"tests": "test"}


def rewritten(text: str) -> str:
    """A case-folded statement with one spelling for each thing (REWRITES)."""
    for pattern, replacement in REWRITES:
        text = pattern.sub(replacement, text)
    return text


def cued_subject(text: str) -> str | None:
    """The slot a familiar phrasing at the start of a rewritten statement names, if any."""
    for pattern, subject in SLOT_CUES:
        if pattern.search(text.lstrip()):
            return subject
    return None
