"""The facade's one-line delegation: `approve = delegate("reservations", Reservations.approve)`
makes `store.approve(...)` call `Reservations.approve(store.reservations, ...)`, with the part's
signature (pyright and help() see it). A non-data descriptor: a test can still replace the
method on one Store instance (`monkeypatch.setattr(store, "ingest", spy)`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")


class Delegated(Generic[P, R]):
    def __init__(self, part: str, method: Callable[Concatenate[Any, P], R]) -> None:
        self.part = part
        self.method = method
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Delegated[P, R]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> Callable[P, R]: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return self.method.__get__(getattr(obj, self.part))  # bound to the part


def delegate(part: str, method: Callable[Concatenate[Any, P], R]) -> Delegated[P, R]:
    return Delegated(part, method)
