"""`json.loads` and `json.dumps` for the no-daemon hook without the `json` package: its decoder
and encoder modules compile four regular expressions at import, which brings in `re` and `enum`
(~4-7 ms of a session-start hook whose own work is a few ms, issue 15). Both functions run the C
accelerator `_json` that the json package itself runs, set up as json's default decoder and
encoder set it up, and give the same results and errors (ValueError for what json refuses);
tests/store/test_hook_json.py compares them on random documents. An interpreter without
`_json` gets the json package. Standard library only, like hook_reply.py.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook ~4 ms
if TYPE_CHECKING:
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - CPython always has it
    _json = None

WHITESPACE = " \t\n\r"  # json.decoder's WHITESPACE pattern, as characters
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Decoding:
    """What `_json.make_scanner` reads of a json.JSONDecoder made with no arguments."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


# typeshed types the context as a JSONDecoder; the scanner reads only these six attributes
_scan = _json.make_scanner(_Decoding()) if _json else None  # pyright: ignore[reportArgumentType]


def _decoded(raw: bytes | bytearray | str) -> str:
    """json.loads's own reading of its input: bytes in the encoding their first bytes say
    (json.detect_encoding: UTF-8 unless a BOM or a NUL says otherwise), a str with a BOM refused."""
    if isinstance(raw, str):
        if raw.startswith("\ufeff"):
            raise ValueError("Unexpected UTF-8 BOM (decode using utf-8-sig)")
        return raw
    raw = bytes(raw)
    if raw[:1] in _MAYBE_NOT_UTF8 or raw[1:2] == b"\0":
        import json  # only for a document that may not be UTF-8

        return raw.decode(json.detect_encoding(raw), "surrogatepass")
    return raw.decode("utf-8", "surrogatepass")


def loads(raw: bytes | bytearray | str) -> Any:
    if _scan is None:  # pragma: no cover
        import json

        return json.loads(raw)
    text = _decoded(raw)
    start = len(text) - len(text.lstrip(WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        raise ValueError("Expecting value") from None
    if text[end:].lstrip(WHITESPACE):
        raise ValueError("Extra data")
    return value


def dumps(value: Any, *, ensure_ascii: bool = True) -> str:
    """json.dumps(value, ensure_ascii=...) with every other argument at its default."""
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(value, ensure_ascii=ensure_ascii)
    if isinstance(value, str):
        return (_json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring)(value)
    encode = _json.make_encoder(
        {},  # markers: circular references are refused, as json's check_circular does
        _unserialisable,
        _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring,
        None,  # indent
        ": ",
        ", ",
        False,  # sort_keys
        False,  # skipkeys
        True,  # allow_nan
    )
    return "".join(encode(value, 0))


def _unserialisable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# First bytes after which json.detect_encoding may read other than UTF-8: a BOM's (EF, FE, FF)
# or a NUL (UTF-16/32 without a BOM; a NUL second byte is tested too).
_MAYBE_NOT_UTF8 = frozenset({b"\0", b"\xef", b"\xfe", b"\xff"})
