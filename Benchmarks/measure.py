#!/usr/bin/env python3
"""Runs shell commands several times and prints their median wall time, throughput and peak memory.

Usage: measure.py [--runs N] [--bytes B] [--ratio "LABEL A/LABEL B"]... "LABEL|COMMAND"...

Each COMMAND runs as `/usr/bin/time -f '%M %U %S' bash -c 'exec COMMAND'` (redirections allowed; standard output
is discarded), so the measured process is the command itself and its peak RSS and CPU time (user + system) are GNU
time's. With --bytes, throughput is B / median wall time, and also B / median CPU time: on a machine shared with other
work the CPU figure is the steadier one. Each --ratio prints median(A) / median(B) (wall time) for two labels of the
same run, which is what the targets are stated in.
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time


def run_once(command):
    # GNU time reports the peak RSS of the command alone (a child forked from Python would count Python's pages).
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        process = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", "-o", report.name, "bash", "-c", "exec " + command],
                                 stdout=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        # The last line is GNU time's; lines before it may say the command was killed.
        fields = [line.split() for line in report.read().splitlines() if len(line.split()) == 3]
    if not fields:
        return elapsed, 0.0, process.returncode, elapsed
    rss, user, system = fields[-1]
    return elapsed, int(rss) / 1024.0, process.returncode, float(user) + float(system)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bytes", type=int, default=0)
    parser.add_argument("--ratio", action="append", default=[])
    parser.add_argument("entries", nargs="+")
    args = parser.parse_args()
    medians = {}
    print("| command | median | min | MB/s | CPU | MB/s of CPU | peak RSS | exit |")
    print("|---|---|---|---|---|---|---|---|")
    for entry in args.entries:
        label, command = entry.split("|", 1)
        results = [run_once(command) for _ in range(args.runs)]
        times = [r[0] for r in results]
        median = statistics.median(times)
        medians[label] = median
        rss = max(r[1] for r in results)
        cpu = statistics.median(r[3] for r in results)
        rate = "%.0f" % (args.bytes / 1e6 / median) if args.bytes else "–"
        cpu_rate = "%.0f" % (args.bytes / 1e6 / cpu) if args.bytes and cpu > 0 else "–"
        def shown(seconds):
            return "%.1f ms" % (seconds * 1000) if median < 1 else "%.2f s" % seconds
        print("| %s | %s | %s | %s | %s | %s | %.0f MB | %d |" % (
            label, shown(median), shown(min(times)), rate, shown(cpu), cpu_rate, rss, results[-1][2]), flush=True)
    for ratio in args.ratio:
        a, b = ratio.split("/", 1)
        print("ratio %s / %s = %.2f" % (a, b, medians[a] / medians[b]))


if __name__ == "__main__":
    main()
