#!/usr/bin/env python3
"""Prints the medians of the timings two programs printed over several runs, side by side.

Used by beside-python.sh, for the scripts that time Onyx beside Python 3:
each argument is the output of all runs of one program, a line `NAME MILLISECONDS` per step.
"""
import statistics, sys
def medians(text):
    runs = {}
    for row in text.split('\n'):
        parts = row.split()
        if len(parts) == 2 and parts[1].isdigit():
            runs.setdefault(parts[0], []).append(int(parts[1]))
    return {k: statistics.median(v) for k, v in runs.items()}
onyx, python = medians(sys.argv[1]), medians(sys.argv[2])
print(f"{'work':<16}{'Onyx ms':>10}{'Python ms':>11}{'ratio':>8}")
for name, o in onyx.items():
    p = python.get(name)
    ratio = f"{o / p:.2f}" if p else "-"
    print(f"{name:<16}{o:>10.0f}{(p or 0):>11.0f}{ratio:>8}")
