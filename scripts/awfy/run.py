#!/usr/bin/env python3
"""Runs the Are We Fast Yet benchmarks on Onyx (their Smalltalk version, converted by
som2chunk.py) and on the Lua peers (their Lua version), benchmark by benchmark, each VM in
turn, and prints each one's median time per iteration and Onyx's ratios.

    run.py AWFY_CHECKOUT WORK_DIR ITERATIONS [BENCHMARK...]

Each VM runs a benchmark ITERATIONS times in one process (the harness's outer iterations,
each of the inner iterations below), the VMs taking turns for ROUNDS rounds; the median of
all those iterations is its time. A ratio is
Onyx's time over the peer's: below 1 Onyx is faster. Environment: ONYX (the `onyx` to run,
default target/release/onyx), ONYX_FLAGS (e.g. `--no-jit`), PEERS (default
`lua5.4 luajit`), ROUNDS (default 1).
"""

import math
import os
import pathlib
import re
import shlex
import statistics
import subprocess
import sys

# Inner iterations: a size each verifies (CD, Havlak, Mandelbrot and NBody check their result
# only at certain sizes), about a quarter to one second per iteration on the Lua 5.4
# interpreter; Havlak's smallest verified size is the whole benchmark.
SIZES = {
    "DeltaBlue": 10000, "Richards": 10, "Json": 50, "CD": 100, "Havlak": 1,
    "Bounce": 500, "List": 500, "Mandelbrot": 500, "NBody": 250000, "Permute": 500,
    "Queens": 500, "Sieve": 1000, "Storage": 200, "Towers": 200,
}
HERE = pathlib.Path(__file__).resolve().parent
RUNTIME = re.compile(r"runtime: ([0-9.]+) ?us")


def times(command, cwd):
    """The per-iteration times (microseconds) a harness run prints."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=1800)
    found = [float(t) for t in RUNTIME.findall(done.stdout)]
    if done.returncode != 0 or not found or "incorrect result" in done.stdout + done.stderr:
        sys.exit(f"{shlex.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return found


def onyx_source(classes, name, iterations):
    """The chunk file that files in the benchmarks and runs one of them."""
    driver = (f"| run | run := Run new: '{name}'. run numIterations: {iterations}; "
              f"innerIterations: {SIZES[name]}. run runBenchmark!\n")
    return (HERE / "prelude.st").read_text(encoding="utf-8") + "\n" + classes + driver


def main(checkout, work, iterations, names):
    smalltalk = pathlib.Path(checkout) / "benchmarks" / "Smalltalk"
    lua = pathlib.Path(checkout) / "benchmarks" / "Lua"
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    converted = work / "awfy.st"
    dirs = [smalltalk / d for d in [".", "Core", "CD", "DeltaBlue", "Havlak", "Json", "NBody", "Richards"]]
    subprocess.run([sys.executable, str(HERE / "som2chunk.py"), str(converted), *map(str, dirs)], check=True)
    classes = converted.read_text(encoding="utf-8")
    onyx = os.environ.get("ONYX", "target/release/onyx")
    flags = shlex.split(os.environ.get("ONYX_FLAGS", ""))
    peers = os.environ.get("PEERS", "lua5.4 luajit").split()
    rounds = os.environ.get("ROUNDS", "1")
    if not rounds.isdigit() or int(rounds) < 1:
        sys.exit(f"bench-awfy: ROUNDS must be a whole number of rounds, not {rounds!r}")
    rounds = int(rounds)
    medians = {}
    for name in names:
        script = work / f"{name}.st"
        script.write_text(onyx_source(classes, name, iterations), encoding="utf-8")
        commands = {"Onyx": ([onyx, *flags, "run", str(script)], None)}
        for peer in peers:
            commands[peer] = ([peer, "harness.lua", name, str(iterations), str(SIZES[name])], lua)
        # The VMs take turns, round after round, so that a slow spell of the machine falls
        # on all of them alike.
        samples = {vm: [] for vm in commands}
        for _ in range(rounds):
            for vm, (command, cwd) in commands.items():
                samples[vm] += times(command, cwd)
        row = {vm: statistics.median(found) for vm, found in samples.items()}
        medians[name] = row
        cells = "  ".join(f"{vm} {t / 1000:9.1f} ms" for vm, t in row.items())
        print(f"{name:11} {cells}", flush=True)
    print()
    header = f"{'benchmark':11} {'Onyx ms':>9}" + "".join(f" {p + ' ms':>11} {'/' + p:>9}" for p in peers)
    print(header)
    for name, row in medians.items():
        line = f"{name:11} {row['Onyx'] / 1000:9.1f}"
        for peer in peers:
            line += f" {row[peer] / 1000:11.1f} {row['Onyx'] / row[peer]:8.2f}x"
        print(line)
    line = f"{'geomean':11} {'':9}"
    for peer in peers:
        ratios = [row["Onyx"] / row[peer] for row in medians.values()]
        line += f" {'':11} {math.exp(sum(map(math.log, ratios)) / len(ratios)):8.2f}x"
    print(line)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:] or list(SIZES))
