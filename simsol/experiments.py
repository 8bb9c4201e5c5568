"""Experiment specs (TOML): games x presets (or option grids) x policies x deals x seed.

    name = "book_claims"
    description = "..."
    seed = 2026
    deals = 1000000          # per cell
    quick_deals = 2000       # what --quick plays
    chunk_size = 10000       # optional
    [[cells]]
    game = "elevens"
    presets = ["book", "twelve"]            # default ["book"]; "all" for every preset
    policies = ["greedy", "random"]         # default ["greedy"]
    rules = { draw = 1 }                    # optional overrides for every cell of this table
    deals = 20000                           # optional: fewer deals for these (slow) cells
    [[cells]]
    game = "elevens"
    grid = { slots = [9, 12], faces = ["triple", "block"] }   # every combination, on "book"
    policies = ["greedy"]

Every cell is validated before anything runs, then played into the results store chunk by
chunk (see ``simsol.store``): an interrupted run resumes, a larger ``deals`` extends.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from simsol.games import get_game
from simsol.rules import SimsolError, build_rules, read_toml, unknown
from simsol.runner import DEFAULT_CHUNK, MAX_DEALS, check_count, chunk_starts, make_job, play_chunks
from simsol.store import Cell, Store

SPEC_KEYS = {"name", "description", "seed", "deals", "quick_deals", "chunk_size", "max_moves",
             "cells"}
CELL_KEYS = {"game", "presets", "policies", "rules", "grid", "deals"}


@dataclass
class Spec:
    """A validated experiment; ``cell_deals`` holds the cells that play fewer than ``deals``."""

    name: str
    description: str
    seed: int
    deals: int
    quick_deals: int
    chunk_size: int
    max_moves: int
    cells: list[Cell]
    source: dict
    skipped: list[str]
    cell_deals: dict[str, int]

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
    for number, table in enumerate(source["cells"], 1):
        where = f"{path}: cells table {number}"
        _check_keys(table, CELL_KEYS, where)
        if "game" not in table:
            raise SimsolError(f"{where}: 'game' is missing")
        for cell in expand(table, where, skipped):
            job = make_job(cell.game, cell.preset, cell.rules, cell.policy)  # validates
            # Keep only the overrides that change the preset, so equal rules make one cell.
            cell = Cell(cell.game, cell.preset, dict(job.rules.overrides), cell.policy)
            cells.setdefault(cell.id, cell)
            if "deals" in table:
                cell_deals[cell.id] = check_count("deals", table["deals"], 1, MAX_DEALS)
    deals = check_count("deals", source.get("deals", 100_000), 1, MAX_DEALS)
    return Spec(
        name=str(source.get("name", path.stem)),
        description=str(source.get("description", "")),
        seed=check_count("seed", source.get("seed", 0), 0, 2**63 - 1),
        deals=deals,
        quick_deals=check_count("quick_deals", source.get("quick_deals", min(deals, 2000)), 1,
                                MAX_DEALS),
        chunk_size=check_count("chunk_size", source.get("chunk_size", DEFAULT_CHUNK), 1, MAX_DEALS),
        max_moves=check_count("max_moves", source.get("max_moves", 5000), 1, 10**7),
        cells=list(cells.values()),
        source=source,
        skipped=skipped,
        cell_deals=cell_deals,
    )


def expand(table: dict, where: str, skipped: list[str]) -> list[Cell]:
    """The cells one [[cells]] table stands for.

    A grid may cross options into combinations the game does not allow (Block Eleven with
    fewer slots than court cards): those are left out and listed in ``skipped`` with the
    game's reason, while a value no option allows is an error.
    """
    game = table["game"]
    get_game(game)
    policies = table.get("policies", ["greedy"])
    base_rules = dict(table.get("rules", {}))
    if "grid" in table:
        if "presets" in table:
            raise SimsolError(f"{where}: give either 'presets' or 'grid', not both")
        options = {option.name: option for option in get_game(game).options}
        for name, values in table["grid"].items():
            if name not in options:
                raise unknown(f"rule option for {game} in {where}", name, options)
            for value in values if isinstance(values, list) else [values]:
                options[name].parse(value)
        names = list(table["grid"])
        combos = [dict(zip(names, values))
                  for values in itertools.product(*(table["grid"][n] for n in names))]
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
        presets = table.get("presets", ["book"])
        if presets == "all":
            presets = list(get_game(game).presets)
        variants = [(preset, base_rules) for preset in presets]
    return [Cell(game, preset, rules, policy) for preset, rules in variants for policy in policies]


def default_out(spec: Spec) -> Path:
    return Path("results") / spec.name


def run_experiment(spec_path: str | Path, out: str | Path | None = None, quick: bool = False,
                   deals: int | None = None, workers: int | None = None,
                   scheduler: str | None = None, progress: bool = True) -> Store:
    """Play every cell of a spec into the results store, skipping chunks already there."""
    spec = load_spec(spec_path)
    target = deals if deals is not None else (spec.quick_deals if quick else spec.deals)
    target = check_count("deals", target, 1, MAX_DEALS)
    store = Store(out or default_out(spec))
    plan = []
    for cell in spec.cells:
        job = make_job(cell.game, cell.preset, cell.rules, cell.policy, spec.seed, spec.max_moves)
        store.register(cell, job.rules.id, spec.seed, spec.chunk_size, spec.source)
        chunks = chunk_starts(0, spec.deals_for(cell, target), spec.chunk_size)
        plan.append((cell, job, store.missing_chunks(cell.id, chunks)))
    todo = sum(count for _, _, missing in plan for _, count in missing)
    with tqdm(total=todo, disable=not progress, unit="deal", unit_scale=True,
              desc=spec.name, smoothing=0.05) as bar:
        for cell, job, missing in plan:
            if not missing:
                continue
            bar.set_description(f"{spec.name}: {cell.id}")
            play_chunks(job, missing, workers, scheduler, bar=bar,
                        on_chunk=lambda first, records, seconds, cell_id=cell.id:
                        store.write_chunk(cell_id, first, records, seconds))
    return store
