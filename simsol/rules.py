"""Rule sets as data: typed options, named presets layered on the book default, and rules ids.

A game declares its options once (name, allowed values, default = the book's reading).  A
preset is a few overrides; any other combination can be asked for with ``rules={...}`` in
Python or ``--rule name=value`` on the command line.  The kernels read a rule set as one int64
array in option order (``None`` is stored as -1, a choice as its index), and every result
carries a rules id such as ``klondike:book[draw=1]@r1`` so no number is shown without the rules
that made it.  The ``rN`` is the game's own ``rules_version``, raised whenever a change to that
game's rules code changes its results, so an old number is never taken for a new one.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

UNLIMITED = None


class SimsolError(ValueError):
    """A user error: the message is one line that says what is wrong and what is allowed."""


def suggest(name: str, allowed) -> str:
    """' (did you mean X?)' when a close valid name exists, else ''."""
    close = difflib.get_close_matches(str(name), [str(a) for a in allowed], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown(what: str, name: str, allowed) -> SimsolError:
    allowed = list(allowed)
    listing = ", ".join(str(a) for a in allowed)
    return SimsolError(f"unknown {what} {name!r}{suggest(name, allowed)}; allowed: {listing}")


@dataclass(frozen=True)
class Option:
    """One rule option. ``choices`` for names, ``values`` for integers; ``none_ok`` allows None."""

    name: str
    default: Any
    doc: str
    choices: tuple[str, ...] = ()
    values: tuple[int, ...] = ()
    none_ok: bool = False
    boolean: bool = False

    def allowed(self) -> str:
        if self.boolean:
            return "true or false"
        if self.choices:
            return ", ".join(self.choices)
        parts = [str(v) for v in self.values]
        if self.none_ok:
            parts.append("none (unlimited)")
        return ", ".join(parts)

    def parse(self, value: Any) -> Any:
        """Turn a command-line string or Python value into a valid option value, or raise."""
        text = str(value).strip().lower() if not isinstance(value, (bool, int)) else None
        if self.boolean:
            if isinstance(value, bool):
                return value
            if text in ("true", "on", "yes", "1"):
                return True
            if text in ("false", "off", "no", "0"):
                return False
        elif self.choices:
            if text in self.choices:
                return text
        else:
            if value is None or text in ("none", "unlimited", "inf"):
                if self.none_ok:
                    return None
            else:
                try:
                    number = int(value) if not isinstance(value, bool) else None
                except (TypeError, ValueError):
                    number = None
                if number is not None and number in self.values:
                    return number
        raise SimsolError(
            f"bad value {value!r} for rule option {self.name!r}; allowed: {self.allowed()}"
        )

    def encode(self, value: Any) -> int:
        """The integer a kernel reads for ``value``."""
        if self.boolean:
            return int(bool(value))
        if self.choices:
            return self.choices.index(value)
        return -1 if value is None else int(value)

    def text(self, value: Any) -> str:
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)


@dataclass(frozen=True)
class RuleSet:
    """A complete, validated set of option values for one game."""

    game: str
    preset: str
    values: tuple[tuple[str, Any], ...]
    overrides: tuple[tuple[str, Any], ...] = field(default=())
    version: int = 1  # the game's rules_version

    def __getitem__(self, name: str) -> Any:
        return dict(self.values)[name]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.values)

    @property
    def id(self) -> str:
        """``game:preset[opt=value,...]@rN``: the overrides beyond the preset, sorted."""
        extra = ",".join(f"{k}={_value_text(v)}" for k, v in sorted(self.overrides))
        return f"{self.game}:{self.preset}" + (f"[{extra}]" if extra else "") + f"@r{self.version}"


def _value_text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def build_rules(game, preset: str | None = None, rules: dict | None = None) -> RuleSet:
    """Validate a preset name and overrides against a game's options and presets."""
    preset = preset or "book"
    if preset not in game.presets:
        raise unknown(f"preset for {game.name}", preset, game.presets)
    options = {opt.name: opt for opt in game.options}
    values = {opt.name: opt.default for opt in game.options}
    values.update(game.presets[preset])
    asked = set()
    for name, raw in (rules or {}).items():
        key = str(name).replace("-", "_")
        if key not in options:
            raise unknown(f"rule option for {game.name}", name, options)
        values[key] = options[key].parse(raw)
        asked.add(key)
    base = {opt.name: opt.default for opt in game.options} | dict(game.presets[preset])
    overrides = {key: values[key] for key in asked if values[key] != base[key]}
    game.check_rules(values)
    ordered = tuple((opt.name, values[opt.name]) for opt in game.options)
    return RuleSet(game.name, preset, ordered, tuple(sorted(overrides.items())),
                   game.rules_version)


def encode_rules(game, ruleset: RuleSet) -> np.ndarray:
    """The int64 array a kernel reads, in the game's option order."""
    return np.array(
        [opt.encode(value) for opt, (_, value) in zip(game.options, ruleset.values)],
        dtype=np.int64,
    )


def read_toml(path, what: str) -> dict:
    """A TOML file as a dict, or one line saying why it cannot be read (``what`` names it)."""
    path = Path(path)
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise SimsolError(f"no such {what}: {path}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise SimsolError(f"{path} is not a readable TOML {what}: {error}") from None


def parse_rule_args(items: list[str] | None) -> dict[str, str]:
    """``["draw=1", "redeals=none"]`` -> ``{"draw": "1", "redeals": "none"}``."""
    parsed = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise SimsolError(f"bad --rule {item!r}; write it as NAME=VALUE, e.g. --rule draw=1")
        parsed[name.strip()] = value.strip()
    return parsed
