"""The workspace a session belongs to. One rule for every component: see memvet.store.workspace."""

from __future__ import annotations

from memvet.store.workspace import resolve_workspace

__all__ = ["resolve_workspace"]
