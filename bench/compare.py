#!/usr/bin/python3
"""Runs attnlab's benchmark and its PyTorch twin one right after the other, and prints the
speed-up table (speed-up = PyTorch time / attnlab time) with each target.

usage: /usr/bin/python3 bench/compare.py W1|W2|W2-lstm|W2-rnn|W3|W4|W5|W7|W8|W9|W10
         [--build build] [--threads 1,2] [--rounds R] [--anchors glibc,tunables,jemalloc]
Each round runs attnlab, then the twin under every allocator setting of --anchors (at more than
one thread each also with OMP_WAIT_POLICY=PASSIVE); the anchor of a case is PyTorch at its best,
the fastest setting's median over rounds, and the table names that setting:
  glibc     glibc's allocator as it comes (PyTorch maps and unmaps its large tensors every step)
  tunables  GLIBC_TUNABLES raising glibc's mmap and trim thresholds
  jemalloc  Debian's libjemalloc2 through LD_PRELOAD
The settings go to the twin's process only. With several thread counts, a last table gives
attnlab's speed-up at N threads against 1 and checks that its results (losses, accuracies) are
the same at every thread count. W4 gives the twin attnlab's data (x_train, y_train, w_init,
through --data) and also prints how closely the two sides agree (target: w and both test MSEs
to 1e-4).
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
    "W8": (["w8_vit.py"], ("workload",), "median_step_ms", single("W8 step", "median_step_ms"), lambda key: 1.1,
           ("gflops", "sgemm_gflops", "fraction_of_gemm_limit", "first_loss", "last_loss")),
    "W9": (["w9_char_lm.py"], ("case",), "ms", fields((("step", "median_step_ms"), ("evaluation at 512", "eval512_ms"))),
           lambda key: 3.0, ("first_loss", "last_loss")),
    "W10": (["w10_gat.py"], ("workload",), "median_epoch_ms", single("W10 epoch", "median_epoch_ms"), lambda key: 5.0,
            ("valid_accuracy",)),
}

# Allocator settings of the twin's process (--anchors), and the one-run speed-up targets at
# 2 threads against 1 (BENCHMARKS.md).
TUNABLES = "glibc.malloc.mmap_threshold=4294967296:glibc.malloc.trim_threshold=17179869184"
JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
ANCHORS = {"glibc": {}, "tunables": {"GLIBC_TUNABLES": TUNABLES}, "jemalloc": {"LD_PRELOAD": JEMALLOC}}
SCALING_TARGETS = {("W3", "512"): 1.8, ("W5", "W5 epoch"): 1.4, ("W8", "W8 step"): 1.8}
# The fields that must not change with the thread count (attnlab's results are bit-identical).
SAME_AT_ANY_THREADS = ("final_train_loss", "first_loss", "last_loss", "valid_accuracy", "exact_match", "exact", "w")


def fmt(value):
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.4g}"


def run(cmd, env=None):
    """The last stdout line of cmd, parsed, and that line itself."""
    done = subprocess.run(cmd, capture_output=True, text=True, env=None if env is None else {**os.environ, **env})
    if done.returncode != 0:
        sys.exit(f"compare.py: {' '.join(cmd)} ended with exit code {done.returncode}; its last words:\n"
                 + "\n".join(done.stderr.strip().splitlines()[-10:]))
    out = done.stdout.strip().splitlines()
    return json.loads(out[-1]), out[-1]


def settings(anchors, threads):
    """The twin's settings at `threads`: each allocator, and with PASSIVE OpenMP waits above one thread."""
    out = {name: dict(ANCHORS[name]) for name in anchors}
    if threads > 1:
        out.update({name + "+passive": {**ANCHORS[name], "OMP_WAIT_POLICY": "PASSIVE"} for name in anchors})
    return out


def run_round(args, twin, threads, data_file):
    """attnlab, then PyTorch under every setting; for W4 attnlab's JSON line goes to the twin through --data."""
    options = ["--threads", str(threads)]
    print(f"attnlab {args.workload} --threads {threads} ...", file=sys.stderr)
    ours, line = run([os.path.join(args.build, "bench", "attnlab-bench"), args.workload] + options)
    extra = []
    if args.workload == "W4":
        with open(data_file, "w") as file:
            file.write(line + "\n")
        extra = ["--data", data_file]
    theirs = {}
    for name, env in settings(args.anchors, threads).items():
        print(f"PyTorch {' '.join(twin)} --threads {threads} ({name}) ...", file=sys.stderr)
        theirs[name], _ = run(["/usr/bin/python3", os.path.join(HERE, twin[0])] + twin[1:] + options + extra, env)
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
    """W3: the block's products over time x threads x this run's single-thread sgemm rate (target 0.85)."""
    print("\nW3 against the GEMM limit (3F / (time x threads x sgemm rate); F counted in bench/w3_encoder_block.cpp)\n")
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


def print_tables(args, threads, measured):
    """The speed-up table at `threads`, the twin's settings, the fields reported beside the timing."""
    field, keys, target, reported = args.field, args.keys, args.target, args.reported
    ours, theirs, reports = measured
    print(f"\n{args.workload}, threads {threads}, {args.rounds} round(s); speed-up = PyTorch at its best / attnlab\n")
    print("| " + " | ".join(keys) + f" | attnlab {field} | PyTorch {field} | PyTorch's setting | speed-up | target | met |")
    print("|" + " --- |" * (len(keys) + 6))
    best = {}
    for k in ours:
        a = statistics.median(ours[k])
        best[k] = min(theirs, key=lambda name: statistics.median(theirs[name][k]))
        t = statistics.median(theirs[best[k]][k])
        print("| " + " | ".join(map(str, k)) + f" | {fmt(a)} | {fmt(t)} | {best[k]} | {t / a:.2f}x | >= {target(k):.1f}x | "
              f"{'yes' if t / a >= target(k) else 'NO'} |")
    print("\nPyTorch under each setting (median " + field + ")\n")
    print("| " + " | ".join(keys) + " | " + " | ".join(theirs) + " |")
    print("|" + " --- |" * (len(keys) + len(theirs)))
    for k in ours:
        print("| " + " | ".join(map(str, k)) + " | " + " | ".join(fmt(statistics.median(theirs[n][k])) for n in theirs) + " |")
    if reported:
        anchor = best[next(iter(ours))]
        print(f"\n| side | round | " + " | ".join(reported) + " |")
        print("|" + " --- |" * (len(reported) + 2))
        for side, results in (("attnlab", reports["attnlab"]), (f"PyTorch ({anchor})", reports["PyTorch"][anchor])):
            for i, result in enumerate(results):
                print(f"| {side} | {i + 1} | " + " | ".join(fmt(result[f]) for f in reported) + " |")
    extra = {"W4": print_agreement, "W3": print_gemm_limit, "W7": print_cache_speedups}.get(args.workload)
    if extra:
        extra({"attnlab": reports["attnlab"], "PyTorch": next(iter(reports["PyTorch"].values()))})


def measure(args, threads, tmp):
    """attnlab's timings (key -> per round), each setting's (setting -> key -> per round), and every result."""
    ours, theirs, reports = {}, {}, {"attnlab": [], "PyTorch": {}}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}, {threads} thread(s)", file=sys.stderr)
        mine, twins = run_round(args, args.twin, threads, os.path.join(tmp, "attnlab-w4.json"))
        reports["attnlab"].append(mine)
        for k, v in args.timings(mine).items():
            ours.setdefault(k, []).append(v)
        for name, result in twins.items():
            reports["PyTorch"].setdefault(name, []).append(result)
            for k, v in args.timings(result).items():
                theirs.setdefault(name, {}).setdefault(k, []).append(v)
    return ours, theirs, reports


def print_scaling(args, by_threads):
    """attnlab at N threads against 1, and its results the same at every thread count."""
    print(f"\n{args.workload}: one run at N threads against 1 (attnlab; speed-up = time at 1 / time at N)\n")
    print("| " + " | ".join(args.keys) + " | threads | time at 1 | time at N | speed-up | target | met |")
    print("|" + " --- |" * (len(args.keys) + 6))
    one = by_threads[1][0]
    for threads, (ours, _, _) in by_threads.items():
        if threads == 1:
            continue
        for k in ours:
            a1, an = statistics.median(one[k]), statistics.median(ours[k])
            goal = SCALING_TARGETS.get((args.workload, str(k[-1])))
            met = "" if goal is None else ("yes" if a1 / an >= goal else "NO")
            print("| " + " | ".join(map(str, k)) + f" | {threads} | {fmt(a1)} | {fmt(an)} | {a1 / an:.2f}x | "
                  f"{'' if goal is None else f'>= {goal:.1f}x'} | {met} |")
    first = {t: reports["attnlab"][0] for t, (_, _, reports) in by_threads.items()}
    same = [f for f in SAME_AT_ANY_THREADS if f in first[1]]
    if same:
        print("\nattnlab's results at each thread count (round 1): " + ", ".join(
            f"{f} {'the same' if len({json.dumps(r[f]) for r in first.values()}) == 1 else 'DIFFERENT'}" for f in same))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--build", default="build")
    parser.add_argument("--threads", default="1", help="thread counts, e.g. 1,2")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--anchors", default="glibc,tunables,jemalloc", help="the twin's allocator settings to try")
    args = parser.parse_args()
    args.anchors = args.anchors.split(",")
    unknown = [a for a in args.anchors if a not in ANCHORS]
    if unknown:
        sys.exit(f"compare.py: --anchors: unknown setting {unknown[0]}; the settings are {', '.join(ANCHORS)}")
    if "jemalloc" in args.anchors and not os.path.exists(JEMALLOC):
        sys.exit(f"compare.py: {JEMALLOC} is missing: install Debian's libjemalloc2 (bash .ci/setup bench), "
                 "or leave jemalloc out of --anchors")
    args.twin, args.keys, args.field, args.timings, args.target, args.reported = WORKLOADS[args.workload]
    by_threads = {}
    with tempfile.TemporaryDirectory() as tmp:
        for threads in sorted({int(t) for t in args.threads.split(",")}):
            by_threads[threads] = measure(args, threads, tmp)
    for threads, measured in by_threads.items():
        print_tables(args, threads, measured)
    if 1 in by_threads and len(by_threads) > 1:
        print_scaling(args, by_threads)


if __name__ == "__main__":
    main()
