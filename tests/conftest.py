"""Shared fixtures: every (game, preset, policy) combination the contract tests cover."""

from __future__ import annotations

import pytest

from simsol.games import game_names, get_game
from simsol.policies import FAST_POLICIES, POLICY_DOCS


def with_the_jit_off(expression: str):
    """``expression`` (Python text, after ``import simsol``) evaluated in a fresh interpreter
    with ``NUMBA_DISABLE_JIT=1``, every kernel plain Python: its value, through JSON."""
    import json
    import os
    import subprocess
    import sys

    code = ("import json, warnings, simsol; warnings.simplefilter('ignore'); "
            f"print(json.dumps({expression}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, NUMBA_DISABLE_JIT="1"), timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def game_presets():
    return [(name, preset) for name in game_names() for preset in get_game(name).presets]


def game_preset_policies():
    """Every fast policy on every preset; the searching ones (the same kernel whatever the
    preset, and slow where games wander, as Grandma's Patience) on each game's book rules.  The
    solver and the hop player have tests of their own (tests/test_solver.py, tests/test_hop.py),
    with budgets small enough for a test."""
    return [(name, preset, policy) for name, preset in game_presets() for policy in POLICY_DOCS
            if (policy in FAST_POLICIES or preset == "book") and policy not in ("solver", "hop")]


# --- One worker per game under pytest-xdist ------------------------------------------------
#
# Most of the suite's time is compiling each game's binding (one per game, every player at
# once, about 25-50 CPU seconds; loaded from the disk cache in well under a second after).
# Run on workers with ``--dist loadgroup`` (pyproject.toml), every test is put in the group of
# the game it plays, so each game compiles on one worker only: never twice in a run, and never
# by two processes writing the same numba cache entries at once (numba's cache has known races
# between processes compiling the same function: numba issues #4807 and #10128).
#
# A test's game is the one it is parametrized by (``game``, ``game_name``, or a case's
# ``.game``); else the games its code names (a game's name as a string, a module-level game,
# the test module's own helpers and fixtures, followed) and the game of a per-game file
# (tests/test_klondike.py ...).  The few tests that name several games only list or plot the
# others (they play at most Klondike): they go with the first in the games' order.  A test
# that names none goes with Klondike, the default game: the command line's bad-input tests,
# the stores, and the runs in subprocesses (interrupts, concurrency) whose Klondike is named in
# a module-level spec or script, so they load what the Klondike worker compiled before them.

import inspect  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import types  # noqa: E402
from pathlib import Path  # noqa: E402

_GAME_ORDER = tuple(game_names())
_GAME_NAMES = frozenset(_GAME_ORDER)
_PER_GAME_FILES = {f"test_{name.replace('-', '_')}.py": name for name in _GAME_ORDER}
_DEFAULT_GAME = "klondike"


def _games_in_code(code, module, seen) -> set[str]:
    """Games a function's code names: a game's name as a string, a module-level game object,
    or (followed) a function of the test module that does so."""
    if code in seen:
        return set()
    seen.add(code)
    found = set()
    for const in code.co_consts:
        if isinstance(const, str) and const in _GAME_NAMES:
            found.add(const)
        elif isinstance(const, types.CodeType):
            found |= _games_in_code(const, module, seen)
    for name in code.co_names:
        value = getattr(module, name, None)
        if getattr(value, "name", None) in _GAME_NAMES and hasattr(value, "presets"):
            found.add(value.name)
        elif inspect.isfunction(value) and value.__module__ == module.__name__:
            found |= _games_in_code(value.__code__, module, seen)
    return found


def _item_games(item) -> set[str]:
    """Every game ``item`` names (see above); empty when it names none."""
    games = set()
    for value in getattr(getattr(item, "callspec", None), "params", {}).values():
        for candidate in (value, getattr(value, "game", None)):
            if isinstance(candidate, str) and candidate in _GAME_NAMES:
                games.add(candidate)
    function = getattr(item, "function", None)
    if games or function is None:  # parametrized by the game: that is the game it plays
        return games
    module = item.module
    seen: set = set()
    found = _games_in_code(function.__code__, module, seen)
    for fixture in item.fixturenames:  # the test module's own fixtures
        value = getattr(module, fixture, None)
        wrapped = getattr(value, "__wrapped__", None) or getattr(value, "_fixture_function", None)
        if inspect.isfunction(wrapped):
            found |= _games_in_code(wrapped.__code__, module, seen)
    own = _PER_GAME_FILES.get(item.path.name)
    if own is not None:
        found.add(own)
    return found


def item_game(item) -> str:
    """The game whose worker runs ``item``."""
    games = _item_games(item)
    return next((name for name in _GAME_ORDER if name in games), _DEFAULT_GAME)


# pytest-xdist 3.8 reads a test's group from a suffix it writes onto the test's node id, which
# pytest 9.2's node ids no longer take (pytest-xdist issue #1386): its loadgroup then groups
# nothing, silently.  So each worker also writes its tests' groups to a file, and the scheduler
# below (xdist's own, grouping from that file) reads them once every worker has collected.

_GROUPS_FILE = "simsol_groups_file"
_groups_key = pytest.StashKey[Path]()


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the marks
def pytest_collection_modifyitems(config, items):
    if not config.pluginmanager.hasplugin("xdist"):
        return
    groups = {}
    for item in items:
        groups[item.nodeid] = game = item_game(item)
        item.add_marker(pytest.mark.xdist_group(game))
    path = getattr(config, "workerinput", {}).get(_GROUPS_FILE)
    if path:
        mine = Path(f"{path}.{config.workerinput['workerid']}")
        mine.write_text(json.dumps(groups))
        mine.replace(path)  # whole, whichever worker writes it (they collect the same tests)


def pytest_configure(config):
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.stash[_groups_key] = Path(tempfile.mkdtemp(prefix="simsol-groups-")) / "groups"


def pytest_unconfigure(config):
    path = config.stash.get(_groups_key, None)
    if path is not None:
        shutil.rmtree(path.parent, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    node.workerinput[_GROUPS_FILE] = str(node.config.stash[_groups_key])


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class GameGroups(LoadGroupScheduling):
        """loadgroup, the groups read from the workers' file when xdist's suffix is missing."""

        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid):
            if self.groups is None:
                path = config.stash[_groups_key]
                self.groups = json.loads(path.read_text()) if path.exists() else {}
            if nodeid in self.groups:
                return self.groups[nodeid]
            return super()._split_scope(nodeid)

    return GameGroups(config, log)
