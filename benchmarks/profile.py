"""Where the compiled kernels spend their time: ``perf`` with numba's functions named.

    python benchmarks/profile.py --game klondike --preset standard --policy solver --deals 200
    python benchmarks/profile.py --game twelve-by-five --policy greedy --deals 3000
    python benchmarks/profile.py --game klondike --policy solver --deals 100 --no-inline

``perf`` samples the kernels, but numba's code lives in anonymous memory with no symbols, so
``perf report`` shows bare addresses.  This script plays the deals in a child process under
``perf record`` and has the child write ``/tmp/perf-PID.map`` (perf's map for JIT code: start,
size and name of each compiled function) once they are compiled; then it prints the compiled
functions' shares of the samples, relative to all compiled code.  The kernels are compiled
afresh in a temporary cache (code loaded from numba's cache carries no symbol names), so a
run starts with a compile of a minute or two, which the table leaves out.

Most kernels are compiled inline into the loop or the search (``inline="always"``), so their
time is counted there; ``--no-inline`` compiles each kernel as a function of its own, for a
breakdown by kernel (LLVM still inlines the smallest; the code is then a little slower than the
real one, so read shares, not speeds).  ``--hot N`` also lists the N instructions of the
biggest function that took most samples, with its code disassembled around them (``objdump``).
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter


def compiled_functions() -> dict[int, str]:
    """Start address -> symbol of every function numba compiled in this process."""
    from numba.core.registry import CPUDispatcher

    starts = {}
    for obj in gc.get_objects():
        if not isinstance(obj, CPUDispatcher):
            continue
        for cres in list(obj.overloads.values()):
            library = cres.library
            try:
                names = [f.name for f in library._final_module.functions if not f.is_declaration]
            except (AttributeError, RuntimeError):  # loaded from a cache: no module kept
                continue
            for name in names:
                address = library.get_pointer_to_function(name)
                if address:
                    starts[address] = name
    return starts


def write_perf_map(dump: str | None) -> None:
    """Write perf's map of this process's compiled functions (each runs to the next one's
    start); with ``dump``, also save the code of the functions whose names contain it."""
    starts = compiled_functions()
    addresses = sorted(starts)
    sizes = [min((b - a), 1 << 20) for a, b in zip(addresses, addresses[1:])] + [4096]
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for address, size in zip(addresses, sizes):
            out.write(f"{address:x} {size:x} {starts[address]}\n")
    if dump:
        with open("/proc/self/mem", "rb") as memory:
            for address, size in zip(addresses, sizes):
                if dump in starts[address] and not starts[address].startswith("_ZN7cpython"):
                    memory.seek(address)
                    with open(os.path.join(os.environ["SIMSOL_PROFILE_DIR"],
                                           f"{address:x}.bin"), "wb") as code:
                        code.write(memory.read(size))


def play(args) -> None:
    """The child: compile, write the map, play the deals, write the map again (searches compile
    late kernels on first use)."""
    if args.no_inline:  # before any kernel module imports the decorator
        import simsol.engine.jit as jit

        compile_kernel = jit.kernel
        jit.kernel = lambda fn=None, *, inline="never": compile_kernel(fn, inline="never")
    import simsol
    from simsol.engine.solver import deal_solver

    if args.policy == "solver":
        solve = deal_solver(args.game, args.preset, dict(args.opt))
        solve(args.seed, 0)
        write_perf_map(None)
        started = time.perf_counter()
        for deal in range(args.deals):
            solve(args.seed, deal)
        rate = f"{args.deals / (time.perf_counter() - started):,.1f} deals/s (the solver)"
    else:
        simsol.simulate(args.game, preset=args.preset, policy=args.policy, deals=50, workers=1,
                        policy_options=dict(args.opt))
        write_perf_map(None)
        started = time.perf_counter()
        simsol.simulate(args.game, preset=args.preset, policy=args.policy, deals=args.deals,
                        workers=1, seed=args.seed, policy_options=dict(args.opt))
        rate = f"{args.deals / (time.perf_counter() - started):,.1f} deals/s"
    write_perf_map(args.dump)
    print(rate, file=sys.stderr)


def jit_samples(data: str) -> list[tuple[str, str]]:
    """(function, instruction address) of each sample taken in compiled code."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,dso"],
                         capture_output=True, text=True, check=True).stdout
    samples = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and "/perf-" in parts[-1] and parts[1] != "[unknown]":
            samples.append((parts[1], parts[0]))
    return samples


def short(symbol: str, game: str) -> str:
    """``_ZN6simsol6engine6solver27search_on_klondike_dbbf03edB4v217...`` -> ``solver.search_on``
    (a kernel the binder compiled for ``game`` carries its module's name and a hash)."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, rest = [], symbol[3:]
    while rest and rest[0].isdigit():
        digits = len(rest) - len(rest.lstrip("0123456789"))
        size = int(rest[:digits])
        parts.append(rest[digits:digits + size])
        rest = rest[digits + size:]
    name = ".".join(parts[-2:]) if parts else symbol
    return name.split(f"_{game.replace('-', '_')}_")[0]


def report(args, data: str, folder: str) -> None:
    samples = jit_samples(data)
    if not samples:
        sys.exit("profile: perf recorded no samples in compiled code")
    by_function = Counter(short(symbol, args.game) for symbol, _ in samples)
    total = len(samples)
    print(f"{total:,} samples in compiled code")
    print("| function | share |\n|---|---:|")
    for name, count in by_function.most_common(25):
        print(f"| {name} | {100 * count / total:.1f}% |")
    if args.hot and args.dump:
        by_ip = Counter(ip for symbol, ip in samples if args.dump in symbol)
        codes = sorted(os.listdir(folder))
        for ip, count in by_ip.most_common(args.hot):
            print(f"\n{ip}: {100 * count / total:.1f}% of compiled code's samples")
            for code in codes:
                start = int(code.split(".")[0], 16)
                target = int(ip, 16)
                path = os.path.join(folder, code)
                if start <= target < start + os.path.getsize(path):
                    listing = subprocess.run(
                        ["objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                         f"--adjust-vma={start:#x}",
                         f"--start-address={max(start, target - 48):#x}",
                         f"--stop-address={target + 16:#x}", path],
                        capture_output=True, text=True).stdout
                    print("\n".join(listing.splitlines()[7:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--game", required=True)
    parser.add_argument("--preset", default="book")
    parser.add_argument("--policy", default="greedy", help="a policy, or solver")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opt", action="append", default=[], metavar="NAME=VALUE",
                        type=lambda s: tuple(s.split("=", 1)),
                        help="a setting of the policy or solver (repeatable)")
    parser.add_argument("--no-inline", action="store_true",
                        help="compile every kernel as a function of its own")
    parser.add_argument("--hot", type=int, default=0, metavar="N",
                        help="disassemble around the N hottest instructions of --dump's function")
    parser.add_argument("--dump", metavar="NAME",
                        help="save the code of the functions whose symbol contains NAME "
                             "(e.g. search_on, play_deals), for --hot")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        from simsol.rules import SimsolError

        try:
            play(args)
        except SimsolError as error:  # an unknown game, preset, policy or setting
            sys.exit(f"profile: {error}")
        return
    if shutil.which("perf") is None:
        sys.exit("profile: needs perf (linux-tools) on the PATH")
    with tempfile.TemporaryDirectory(prefix="simsol-profile-") as folder:
        env = dict(os.environ, SIMSOL_CACHE_DIR=os.path.join(folder, "cache"),
                   SIMSOL_PROFILE_DIR=os.path.join(folder, "code"))
        os.makedirs(env["SIMSOL_PROFILE_DIR"])
        data = os.path.join(folder, "perf.data")
        child = subprocess.run(["perf", "record", "-q", "-F", "2000", "-o", data, sys.executable,
                                os.path.abspath(__file__), "--child", *sys.argv[1:]], env=env)
        if child.returncode != 0:
            sys.exit(child.returncode)
        report(args, data, os.path.join(folder, "code"))


if __name__ == "__main__":
    main()
