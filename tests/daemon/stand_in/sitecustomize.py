"""Test-only: a tiny stand-in for `memvet.daemon.pipeline` in daemon subprocesses, installed
only while the real module is absent (PYTHONPATH points here; see conftest.daemon_env)."""

from __future__ import annotations

import importlib.util
import json
import sys
import types


def _install() -> None:
    try:
        if importlib.util.find_spec("memvet.daemon.pipeline") is not None:
            return
    except ImportError:
        return
    from memvet.store import CandidateDraft, Evidence, Scope

    class FilePipeline:
        def __init__(self, host, path, *, rules=None, user="", state=None):  # noqa: ANN001
            self.host, self.path, self.user = host, path, user
            self._state = dict(state or {})

        @property
        def state(self):  # noqa: ANN201
            return self._state

        def feed(self, line, line_no):  # noqa: ANN001, ANN201
            try:
                doc = json.loads(line)
            except ValueError:
                return []
            if not isinstance(doc, dict):
                return []
            text = None
            if doc.get("type") == "user" and isinstance(doc.get("message"), dict):
                self._state["cwd"] = doc.get("cwd", self._state.get("cwd"))
                content = doc["message"].get("content")
                text = content if isinstance(content, str) else None
            elif doc.get("type") == "session_meta":
                self._state["cwd"] = doc.get("payload", {}).get("cwd")
            elif doc.get("type") == "response_item":
                p = doc.get("payload", {})
                if p.get("role") == "user":
                    text = " ".join(c.get("text", "") for c in p.get("content", []))
            if not text or not any(w in text.lower() for w in ("always", "never", "we use")):
                return []
            return [CandidateDraft(
                statement=text.strip(), kind="preference", source_type="explicit_user",
                scope=Scope(user=self.user, workspace=self._state.get("cwd")),
                host=self.host, confidence=0.9, reasons=("stand-in",),
                evidence=Evidence(self.path, line_no, None, None, text[:80]))]

    module = types.ModuleType("memvet.daemon.pipeline")
    module.FilePipeline = FilePipeline
    module.load_rules = lambda path=None: None
    module.HOSTS = ("claude-code", "codex")
    sys.modules["memvet.daemon.pipeline"] = module


_install()
