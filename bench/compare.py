#!/usr/bin/python3
"""Runs attnlab's benchmark and its PyTorch twin one right after the other, and prints the
speed-up table (speed-up = PyTorch time / attnlab time) with each target.

usage: /usr/bin/python3 bench/compare.py W1 [--build build] [--threads N] [--rounds R]
Each round runs attnlab then PyTorch; the table uses the median over rounds of each side.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# workload -> (PyTorch twin, key fields of a result, timing field, target speed-up per key)
WORKLOADS = {
    "W1": ("w1_scoring.py", ("scoring", "shape"), "median_us",
           lambda key: 5.0 if key[1] == "small" else (3.0 if key[0] == "additive" else 1.0)),
}


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()
    return json.loads(out[-1])


def timings(result, keys, field):
    return {tuple(r[k] for k in keys): r[field] for r in result["results"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--build", default="build")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    twin, keys, field, target = WORKLOADS[args.workload]
    ours, theirs = {}, {}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}: attnlab ...", file=sys.stderr)
        for k, v in timings(run([os.path.join(args.build, "bench", "attnlab-bench"), args.workload,
                                 "--threads", str(args.threads)]), keys, field).items():
            ours.setdefault(k, []).append(v)
        print(f"round {r + 1}/{args.rounds}: PyTorch ...", file=sys.stderr)
        for k, v in timings(run(["/usr/bin/python3", os.path.join(HERE, twin), "--threads", str(args.threads)]),
                            keys, field).items():
            theirs.setdefault(k, []).append(v)
    print(f"{args.workload}, threads {args.threads}, {args.rounds} round(s); speed-up = PyTorch / attnlab\n")
    print("| " + " | ".join(keys) + f" | attnlab {field} | PyTorch {field} | speed-up | target | met |")
    print("|" + " --- |" * (len(keys) + 5))
    for k in ours:
        a, t = statistics.median(ours[k]), statistics.median(theirs[k])
        print("| " + " | ".join(map(str, k)) +
              f" | {a:.1f} | {t:.1f} | {t / a:.2f}x | >= {target(k):.1f}x | {'yes' if t / a >= target(k) else 'NO'} |")


if __name__ == "__main__":
    main()
