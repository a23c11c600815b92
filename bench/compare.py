#!/usr/bin/python3
"""Runs attnlab's benchmark and its PyTorch twin one right after the other, and prints the
speed-up table (speed-up = PyTorch time / attnlab time) with each target.

usage: /usr/bin/python3 bench/compare.py W1|W2|W2-lstm|W2-rnn|W3|W4|W5|W7 [--build build] [--threads N] [--rounds R]
Each round runs attnlab then PyTorch; the table uses the median over rounds of each side.
W4 gives the twin attnlab's data (x_train, y_train, w_init, through --data) and also prints
how closely the two sides agree (target: w and both test MSEs to 1e-4).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
AGREEMENT = 1e-4  # W4: same learned w and MSEs as PyTorch on the same data


def listed(keys, field):
    """Timings of a result that lists one entry per case: {(key values...): time}."""
    return lambda result: {tuple(r[k] for k in keys): r[field] for r in result["results"]}


def single(name, field):
    """Timing of a result that is one case."""
    return lambda result: {(name,): result[field]}


def fields(names_fields):
    """Timings of a result that gives each case its own field: {(name,): result[field]}."""
    return lambda result: {(name,): result[field] for name, field in names_fields}


# workload -> (PyTorch twin and its options, key names, timing field, timings of a result,
#              target per key, fields reported beside the timing, e.g. the accuracy reached)
W2_REPORTED = ("tokens_per_s", "final_train_loss", "exact_match")
WORKLOADS = {
    "W1": (["w1_scoring.py"], ("scoring", "shape"), "median_us", listed(("scoring", "shape"), "median_us"),
           lambda key: 5.0 if key[1] == "small" else (3.0 if key[0] == "additive" else 1.0), ()),
    "W2": (["w2_bahdanau.py"], ("workload",), "median_epoch_s", single("W2 epoch", "median_epoch_s"),
           lambda key: 3.0, W2_REPORTED),
    "W2-lstm": (["w2_bahdanau.py", "--cell", "lstm"], ("workload",), "median_epoch_s",
                single("W2-lstm epoch", "median_epoch_s"), lambda key: 3.0, W2_REPORTED),
    "W2-rnn": (["w2_bahdanau.py", "--cell", "rnn"], ("workload",), "median_epoch_s",
               single("W2-rnn epoch", "median_epoch_s"), lambda key: 3.0, W2_REPORTED),
    "W3": (["w3_encoder_block.py"], ("length",), "median_ms", listed(("length",), "median_ms"), lambda key: 1.0, ()),
    "W4": (["w4_nadaraya_watson.py"], ("workload",), "median_fit_us", single("W4 fit", "median_fit_us"),
           lambda key: 1.0, ("w", "nonparametric_test_mse", "parametric_test_mse")),
    "W5": (["w5_transformer.py"], ("workload",), "median_epoch_s", single("W5 epoch", "median_epoch_s"),
           lambda key: 5.0, ("final_train_loss", "d2l_loss", "exact")),
    "W7": (["w7_decoding.py"], ("decoder",), "s", fields((("greedy", "greedy_s"), ("beam", "beam_s"))),
           lambda key: 2.0, ("greedy_ms_per_sentence", "beam_ms_per_sentence", "mean_greedy_length")),
}


def fmt(value):
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.4g}"


def run(cmd):
    """The last stdout line of cmd, parsed, and that line itself."""
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"compare.py: {' '.join(cmd)} ended with exit code {done.returncode}; its last words:\n"
                 + "\n".join(done.stderr.strip().splitlines()[-10:]))
    out = done.stdout.strip().splitlines()
    return json.loads(out[-1]), out[-1]


def run_round(args, twin, data_file):
    """attnlab, then PyTorch; for W4 attnlab's JSON line goes to the twin through --data."""
    threads = ["--threads", str(args.threads)]
    print(f"attnlab {args.workload} ...", file=sys.stderr)
    ours, line = run([os.path.join(args.build, "bench", "attnlab-bench"), args.workload] + threads)
    extra = []
    if args.workload == "W4":
        with open(data_file, "w") as file:
            file.write(line + "\n")
        extra = ["--data", data_file]
    print(f"PyTorch {' '.join(twin)} ...", file=sys.stderr)
    theirs, _ = run(["/usr/bin/python3", os.path.join(HERE, twin[0])] + twin[1:] + threads + extra)
    return ours, theirs


def print_agreement(reports):
    """W4: |attnlab - PyTorch| of w and of both test MSEs, per round, against AGREEMENT."""
    names = ("w", "nonparametric_test_mse", "parametric_test_mse")
    print("\nagreement (same data and w_init on both sides)\n")
    print("| round | " + " | ".join(f"abs diff {n} | <= {AGREEMENT:g}" for n in names) + " |")
    print("|" + " --- |" * (2 * len(names) + 1))
    for i, (ours, theirs) in enumerate(zip(reports["attnlab"], reports["PyTorch"])):
        diffs = [abs(ours[n] - theirs[n]) for n in names]
        print(f"| {i + 1} | " + " | ".join(f"{d:.3g} | {'yes' if d <= AGREEMENT else 'NO'}" for d in diffs) + " |")


def print_gemm_limit(reports):
    """W3: the block's products over time x this run's single-thread sgemm rate (target 0.85)."""
    print("\nW3 against the GEMM limit (3F / (time x sgemm rate); F counted in bench/w3_encoder_block.cpp)\n")
    print("| round | length | GFLOP (3F) | GFLOP/s | sgemm GFLOP/s | fraction | target | met |")
    print("|" + " --- |" * 8)
    for i, result in enumerate(reports["attnlab"]):
        for r in result["results"]:
            met = "yes" if r["fraction_of_gemm_limit"] >= 0.85 else "NO"
            print(f"| {i + 1} | {r['length']} | {r['gflop']:.3f} | {r['gflops']:.1f} | {r['sgemm_gflops']:.1f} | "
                  f"{r['fraction_of_gemm_limit']:.3f} | >= 0.85 | {met} |")


def print_cache_speedups(reports):
    """W7: each decoding with the key/value cache against the decoder re-run over the prefix."""
    print("\nW7 key/value cache (attnlab, same tokens and log-probabilities to 1e-6 checked by the bench)\n")
    print("| round | decoding | cached s | uncached s | cache speed-up | target | met |")
    print("|" + " --- |" * 7)
    for i, result in enumerate(reports["attnlab"]):
        for name in ("greedy", "beam", "greedy_batched", "beam_batched"):
            if f"{name}_s" not in result:
                continue
            cached, uncached = result[f"{name}_s"], result[f"{name}_uncached_s"]
            met = "yes" if uncached / cached >= 4 else "NO"
            print(f"| {i + 1} | {name} | {fmt(cached)} | {fmt(uncached)} | {uncached / cached:.2f}x | >= 4x | {met} |")


def print_tables(args, field, keys, target, reported, ours, theirs, reports):
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
    if args.workload == "W4":
        print_agreement(reports)
    if args.workload == "W3":
        print_gemm_limit(reports)
    if args.workload == "W7":
        print_cache_speedups(reports)


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
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
            results = run_round(args, twin, os.path.join(tmp, "attnlab-w4.json"))
            for side, result, store in zip(reports, results, (ours, theirs)):
                reports[side].append(result)
                for k, v in timings(result).items():
                    store.setdefault(k, []).append(v)
    print_tables(args, field, keys, target, reported, ours, theirs, reports)


if __name__ == "__main__":
    main()
