#!/usr/bin/python3
"""W6: peak resident memory (ru_maxrss of the process, from wait4) of one W2 run and one W5 run,
attnlab against its PyTorch twin, and of sweeps of 6, 12 and 24 runs at --threads 2 (bench/
sweep-8.yaml with more seeds): the peak must not grow with the runs already finished.

usage: /usr/bin/python3 bench/memory.py [--build build]
Prints the tables docs/performance.md records (W6); the ratio target is <= 0.25x.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def peak_mb(cmd):
    """Runs cmd (output discarded) and returns its peak resident memory in MB."""
    with open(os.devnull, "w") as null, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=null, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        if status != 0:
            err.seek(0)
            sys.exit(f"memory.py: {' '.join(cmd)} failed ({status}):\n" + err.read()[-2000:])
    return usage.ru_maxrss / 1024.0  # KB on Linux


def workloads(build):
    bench = os.path.join(build, "bench", "attnlab-bench")
    twin = lambda script, *extra: ["/usr/bin/python3", os.path.join(HERE, script), *extra]
    return [("W2 (one run, 30 epochs)", [bench, "W2"], twin("w2_bahdanau.py")),
            ("W5 (one run, 200 epochs)", [bench, "W5"], twin("w5_transformer.py"))]


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
    args = parser.parse_args()
    print("| workload | attnlab peak MB | PyTorch peak MB | ratio | target | met |\n| --- | --- | --- | --- | --- | --- |")
    for name, ours, theirs in workloads(args.build):
        a, t = peak_mb(ours), peak_mb(theirs)
        print(f"| {name} | {a:.1f} | {t:.1f} | {a / t:.2f}x | <= 0.25x | {'yes' if a / t <= 0.25 else 'NO'} |")
    with tempfile.TemporaryDirectory() as out_dir:
        print("\n| sweep runs (--threads 2) | attnlab peak MB |\n| --- | --- |")
        for runs, mb in sweeps(args.build, out_dir):
            print(f"| {runs} | {mb:.1f} |")


if __name__ == "__main__":
    main()
