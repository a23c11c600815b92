#!/usr/bin/python3
"""attnlab's experiments/positional-extrapolation.yaml against its PyTorch twin (bench/positional_twin.py)
and against d2l-neu's printed table: the reproduction's checks, as a Markdown table.

usage: /usr/bin/python3 bench/positional_compare.py RESULTS TWIN.jsonl [--attnlab build/attnlab]
       /usr/bin/python3 bench/positional_compare.py --twin TWIN.jsonl   (the twin's runs so far, as docs/reproductions.md shows them)
       /usr/bin/python3 bench/positional_compare.py --runs RESULTS.h5   (attnlab's runs as JSON lines in the twin's form)

RESULTS is attnlab's results file, or its runs as --runs wrote them (a file ending in .jsonl):
docs/reproductions.md quotes the comparison of bench/results/positional-attnlab.jsonl, which a
results file of over 20 MB is not committed for.

Validation perplexity per scheme and context, mean ± std over seeds on each side. The checks:
  - the qualitative result: alibi and none change less than 10% from 128 to 512; rope is the
    best of the five at 128; learned, sinusoidal and rope are at least twice as bad at 512 as
    at 128 (attnlab's means);
  - the twin: the means within 5% of each other at 128; at 256 and 512 within two standard
    deviations (the larger side's) of each other.
Exit status 0 when every check holds, 1 otherwise.
"""
import csv
import io
import json
import re
import statistics
import subprocess
import sys

SCHEMES = ["learned", "sinusoidal", "rope", "alibi", "none"]
CONTEXTS = ["128", "256", "512"]
D2L_NEU = {"learned": [6.0, 15.9, 26.1], "sinusoidal": [6.9, 19.8, 35.1], "rope": [5.1, 14.9, 69.5],
           "alibi": [7.3, 7.3, 7.2], "none": [9.2, 9.4, 9.5]}


def attnlab_side(results, attnlab):
    """scheme -> context -> (mean, std) from `attnlab compare --format csv`."""
    text = subprocess.run([attnlab, "compare", results, "--format", "csv"], check=True, capture_output=True, text=True).stdout
    out = {}
    for row in csv.DictReader(io.StringIO(text)):
        scheme = row["sweep_point"].split("=")[-1]
        out[scheme] = {c: (float(row[f"valid_ppl@{c}_mean"]), float(row[f"valid_ppl@{c}_std"] or 0)) for c in CONTEXTS}
    return out


def attnlab_runs(results):
    """attnlab's runs, one JSON line each as the twin writes them: scheme, seed, the validation
    perplexity at each context (the run's lengths/ group), and the run's wall time."""
    import h5py
    with h5py.File(results, "r") as f:
        for run_id, run in f["runs"].items():
            found = re.fullmatch(r"positional-(\w+)_seed-(\d+)", run_id)
            if found is None or "lengths" not in run or run.attrs["status"] not in (b"finished", b"early_stopped"):
                sys.exit(f"{results}: run '{run_id}' is not a finished run of experiments/positional-extrapolation.yaml")
            lengths = run["lengths"]
            ppl = {str(int(n)): float(v) for n, v in zip(lengths["length"][()], lengths["valid_ppl"][()])}
            print(json.dumps({"positional": found[1], "seed": int(found[2]), "valid_ppl": ppl,
                              "seconds": round(float(run.attrs["wall_seconds"]), 1)}))
    return 0


def twin_side(path):
    """scheme -> context -> (mean, std) over the seeds of the twin's JSON lines."""
    values = {}
    with open(path) as f:
        for r in map(json.loads, filter(str.strip, f)):
            for c in CONTEXTS:
                values.setdefault(r["positional"], {}).setdefault(c, []).append(r["valid_ppl"][c])
    return {s: {c: (statistics.mean(v), statistics.stdev(v) if len(v) > 1 else 0.0) for c, v in by.items()} for s, by in values.items()}


def twin_table(path):
    """The twin's mean at 128 / 256 / 512 per scheme, with the seeds measured: the table of docs/reproductions.md."""
    seeds = {}
    with open(path) as f:
        for r in map(json.loads, filter(str.strip, f)):
            seeds.setdefault(r["positional"], []).append(r["seed"])
    means = twin_side(path)
    print("| scheme | seeds | twin |\n| --- | --- | --- |")
    for s in SCHEMES:
        if s in means:
            shown = " / ".join(f"{means[s][c][0]:.2f}" if means[s][c][0] < 10 else f"{means[s][c][0]:.1f}" for c in CONTEXTS)
            print(f"| {s} | {', '.join(map(str, sorted(seeds[s])))} | {shown} |")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--twin":
        return twin_table(sys.argv[2])
    if len(sys.argv) == 3 and sys.argv[1] == "--runs":
        return attnlab_runs(sys.argv[2])
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    attnlab = sys.argv[sys.argv.index("--attnlab") + 1] if "--attnlab" in sys.argv else "build/attnlab"
    results = sys.argv[1]
    a = twin_side(results) if results.endswith(".jsonl") else attnlab_side(results, attnlab)
    t = twin_side(sys.argv[2])
    failures = []
    print("| scheme | context | attnlab | PyTorch twin | d2l-neu | twin check |")
    print("| --- | --- | --- | --- | --- | --- |")
    for s in SCHEMES:
        for k, c in enumerate(CONTEXTS):
            (ma, sa), (mt, st) = a[s][c], t.get(s, {}).get(c, (float("nan"), float("nan")))
            if c == "128":
                ok, rule = abs(ma - mt) <= 0.05 * mt, f"{abs(ma - mt) / mt:.1%} of the twin (≤ 5%)"
            else:
                ok, rule = abs(ma - mt) <= 2 * max(sa, st), f"difference {abs(ma - mt):.2f} vs 2σ {2 * max(sa, st):.2f}"
            failures += [] if ok else [f"{s} at {c}: {rule}"]
            print(f"| {s} | {c} | {ma:.2f} ± {sa:.2f} | {mt:.2f} ± {st:.2f} | {D2L_NEU[s][k]} | {'holds' if ok else 'FAILS'}: {rule} |")
    mean = {s: {c: a[s][c][0] for c in CONTEXTS} for s in SCHEMES}
    for s in ("alibi", "none"):
        change = abs(mean[s]["512"] / mean[s]["128"] - 1)
        print(f"\n{s}: {change:.1%} change from 128 to 512 (< 10%)", end="")
        failures += [] if change < 0.10 else [f"{s} changes {change:.1%} from 128 to 512"]
    best = min(SCHEMES, key=lambda s: mean[s]["128"])
    print(f"\nbest at 128: {best} (rope expected)", end="")
    failures += [] if best == "rope" else [f"the best at 128 is {best}, not rope"]
    for s in ("learned", "sinusoidal", "rope"):
        ratio = mean[s]["512"] / mean[s]["128"]
        print(f"\n{s}: 512 / 128 = {ratio:.2f} (≥ 2)", end="")
        failures += [] if ratio >= 2 else [f"{s} is only {ratio:.2f} times as bad at 512"]
    print("\n\n" + ("every check holds" if not failures else "failed: " + "; ".join(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
