#!/usr/bin/python3
"""W6: peak resident memory (ru_maxrss of the process, from wait4) of one W2 run and one W5 run
(target <= 0.25x), and of W8's and W9's benchmarks (target <= 0.5x), attnlab against its PyTorch
twin, and of sweeps of 6, 12 and 24 runs at --threads 2 (bench/sweep-8.yaml with more seeds): the
peak must not grow with the runs already finished. The twin runs under glibc's allocator as it
comes and with the tunables bench/compare.py gives it (which keep freed memory): the ratio is
against the smaller of its two peaks.

usage: /usr/bin/python3 bench/memory.py [--build build] [--workloads W2,W5,W8,W9] [--no-sweeps]
Prints the tables docs/performance.md records.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare import TUNABLES  # noqa: E402  (the twin's heap thresholds, as compare.py sets them)


def peak_mb(cmd, env=None):
    """Runs cmd (output discarded) and returns its peak resident memory in MB."""
    with open(os.devnull, "w") as null, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=null, stderr=err, env=None if env is None else {**os.environ, **env})
        _, status, usage = os.wait4(proc.pid, 0)
        if status != 0:
            err.seek(0)
            sys.exit(f"memory.py: {' '.join(cmd)} failed ({status}):\n" + err.read()[-2000:])
    return usage.ru_maxrss / 1024.0  # KB on Linux


def workloads(build):
    """(name, attnlab's command, the twin's command, target ratio) of each workload."""
    bench = os.path.join(build, "bench", "attnlab-bench")
    twin = lambda script, *extra: ["/usr/bin/python3", os.path.join(HERE, script), *extra]
    return {"W2": ("W2 (one run, 30 epochs)", [bench, "W2"], twin("w2_bahdanau.py"), 0.25),
            "W5": ("W5 (one run, 200 epochs)", [bench, "W5"], twin("w5_transformer.py"), 0.25),
            "W8": ("W8 (ViT at 96 x 96, 5 steps)", [bench, "W8"], twin("w8_vit.py"), 0.5),
            "W9": ("W9 (character LM, 11 steps and evaluation at 512)", [bench, "W9"], twin("w9_char_lm.py"), 0.5)}


def sweeps(build, out_dir):
    attnlab = os.path.join(build, "attnlab")
    spec = os.path.join(HERE, "sweep-8.yaml")
    for runs in (6, 12, 24):
        seeds = ",".join(str(s) for s in range(1, runs + 1))
        out = os.path.join(out_dir, f"sweep-{runs}.h5")
        yield runs, peak_mb([attnlab, "run", spec, "--threads", "2", "--force", "--output", out,
                             "--set", f"sweep.seed=[{seeds}]"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--workloads", default="W2,W5,W8,W9")
    parser.add_argument("--no-sweeps", action="store_true")
    args = parser.parse_args()
    tunables = {"GLIBC_TUNABLES": TUNABLES}
    print("| workload | attnlab peak MB | PyTorch peak MB (glibc) | PyTorch peak MB (tunables) | ratio | target | met |\n"
          "| --- | --- | --- | --- | --- | --- | --- |")
    table = workloads(args.build)
    for key in args.workloads.split(","):
        name, ours, theirs, target = table[key]
        a, plain, tuned = peak_mb(ours), peak_mb(theirs), peak_mb(theirs, tunables)
        ratio = a / min(plain, tuned)
        print(f"| {name} | {a:.1f} | {plain:.1f} | {tuned:.1f} | {ratio:.2f}x | <= {target}x | {'yes' if ratio <= target else 'NO'} |")
    if args.no_sweeps:
        return
    with tempfile.TemporaryDirectory() as out_dir:
        print("\n| sweep runs (--threads 2) | attnlab peak MB |\n| --- | --- |")
        for runs, mb in sweeps(args.build, out_dir):
            print(f"| {runs} | {mb:.1f} |")


if __name__ == "__main__":
    main()
