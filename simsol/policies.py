"""Player policies as data: a named configuration compiled to one float64 array the kernels read.

A policy only ever sees the list of legal moves, which the games compute from visible cards, and
the visible shape of the position (how many cards lie face down, never which), so no policy can
read a face-down card or the order of the stock — except ``peeking`` and ``solver``, which
see every card and are labelled so in every policy id they appear in.

Built in, for every game:

* ``random`` — uniform over all legal moves (a baseline);
* ``greedy`` — the first legal move in the game's priority order over kinds of move (of
  several of one kind, the first listed, or the best by the game's one tie feature);
* ``heuristic`` — the highest score: a weight per kind of move (by default the greedy order,
  far apart) plus weighted features of the move (turns a face-down card, empties a pile, how many
  face-down cards lie in the source pile, ...); ties broken at random;
* ``lookahead`` — samples the unseen cards ``samples`` times and plays every candidate out with
  the heuristic for ``depth`` moves in each sampled world, picking the best on average;
* ``peeking`` — the same search on the real cards (it sees every card: what hidden information
  is worth to a shallow search; not an upper bound on skill, the solver is);
* ``solver`` — the exact solver (engine/solver.py): it sees every card and searches the whole
  game, so each deal is solvable (its line played), unsolvable or unknown (budget spent);
* ``tuned`` — for a game that has them, the weights ``simsol tune`` found for it, shipped in
  ``simsol/tuned.toml``: a ``[GAME]`` table tuned on its book rules, and a ``["GAME:PRESET"]``
  table for each preset tuned on its own; under a preset ``tuned`` plays that preset's table
  where there is one, else the book's (ids ``tuned:PRESET@vN`` and ``tuned@vN``); a game without
  a table has no ``tuned``.

Users define their own in a TOML file (``[policies.NAME]`` tables with ``base = "heuristic"``
and any of the settings) or on the command line (``--policy-opt weight.reveal=3``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from simsol.engine.choice import P_MODE
from simsol.engine.layout import (
    NEVER,
    NO_FEATURE,
    P_FEATURES,
    P_KERNEL,
    P_OWN,
    P_PLANS,
    P_PRIORITY,
)
from simsol.players import BASES, FEATURE_NAMES, Base, work_for
from simsol.rules import SimsolError, read_toml, suggest, unknown

KIND_GAP = 100.0  # heuristic kind weights: far enough apart that features only break ties
SOLVER_BASE = "solver"  # its settings may have a game's own defaults (SOLVER_DEFAULTS)
TIES_BY = "ties_by"  # greedy's tie rule: a feature, each game's default its GREEDY_TIES


@dataclass(frozen=True)
class PolicyConfig:
    """Everything that defines a player; ``order`` and ``kind_weights`` default to the game's.

    ``values`` holds the base's own settings (``simsol.players``), the defaults left out."""

    name: str
    base: str
    doc: str = ""
    order: tuple[str, ...] = ()  # kinds played, best first (empty: the game's greedy order)
    weights: dict = field(default_factory=dict)  # feature -> weight (weighted bases)
    kind_weights: dict = field(default_factory=dict)  # kind -> weight, added to the order's
    values: dict = field(default_factory=dict)  # the base's own settings
    off: tuple[str, ...] = ()  # kinds the player never plays (``kind.NAME=never``)
    stamp: str = ""  # put after the name in ids: the shipped tuned weights' version ("@v2")

    @property
    def player(self) -> Base:
        return BASES[self.base]

    @property
    def sees_hidden(self) -> bool:
        return self.player.sees_hidden or any(
            setting.peeks and bool(self.value(setting.name)) for setting in self.player.settings)

    def value(self, name: str):
        """A setting of the base: the configured value or the declared default."""
        setting = self.player.setting(name)
        return self.values.get(name, setting.default if setting else None)

    def settings(self) -> dict:
        """The settings that matter for this base (for ids and listings)."""
        out: dict = {}
        if self.order:
            out["order"] = ",".join(self.order)
        out |= {f"kind.{kind}": "never" for kind in sorted(self.off)}
        if self.player.weighted:
            out |= {f"weight.{k}": v for k, v in sorted(self.weights.items())}
            out |= {f"kind.{k}": v for k, v in sorted(self.kind_weights.items())}
        for setting in self.player.settings:
            value = self.value(setting.name)
            if not setting.flag or value != setting.default:  # a flag: only when changed
                out[setting.name] = value
        return out


DEFAULT_WEIGHTS = {"reveal": 5.0, "hidden_under": 1.0, "empties": 2.0, "source_length": 0.1}

BUILT_IN = {
    "random": PolicyConfig("random", "random", "uniform over all legal moves (a baseline)"),
    "greedy": PolicyConfig("greedy", "greedy",
                           "the first legal move in a fixed priority order over move kinds "
                           "(of several of one kind, the first listed or the one the game's tie "
                           "rule, ties_by, rates highest)"),
    "heuristic": PolicyConfig("heuristic", "heuristic",
                              "the greedy order, ties broken by what a move uncovers, empties and "
                              "how many hidden cards its pile holds", weights=DEFAULT_WEIGHTS,
                              values={"ties": "random"}),
    "lookahead": PolicyConfig("lookahead", "lookahead",
                              "samples the unseen cards, plays each candidate out with the "
                              "heuristic, picks the best on average", weights=DEFAULT_WEIGHTS,
                              values={"ties": "random"}),
    "peeking": PolicyConfig("peeking", "lookahead",
                            "the look-ahead on the real hidden cards: it sees every face-down "
                            "card (a shallow search, not an upper bound: the solver is)",
                            weights=DEFAULT_WEIGHTS,
                            values={"ties": "random", "sees_hidden": True, "samples": 1}),
    "hop": PolicyConfig("hop", "hop",
                        "hindsight optimisation: deals the unseen cards at random several "
                        "times, judges each candidate move by the solver in every such world, "
                        "plays the one that wins most", weights=DEFAULT_WEIGHTS),
    "solver": PolicyConfig("solver", "solver",
                           "UPPER BOUND: an exact search that sees every card; each deal "
                           "solvable (its winning line played), unsolvable or unknown (budget "
                           "spent)"),
}
POLICY_DOCS = {name: config.doc for name, config in BUILT_IN.items()}
# The policies every game's contract test plays (the search ones are slow, so fewer deals).
FAST_POLICIES = tuple(name for name, config in BUILT_IN.items() if not config.player.searching)

TUNED = "tuned"  # the built-in policy that reads a game's shipped tuned weights
TUNED_FILE = Path(__file__).with_name("tuned.toml")
# What a tuned.toml table records beside the policy settings: how it was made.
TUNED_META = ("version", "command", "rules", "trained", "holdout", "note")


@dataclass(frozen=True)
class Policy:
    """A compiled policy: its configuration and the array the kernels read."""

    config: PolicyConfig
    array: np.ndarray
    reference: PolicyConfig | None = None  # what the id lists changes from (None: the built-in)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def kernel(self) -> str:
        return self.config.player.kernel

    def make_work(self, game):
        """The loop's scratch space for this policy, made once per batch of deals (every
        kernel's, its own with room: ``players.work_for``)."""
        return work_for(game, self.config.player, self.array)

    @property
    def id(self) -> str:
        """The name, the settings changed from the built-in one, and the upper-bound label."""
        base = self.reference or BUILT_IN.get(self.config.name)
        changed = {k: v for k, v in self.config.settings().items()
                   if base is None or base.settings().get(k) != v}
        text = self.config.name + self.config.stamp
        if changed:
            text += "[" + ",".join(f"{k}={v}" for k, v in changed.items()) + "]"
        if self.config.sees_hidden:
            text += "(sees-hidden-cards)"
        return text


def parse_value(text: str):
    value = str(text).strip()
    low = value.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return float(value) if any(c in value for c in ".eE") else int(value)
    except ValueError:
        return value


def setting_names(player: Base) -> list[str]:
    """What ``--policy-opt`` accepts for a base."""
    names = (["order"] if player.ordered else []) + ["kind.KIND=never"]
    if player.weighted:
        names += ["weight.FEATURE", "kind.KIND"]
    return names + [s.name for s in player.settings]


def with_options(config: PolicyConfig, options: dict) -> PolicyConfig:
    """Apply ``weight.NAME=…``, ``kind.NAME=…``, ``order=a,b`` (or ``a > b``, as ``simsol
    policies`` prints it) and the base's own settings, each checked against what the base reads,
    to a configuration: a setting the base does not read is refused."""
    player = config.player
    weights = dict(config.weights)
    kind_weights = dict(config.kind_weights)
    values = dict(config.values)
    off = set(config.off)
    changes: dict = {}
    for key, raw in options.items():
        value = parse_value(raw) if isinstance(raw, str) else raw
        prefix = key.split(".", 1)[0] + "." if "." in key else key
        if key == "doc":
            changes["doc"] = str(value)
        elif prefix == "kind." and str(value).lower() in ("never", "off"):
            off.add(key.split(".", 1)[1])
        elif prefix == "weight." and player.weighted:
            feature = key.split(".", 1)[1]
            if feature not in every_feature():
                raise unknown("policy feature", feature, every_feature())
            weights[feature] = _number(key, value)
        elif prefix == "kind." and player.weighted:
            kind_weights[key.split(".", 1)[1]] = _number(key, value)
        elif key == "order" and player.ordered:
            items = value if isinstance(value, list) else re.split(r"[,>]", str(value))
            changes["order"] = tuple(item.strip() for item in items if item.strip())
        elif player.setting(key) is not None:
            values[key] = check_setting(player.setting(key), raw, value)
        else:
            raise refused(config, key)
    return replace(config, weights=weights, kind_weights=kind_weights, values=values,
                   off=tuple(sorted(off)), **changes)


def refused(config: PolicyConfig, key: str) -> SimsolError:
    """The error for a setting ``config``'s base does not read: one that does nothing for this
    player (another base reads it), or one no player has."""
    allowed = setting_names(config.player)
    some_base_reads = {name.split(".")[0] for base in BASES.values()
                       for name in setting_names(base)}
    if key.split(".")[0] in some_base_reads:
        return SimsolError(f"policy setting {key!r} does nothing for {config.name!r} (a "
                           f"{config.base} player, which reads {', '.join(allowed) or 'none'})")
    return SimsolError(f"unknown policy setting {key!r}{suggest(key, allowed)}; allowed: "
                       f"{', '.join(allowed)}")


def check_setting(setting, raw, value):
    """``value`` if the setting allows it, else a one-line error saying what it allows."""
    if setting.feature:
        if value != NO_FEATURE and value not in every_feature():
            raise unknown(f"feature for {setting.name}", value, (NO_FEATURE,) + every_feature())
        ok = True
    elif setting.choices:
        ok = value in setting.choices
    elif setting.flag:
        ok = isinstance(value, bool)
    elif setting.number:
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
              and (setting.low is None or setting.low <= value <= setting.high))
    else:
        ok = (isinstance(value, int) and not isinstance(value, bool)
              and setting.low <= value <= setting.high)
    if not ok:
        raise SimsolError(f"bad policy setting {setting.name}={raw!r}; allowed: "
                          f"{setting.allowed()}")
    return value


def _number(key: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SimsolError(f"policy setting {key} must be a number, got {value!r}")
    return float(value)


def load_policy_file(path: str | Path) -> dict[str, PolicyConfig]:
    """User policies from TOML: ``[policies.NAME]`` with ``base`` and any settings."""
    path = Path(path)
    data = read_toml(path, "policy file")
    tables = data.get("policies")
    if not isinstance(tables, dict) or not tables:
        raise SimsolError(f"{path}: write policies as [policies.NAME] tables with a 'base'")
    return {name: config_from_table(name, table, f"{path}: policy {name!r}")
            for name, table in tables.items()}


def config_from_table(name: str, table, where: str) -> PolicyConfig:
    """A policy from one TOML table (``base`` and settings, ``weight = { reveal = 3 }``
    style tables allowed); ``where`` starts every error message."""
    if not isinstance(table, dict):
        raise SimsolError(f"{where} = {table!r} is not a table; write each policy as a table "
                          "with a 'base'")
    table = dict(table)
    base = table.pop("base", None)
    if base not in BASES and base not in BUILT_IN:
        raise SimsolError(f"{where} needs base = one of {', '.join(BASES)} (or a built-in "
                          "policy)")
    start = BUILT_IN[base] if base in BUILT_IN else PolicyConfig(name, base)
    flat = {}
    for key, value in table.items():
        if isinstance(value, dict):  # weight = { reveal = 3 } style
            prefix = {"weight": "weight.", "weights": "weight.", "kind": "kind."}.get(key)
            if prefix is None:
                raise unknown(f"policy setting in {name}", key, ["weight", "kind"])
            flat |= {prefix + k: v for k, v in value.items()}
        else:
            flat[key] = value
    return replace(with_options(start, flat), name=name)


def tuned_key(game_name: str, preset: str | None = None) -> str:
    """The table name of a game's shipped tuned weights for ``preset``: ``GAME`` for its book
    rules, ``"GAME:PRESET"`` for another preset (the start of that preset's rules id)."""
    return game_name if preset in (None, "book") else f"{game_name}:{preset}"


def tuned_tables(path: str | Path | None = None) -> dict[str, dict]:
    """Every table of the shipped tuned weights (``TUNED_FILE``) by name."""
    path = Path(path) if path is not None else TUNED_FILE
    if not path.exists():
        return {}
    return {key: dict(table) for key, table in read_toml(path, "tuned-weights file").items()
            if isinstance(table, dict)}


def tuned_table(game_name: str, path: str | Path | None = None,
                preset: str | None = None) -> dict | None:
    """The table of the shipped tuned weights for ``game_name`` under ``preset`` (the book's
    ``[GAME]`` by default), or None; no fallback to the book table (``tuned_config`` has it)."""
    return tuned_tables(path).get(tuned_key(game_name, preset))


def tuned_presets(game, path: str | Path | None = None) -> tuple[str, ...]:
    """The presets of ``game`` with a shipped tuned table of their own, in the game's order."""
    tables = tuned_tables(path)
    return tuple(preset for preset in game.presets if tuned_key(game.name, preset) in tables)


def tuned_config(game, path: str | Path | None = None,
                 preset: str | None = None) -> PolicyConfig | None:
    """The ``tuned`` policy for ``game`` under ``preset``: the preset's own table where one is
    shipped, else the book table (weights tuned on the book's rules, played under others), else
    None.  The id says which table: ``tuned@vN`` for the book's, ``tuned:PRESET@vN`` for a
    preset's (the store stamps policy ids into its cells, so the two never mix)."""
    own = preset not in (None, "book") and tuned_table(game.name, path, preset) is not None
    key = tuned_key(game.name, preset if own else None)
    table = tuned_tables(path).get(key)
    if table is None:
        return None
    meta = {name: table.pop(name) for name in TUNED_META if name in table}
    where = f"{path or TUNED_FILE}: [{key}]"
    config = config_from_table(TUNED, table, where)
    version = meta.get("version")
    doc = (f"the weights simsol tune found for {game.name}"
           + (f" under {meta['rules']}" if meta.get("rules") else "")
           + f" from {table.get('base')} (its {preset if own else 'book'} table in "
           "simsol/tuned.toml, which says how)")
    stamp = (f":{preset}" if own else "") + (f"@v{version}" if version is not None else "")
    return replace(config, doc=doc, stamp=stamp)


def game_policies(game, preset: str | None = None) -> dict[str, PolicyConfig]:
    """The built-in policies for ``game``: ``BUILT_IN``, and ``tuned`` where it has weights
    (under ``preset``: its own table, else the book's)."""
    tuned = tuned_config(game, preset=preset)
    return BUILT_IN | ({TUNED: tuned} if tuned is not None else {})


def no_tuned_weights(game) -> SimsolError:
    return SimsolError(f"no tuned weights for {game.name} yet; run 'simsol tune {game.name} "
                       "--ship' to make them (or use heuristic)")


def every_feature() -> tuple[str, ...]:
    """The features some game's heuristic weighs: the shared ones, then every game's own."""
    from simsol.games import game_names, get_game
    names = list(FEATURE_NAMES)
    for game_name in game_names():
        names += [name for name in get_game(game_name).feature_names if name not in names]
    return tuple(names)


def full_order(order, kinds, off=()) -> tuple[str, ...]:
    """``order`` followed by every other kind of the game, less the ones switched off: a player
    plays every legal move unless told not to (the kinds left out of an order come last)."""
    return tuple(k for k in tuple(order) + tuple(k for k in kinds if k not in order)
                 if k not in off)


def compile_policy(game, config: PolicyConfig) -> np.ndarray:
    """The array the kernels read, for ``game``'s move kinds (layout: engine/layout.py)."""
    player = config.player
    kinds = game.move_kinds
    order = config.order or game.greedy_order
    for kind in list(order) + list(config.kind_weights) + list(config.off):
        if kind not in kinds:
            raise unknown(f"move kind for {game.name}", kind, kinds)
    array = np.zeros(P_PRIORITY + len(kinds), dtype=np.float64)
    array[P_MODE] = player.mode
    array[P_PLANS] = player.plans_lines
    array[P_KERNEL] = player.kernel_index
    features = game.feature_names
    for feature in config.weights:
        if feature not in features:
            raise unknown(f"policy feature for {game.name}", feature, features)
    for i, feature in enumerate(features):
        array[P_FEATURES + i] = config.weights.get(feature, 0.0)
    for slot, setting in enumerate(player.settings, start=P_OWN):
        value = config.value(setting.name)
        array[slot] = setting.encode(value)
        if setting.feature and value != NO_FEATURE:  # the one feature it rates, weighted 1
            if value not in features:
                raise unknown(f"feature for {setting.name} in {game.name}", value,
                              (NO_FEATURE,) + features)
            array[P_FEATURES + features.index(value)] = 1.0
    priorities = array[P_PRIORITY:]
    if not player.ordered:
        priorities[:] = 0.0
        for kind in config.off:
            priorities[kinds.index(kind)] = NEVER
        return array
    priorities[:] = NEVER
    order = full_order(order, kinds, config.off)
    for rank, kind in enumerate(order):
        index = kinds.index(kind)
        if not player.weighted:
            priorities[index] = rank
        else:  # a score: earlier kinds weigh more, by far
            priorities[index] = KIND_GAP * (len(order) - rank) + config.kind_weights.get(kind, 0.0)
    return array


def build_policy(game, name: str, options: dict | None = None,
                 extra: dict[str, PolicyConfig] | None = None,
                 preset: str | None = None) -> Policy:
    """The compiled policy ``name`` (built in, ``tuned`` where ``game`` has shipped weights, or
    from ``extra``) with ``options`` applied; ``preset`` (default the book's) chooses the tuned
    table."""
    extra = extra or {}
    if name == TUNED and name not in extra:
        shipped = tuned_config(game, preset=preset)
        if shipped is None:
            raise no_tuned_weights(game)
        config = with_options(shipped, options) if options else shipped
        return Policy(config, compile_policy(game, config), reference=shipped)
    known = BUILT_IN | extra
    if name not in known:
        raise unknown("policy", name, list(BUILT_IN) + [TUNED] + list(extra))
    if name in extra:  # a user's policy: its id lists every setting
        config = with_options(extra[name], options) if options else extra[name]
        return Policy(config, compile_policy(game, config))
    start = for_game(game, BUILT_IN[name])
    config = with_options(start, options) if options else start
    return Policy(config, compile_policy(game, config), reference=start)


def for_game(game, config: PolicyConfig) -> PolicyConfig:
    """A built-in policy with the game's own defaults: greedy's tie rule (``GREEDY_TIES``),
    lookahead's order of kinds (``LOOKAHEAD_ORDER``) and a weighted policy's weights
    (``HEURISTIC_WEIGHTS`` and ``HEURISTIC_KINDS`` in the game's module: where the shared
    defaults mislead, such as preferring the longer source pile in Grandma's Patience, or where
    a good player holds a kind of move back, such as Klondike's cards to the foundations that a
    tableau card may still want); the exact solver's settings (``SOLVER_DEFAULTS``); the id
    lists changes from these, not from the shared ones."""
    if config.base == SOLVER_BASE and game.solver_defaults:
        return replace(config, values={**config.values, **game.solver_defaults})
    if config.player.setting(TIES_BY) is not None and game.greedy_ties != NO_FEATURE:
        return replace(config, values={**config.values, TIES_BY: game.greedy_ties})
    if config.player.rolls_out and game.lookahead_order and not config.order:
        config = replace(config, order=game.lookahead_order)
    if not config.player.weighted or not (game.heuristic_weights or game.heuristic_kinds):
        return config
    return replace(config, weights={**config.weights, **game.heuristic_weights},
                   kind_weights={**config.kind_weights, **game.heuristic_kinds})


def policy_summary(game, name: str, extra: dict[str, PolicyConfig] | None = None,
                   preset: str | None = None) -> str:
    """One line: the policy, what it does, and its settings for ``game`` (under ``preset``)."""
    config = (game_policies(game, preset) | (extra or {}))[name]
    if name in BUILT_IN and name not in (extra or {}):
        config = for_game(game, config)
    settings = config.settings()
    if config.player.ordered:
        order = config.order or game.greedy_order
        settings = {"order": " > ".join(order)} | {k: v for k, v in settings.items()
                                                    if k != "order"}
    text = ", ".join(f"{k}={v}" for k, v in settings.items())
    return f"{name} ({config.base}): {config.doc}" + (f" [{text}]" if text else "")
