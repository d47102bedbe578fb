"""memvet's own configuration files (config.toml's sections, policy.toml) read into pydantic
models, with one error format everywhere: the file, the key, and what was expected —
`<file>: <key> must be <expected>`, or `<file>: unknown <what> <key>; one of <expected>` — as a
ConfigError (exit 2) whose JSON carries `file`, `key` and `expected`.

A model states what each key expects in its validators (`ValueError(<expected>)`) or in the
field's `description`; `validated` turns pydantic's first complaint into that one error. The
hook's `[hook]` read stays in hook_reply.py, standard library only.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, TypeVar

from memvet.store.errors import UsageError
from pydantic import BaseModel, ValidationError

Model = TypeVar("Model", bound=BaseModel)


class ConfigError(UsageError):
    """A config or policy file memvet cannot use. Names the file and the key."""

    code = "config_invalid"


def config_error(file: object, key: str, expected: str) -> ConfigError:
    return ConfigError(
        f"{file}: {key} must be {expected}", file=str(file), key=key, expected=expected
    )


def unknown_key_error(
    file: object, keys: list[str], allowed: list[str], what: str = "key(s)"
) -> ConfigError:
    listed = ", ".join(sorted(keys))
    expected = f"one of {', '.join(allowed)}"
    return ConfigError(
        f"{file}: unknown {what} {listed}; {expected}",
        file=str(file),
        key=listed,
        expected=expected,
    )


def read_toml(path: Path) -> dict[str, Any]:
    """The file's tables; {} when it does not exist."""
    if not path.is_file():
        return {}
    return parse_toml(_read(path), path)


def parse_toml(text: str, file: object) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML ({exc})", file=str(file)) from None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it ({exc})", file=str(path)) from None


def table(doc: dict[str, Any], name: str, file: object) -> dict[str, Any]:
    """`[name]` of a parsed file ({} when absent); anything but a table is an error."""
    value = doc.get(name, {})
    if not isinstance(value, dict):
        raise config_error(file, f"[{name}]", "a table")
    return value


def validated(model: type[Model], data: dict[str, Any], file: object, prefix: str = "") -> Model:
    """`model` from `data`, or the ConfigError of the first key pydantic refused."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(part) for part in first["loc"]]
        key = prefix + ".".join(loc)
        raise config_error(file, key, _expected(model, loc, first)) from None


def _expected(model: type[BaseModel], loc: list[str], error: Any) -> str:
    if error["type"] == "value_error":  # a validator said what it expects
        return str(error["ctx"]["error"])
    field = model.model_fields.get(loc[0]) if loc else None
    if field is not None and field.description:
        return field.description
    return str(error["msg"]).removeprefix("Input should be ").rstrip(".")
