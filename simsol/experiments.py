"""Experiment specs (TOML): games x presets (or option grids) x policies x deals x seed.

    name = "book_claims"
    description = "..."
    seed = 2026
    deals = 1000000          # per cell
    quick_deals = 2000       # what --quick plays
    chunk_size = 10000       # optional
    [[cells]]
    game = "elevens"
    presets = ["book", "twelve"]            # default "book"; "all" for every preset
    policies = ["greedy", "random"]         # default "greedy" (one name or a list)
    rules = { draw = 1 }                    # optional overrides for every cell of this table
    deals = 20000                           # optional: fewer deals for these (slow) cells
    [[cells]]
    game = "elevens"
    grid = { slots = [9, 12], faces = ["triple", "block"] }   # every combination, on "book"
    policies = ["greedy"]
    [policies.solver-5m]                    # optional: the spec's own policies, as in a
    base = "solver"                         # policy file; cells name them in ``policies``
    nodes = 5000000

Every cell is validated before anything runs, then played into the results store chunk by
chunk (see ``simsol.store``): an interrupted run resumes, a larger ``deals`` extends, a smaller
one plays nothing.  ``name`` names the folder ``results/<name>`` (``results/<name>-quick`` for
``--quick``), so it must be a plain folder name.  Without ``chunk_size`` a cell plays chunks of
10,000 deals (50 for the searching players, 10 for hop, so their progress shows), or the size it was
stored with.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from simsol.backends import check_workers
from simsol.games import get_game
from simsol.players import PLAYERS_VERSION
from simsol.policies import config_from_table
from simsol.rules import SimsolError, build_rules, read_toml, unknown
from simsol.runner import (
    MAX_CHUNK,
    MAX_DEALS,
    Job,
    check_count,
    chunk_starts,
    largest_chunk,
    make_job,
    play_chunks,
    progress_bar,
)
from simsol.store import Cell, Store

SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")

SPEC_KEYS = {"name", "description", "seed", "deals", "quick_deals", "chunk_size", "max_moves",
             "cells", "policies"}
CELL_KEYS = {"game", "presets", "policies", "rules", "grid", "deals"}


@dataclass
class Spec:
    """A validated experiment; ``cell_deals`` holds the cells that play fewer than ``deals``."""

    name: str
    description: str
    seed: int
    deals: int
    quick_deals: int
    chunk_size: int | None
    max_moves: int
    cells: list[Cell]
    source: dict
    skipped: list[str]
    cell_deals: dict[str, int]
    policies: dict  # the spec's own [policies.NAME] tables, as PolicyConfigs

    def deals_for(self, cell: Cell, target: int) -> int:
        return min(target, self.cell_deals.get(cell.id, target))


def _check_keys(table: dict, allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise SimsolError(f"{where}: unknown key {unknown[0]!r}; "
                          f"allowed: {', '.join(sorted(allowed))}")


def load_spec(path: str | Path) -> Spec:
    """Read and validate a spec; every game, preset, option and policy is checked up front."""
    path = Path(path)
    source = read_toml(path, "experiment spec")
    _check_keys(source, SPEC_KEYS, str(path))
    if not isinstance(source.get("cells"), list) or not source["cells"]:
        raise SimsolError(f"{path}: a spec needs at least one [[cells]] table")
    cells: dict[str, Cell] = {}
    skipped: list[str] = []
    cell_deals: dict[str, int] = {}
    own = source.get("policies", {})
    if not isinstance(own, dict):
        raise SimsolError(f"{path}: write the spec's policies as [policies.NAME] tables")
    policies = {name: config_from_table(name, table, f"{path}: policy {name!r}")
                for name, table in own.items()}
    for number, table in enumerate(source["cells"], 1):
        where = f"{path}: cells table {number}"
        _check_keys(table, CELL_KEYS, where)
        if "game" not in table:
            raise SimsolError(f"{where}: 'game' is missing")
        for cell in expand(table, where, skipped):
            job = make_job(cell.game, cell.preset, cell.rules, cell.policy,
                           policies=policies)  # validates
            # Keep only the overrides that change the preset, so equal rules make one cell.
            cell = Cell(cell.game, cell.preset, dict(job.rules.overrides), cell.policy)
            cells.setdefault(cell.id, cell)
            if "deals" in table:
                cell_deals[cell.id] = check_count("deals", table["deals"], 1, MAX_DEALS)
    deals = check_count("deals", source.get("deals", 100_000), 1, MAX_DEALS)
    chunk_size = source.get("chunk_size")
    return Spec(
        name=check_name(source.get("name", path.stem), path),
        description=str(source.get("description", "")),
        seed=check_count("seed", source.get("seed", 0), 0, 2**63 - 1),
        deals=deals,
        quick_deals=check_count("quick_deals", source.get("quick_deals", min(deals, 2000)), 1,
                                MAX_DEALS),
        chunk_size=None if chunk_size is None else check_count("chunk_size", chunk_size, 1,
                                                               MAX_CHUNK),
        max_moves=check_count("max_moves", source.get("max_moves", 5000), 1, 10**7),
        cells=list(cells.values()),
        source=source,
        skipped=skipped,
        cell_deals=cell_deals,
        policies=policies,
    )


def check_name(name, path: Path) -> str:
    """A spec name becomes a folder under ``results/``: refuse one that would leave it."""
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name) or ".." in name:
        raise SimsolError(f"{path}: name {name!r} must be a plain folder name (letters, digits, "
                          "'-', '_' and '.', no '..'): it names the folder results/NAME")
    return name


def names(table: dict, key: str, default: str, where: str) -> list[str]:
    """A cell table's ``presets`` or ``policies``: one name or a list of names."""
    value = table.get(key, [default])
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise SimsolError(f"{where}: {key} must be a name or a list of names, got {value!r}")
    return value


def expand(table: dict, where: str, skipped: list[str]) -> list[Cell]:
    """The cells one [[cells]] table stands for.

    A grid may cross options into combinations the game does not allow (Block Eleven with
    fewer slots than court cards): those are left out and listed in ``skipped`` with the
    game's reason, while a value no option allows is an error.
    """
    game = table["game"]
    get_game(game)
    policies = names(table, "policies", "greedy", where)
    for key in ("rules", "grid"):
        if not isinstance(table.get(key, {}), dict):
            raise SimsolError(f"{where}: {key} must be a table, e.g. {key} = {{ draw = [1, 3] }}")
    base_rules = dict(table.get("rules", {}))
    if "grid" in table:
        if "presets" in table:
            raise SimsolError(f"{where}: give either 'presets' or 'grid', not both")
        options = {option.name: option for option in get_game(game).options}
        grid = {name: values if isinstance(values, list) else [values]
                for name, values in table["grid"].items()}
        for name, values in grid.items():
            if name not in options:
                raise unknown(f"rule option for {game} in {where}", name, options)
            for value in values:
                options[name].parse(value)
        combos = [dict(zip(grid, values)) for values in itertools.product(*grid.values())]
        variants = []
        for combo in combos:
            try:
                build_rules(get_game(game), "book", base_rules | combo)
            except SimsolError as why:
                reading = " ".join(f"{k}={v}" for k, v in combo.items())
                skipped.append(f"{game} {reading}: {why}")
                continue
            variants.append(("book", base_rules | combo))
    else:
        presets = names(table, "presets", "book", where)
        if presets == ["all"]:
            presets = list(get_game(game).presets)
        variants = [(preset, base_rules) for preset in presets]
    return [Cell(game, preset, rules, policy) for preset, rules in variants for policy in policies]


def default_out(spec: Spec, quick: bool = False) -> Path:
    """``results/<name>``; a quick run gets its own ``results/<name>-quick``."""
    return Path("results") / (spec.name + ("-quick" if quick else ""))


def cell_chunk_size(spec: Spec, store: Store, cell: Cell, job: Job) -> int:
    """The spec's chunk size, else the one the cell was stored with, else by its player."""
    if spec.chunk_size is not None:
        return spec.chunk_size
    stored = store.chunk_size_of(cell.id)
    if stored is not None:
        return stored
    return largest_chunk(job.policy)


def missing_chunks(stored: dict[int, int], deals: int, chunk_size: int):
    """The chunks of deals ``0..deals-1`` that no stored chunk covers (made as needed)."""
    for first, count in chunk_starts(0, deals, chunk_size):
        if stored.get(first, 0) < count:
            yield first, count


def deals_missing(stored: dict[int, int], deals: int, chunk_size: int) -> int:
    """How many deals ``missing_chunks`` will play, counted without listing the chunks."""
    covered = sum(min(chunk_size, deals - first) for first, count in stored.items()
                  if first < deals and first % chunk_size == 0
                  and count >= min(chunk_size, deals - first))
    return deals - covered


def only_games(spec: Spec, games: list[str] | None) -> list[Cell]:
    """The spec's cells of ``games`` (all of them for None), refusing a game it does not have."""
    if not games:
        return spec.cells
    have = list(dict.fromkeys(cell.game for cell in spec.cells))
    for game in games:
        if game not in have:
            raise SimsolError(f"--game {game!r}: not in the spec {spec.name!r}; its games: "
                              f"{', '.join(have)}")
    return [cell for cell in spec.cells if cell.game in games]


def run_experiment(spec_path: str | Path, out: str | Path | None = None, quick: bool = False,
                   deals: int | None = None, workers: int | None = None,
                   scheduler: str | None = None, progress: bool = True,
                   games: list[str] | None = None) -> Store:
    """Play every cell of a spec into the results store, skipping chunks already there;
    ``games``: only those games' cells (the spec's others are neither played nor registered,
    so a report on the folder holds what was played).

    The folder is locked for the run (a second run into it is refused with one line); chunks
    are written as they finish, so an interrupted or failed run keeps every finished one.
    """
    spec = load_spec(spec_path)
    cells = only_games(spec, games)
    target = deals if deals is not None else (spec.quick_deals if quick else spec.deals)
    target = check_count("deals", target, 1, MAX_DEALS)
    processes = check_workers(workers, scheduler)
    store = Store(out or default_out(spec, quick))
    with store.writing():
        plan = []
        for cell in cells:
            job = make_job(cell.game, cell.preset, cell.rules, cell.policy, spec.seed,
                           spec.max_moves, policies=spec.policies)
            chunk_size = cell_chunk_size(spec, store, cell, job)
            store.register(cell, job.rules.id, spec.seed, chunk_size, spec.source,
                           player=f"players@{PLAYERS_VERSION} {job.policy.id}")
            plan.append((cell, job, chunk_size, spec.deals_for(cell, target)))
        store.save_manifest()
        stored = {cell.id: store.finished(cell.id) for cell, *_ in plan}
        todo = sum(deals_missing(stored[cell.id], n, size) for cell, _, size, n in plan)
        try:
            with progress_bar(todo, spec.name, progress) as bar:
                for cell, job, chunk_size, n in plan:
                    if not deals_missing(stored[cell.id], n, chunk_size):
                        continue
                    bar.set_description(f"{spec.name}: {cell.id}")
                    play_chunks(job, missing_chunks(stored[cell.id], n, chunk_size), processes,
                                scheduler, bar=bar,
                                on_chunk=lambda first, records, seconds, cell_id=cell.id:
                                store.write_chunk(cell_id, first, records, seconds))
        except (KeyboardInterrupt, SimsolError) as error:
            error.add_note(f"every finished chunk is kept in {store.path}: run again to play "
                           "the rest")
            raise
    return store
