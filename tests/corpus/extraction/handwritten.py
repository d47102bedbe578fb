"""Reads handwritten.txt, the hand-written part of the corpus, into corpus records.

    ## <id> <host> <workspace> <voice>
    < the previous assistant turn (optional, one line)
    the message, any number of lines
    = <kind> <scope> <polarity> [adopted] | <evidence: words of the message> | <statement>

A message with no `=` line holds no durable statement.
"""

from __future__ import annotations

from pathlib import Path


def read_handwritten(path: Path) -> list[dict]:
    messages: list[dict] = []
    current: dict | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.startswith("## "):
            ident, host, workspace, voice = raw[3:].split()
            current = {
                "id": ident,
                "group": ident,
                "host": host,
                "workspace": workspace,
                "voice": voice,
                "previous_assistant": "",
                "text": [],
                "labels": [],
            }
            messages.append(current)
        elif current is None or (not raw.strip() and not current["text"]):
            continue
        elif raw.startswith("< "):
            current["previous_assistant"] = raw[2:].strip()
        elif raw.startswith("= "):
            head, evidence, statement = (part.strip() for part in raw[2:].split("|"))
            kind, scope, polarity, *flags = head.split()
            current["labels"].append(
                {
                    "statement": statement,
                    "evidence": evidence,
                    "kind": kind,
                    "scope": scope,
                    "polarity": polarity,
                    "adopted": "adopted" in flags,
                }
            )
        else:
            current["text"].append(raw)
    for message in messages:
        message["text"] = "\n".join(message["text"]).strip()
    return messages
