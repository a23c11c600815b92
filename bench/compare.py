#!/usr/bin/python3
"""Runs attnlab's benchmark and its PyTorch twin one right after the other, and prints the
speed-up table (speed-up = PyTorch time / attnlab time) with each target.

usage: /usr/bin/python3 bench/compare.py W1|W2|W3 [--build build] [--threads N] [--rounds R]
Each round runs attnlab then PyTorch; the table uses the median over rounds of each side.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def listed(keys, field):
    """Timings of a result that lists one entry per case: {(key values...): time}."""
    return lambda result: {tuple(r[k] for k in keys): r[field] for r in result["results"]}


def single(name, field):
    """Timing of a result that is one case."""
    return lambda result: {(name,): result[field]}


# workload -> (PyTorch twin, key names, timing field, timings of a result, target per key,
#              fields reported beside the timing, e.g. the accuracy reached)
WORKLOADS = {
    "W1": ("w1_scoring.py", ("scoring", "shape"), "median_us", listed(("scoring", "shape"), "median_us"),
           lambda key: 5.0 if key[1] == "small" else (3.0 if key[0] == "additive" else 1.0), ()),
    "W2": ("w2_bahdanau.py", ("workload",), "median_epoch_s", single("W2 epoch", "median_epoch_s"),
           lambda key: 3.0, ("tokens_per_s", "final_train_loss", "exact_match")),
    "W3": ("w3_encoder_block.py", ("length",), "median_ms", listed(("length",), "median_ms"), lambda key: 1.0, ()),
}


def fmt(value):
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.4g}"


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()
    return json.loads(out[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--build", default="build")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    twin, keys, field, timings, target, reported = WORKLOADS[args.workload]
    ours, theirs = {}, {}
    reports = {"attnlab": [], "PyTorch": []}
    for r in range(args.rounds):
        for side, cmd, store in (
                ("attnlab", [os.path.join(args.build, "bench", "attnlab-bench"), args.workload], ours),
                ("PyTorch", ["/usr/bin/python3", os.path.join(HERE, twin)], theirs)):
            print(f"round {r + 1}/{args.rounds}: {side} ...", file=sys.stderr)
            result = run(cmd + ["--threads", str(args.threads)])
            reports[side].append(result)
            for k, v in timings(result).items():
                store.setdefault(k, []).append(v)
    print(f"{args.workload}, threads {args.threads}, {args.rounds} round(s); speed-up = PyTorch / attnlab\n")
    print("| " + " | ".join(keys) + f" | attnlab {field} | PyTorch {field} | speed-up | target | met |")
    print("|" + " --- |" * (len(keys) + 5))
    for k in ours:
        a, t = statistics.median(ours[k]), statistics.median(theirs[k])
        print("| " + " | ".join(map(str, k)) +
              f" | {fmt(a)} | {fmt(t)} | {t / a:.2f}x | >= {target(k):.1f}x | {'yes' if t / a >= target(k) else 'NO'} |")
    if reported:
        print("\n| side | round | " + " | ".join(reported) + " |")
        print("|" + " --- |" * (len(reported) + 2))
        for side, results in reports.items():
            for i, result in enumerate(results):
                print(f"| {side} | {i + 1} | " + " | ".join(fmt(result[f]) for f in reported) + " |")

if __name__ == "__main__":
    main()
