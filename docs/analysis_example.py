#!/usr/bin/python3
"""Reading an attnlab results file in Python: list the runs, load a parameter, draw an
attention map, read the attention metrics of the probe set (per head, and per epoch) and list
the snapshot epochs. Uses Debian's python3-h5py, python3-numpy and python3-matplotlib.

usage: /usr/bin/python3 docs/analysis_example.py RESULTS.h5 [OUT.png]
(docs/analysis.md walks through it; tests/test_analysis.cpp runs it on a file the runner made.)
"""
import sys

import h5py
import matplotlib
import numpy as np

matplotlib.use("Agg")  # draw to a file, no display needed
import matplotlib.pyplot as plt  # noqa: E402


def text(value):
    """attnlab stores fixed-length UTF-8 strings; h5py hands them over as bytes."""
    return value.decode() if isinstance(value, bytes) else str(value)


def main(path, out):
    with h5py.File(path, "r") as f:
        # 1. The runs, their status and final metrics (attributes named metric.<name>).
        print(f"{text(f.attrs['name'])}: {len(f['runs'])} runs")
        for run_id, run in f["runs"].items():
            metrics = {k[len("metric."):]: float(v) for k, v in run.attrs.items() if k.startswith("metric.")}
            shown = ", ".join(f"{k} {v:.4g}" for k, v in sorted(metrics.items()) if "loss" in k or "exact" in k)
            print(f"  {run_id:28s} {text(run.attrs['status']):9s} {shown}")

        # 2. A parameter: dotted names are nested groups (decoder.output.W -> params/decoder/output/W).
        run_id = next(iter(f["runs"]))
        run = f["runs"][run_id]
        W = run["params/decoder/output/W"][()]
        print(f"{run_id}: decoder.output.W {W.shape} {W.dtype}, mean {W.mean():+.4f}, std {W.std():.4f}")

        # 3. An attention map of a recorded example: weights [layer, head, n_q, n_k] with labels.
        example = run["attention/example_0"]
        name = next(iter(example))  # cross (seq2seq), or encoder_self/decoder_self/cross, or kernel
        m = example[name]
        weights = m["weights"][()][0].mean(axis=0)  # layer 0, averaged over heads -> [n_q, n_k]
        queries, keys = list(m["queries"].asstr()[()]), list(m["keys"].asstr()[()])
        print(f"example_0: '{text(example.attrs['source'])}' -> '{text(example.attrs['prediction'])}', {name} {m['weights'].shape}")

        # 4. Attention on the probe set (docs/concepts/measuring-attention.md): the final model's
        #    metrics, attention_metrics/<map>/<metric> float32 [layer, head].
        for kind, group in run.get("attention_metrics", {}).items():
            for metric, values in group.items():
                print(f"{kind}.{metric} [layer, head]: {np.array2string(values[()], precision=4)}")

        # 5. The same, mean over layers and heads, per epoch: history/attention.<map>.<metric>
        #    (NaN in epochs not evaluated; per head: attention_history/<map>/<metric> [epoch, layer, head]).
        history = run["history"]
        for column in (c for c in history if c.endswith(".alignment")):
            print(f"{column} per epoch: {np.array2string(history[column][()], precision=3)}")

        # 6. Snapshots of the recorded maps (record.epochs): snapshots/epoch_<e>/example_<i>/<map>.
        epochs = sorted(int(e[len("epoch_"):]) for e in run.get("snapshots", {}))
        print(f"snapshot epochs: {epochs}")

    fig, ax = plt.subplots(figsize=(1 + 0.45 * len(keys), 1 + 0.45 * len(queries)))
    image = ax.imshow(weights, cmap="viridis", vmin=0.0)
    ax.set_xticks(range(len(keys)), keys, rotation=45)
    ax.set_yticks(range(len(queries)), queries)
    ax.set_xlabel("keys: source tokens")
    ax.set_ylabel("queries: output tokens")
    ax.set_title(f"{run_id}: {name} attention")
    fig.colorbar(image, ax=ax, label="weight")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "attention.png")
