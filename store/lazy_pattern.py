"""A regular expression compiled on first use.

Compiling every pattern is most of what `memvet extract` pays to start, and most are never tried on
a given text: extraction rules the prefilter rules out, redaction detectors whose cheap gate stays
shut. So the packaged extraction rules and the redaction detectors compile when first used. They
are known to compile (tests/daemon/test_declared_words.py, tests/store/test_redaction_lazy.py); a
user's own rule files are still compiled at load, so a bad regex is reported there.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # every command's output passes text_safety.py, which uses this: no typing
if TYPE_CHECKING:
    from typing import Any


class LazyPattern:
    """Stands in for `re.compile(pattern, flags)`: any attribute (`search`, `sub`, `groupindex`,
    …) compiles it, and is then kept on the instance so later look-ups cost what they cost on a
    compiled pattern."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.__dict__["_source"] = (pattern, flags)

    @property
    def source(self) -> str:
        """The pattern as written (reading it compiles nothing)."""
        return self._source[0]

    def compiled(self) -> re.Pattern[str]:
        found = self.__dict__.get("_compiled")
        if found is None:
            found = self.__dict__["_compiled"] = re.compile(*self._source)
        return found

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self.compiled(), name)
        self.__dict__[name] = value  # next time found without __getattr__
        return value

    def __repr__(self) -> str:
        return f"LazyPattern({self._source[0]!r})"
