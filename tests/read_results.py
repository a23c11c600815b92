#!/usr/bin/python3
"""Reads an attnlab results file with h5py the way docs/hdf5-layout.md describes it, and
checks the layout. usage: /usr/bin/python3 tests/read_results.py RESULTS.h5
Exit code 0 and "ok" when everything is where the documentation says."""
import sys

import h5py
import numpy as np


def text(value):
    """attnlab stores fixed-length UTF-8 strings; h5py hands them over as bytes."""
    return value.decode() if isinstance(value, bytes) else str(value)


def main(path):
    with h5py.File(path, "r") as f:
        assert text(f.attrs["format"]) == "attnlab-results", f.attrs["format"]
        assert "dataset:" in text(f.attrs["spec"])
        runs = f["runs"]
        assert len(runs) == int(f.attrs["planned_runs"]), (len(runs), f.attrs["planned_runs"])
        for run_id, run in runs.items():
            assert text(run.attrs["status"]) in ("finished", "early_stopped"), (run_id, run.attrs["status"])
            assert "model:" in text(run.attrs["config"])
            assert run.attrs["wall_seconds"] > 0
            metrics = {k[len("metric."):]: v for k, v in run.attrs.items() if k.startswith("metric.")}
            assert "valid_loss" in metrics and np.isfinite(metrics["valid_loss"]), metrics
            w = run["params/decoder/output/W"][()]
            assert w.dtype == np.float32 and w.ndim == 2, (w.dtype, w.shape)
            history = run["history"]
            assert len(history["epoch"]) == len(history["train_loss"]) > 0
            # every dataset of history/ is a column of one value per epoch
            columns = {k: history[k][()] for k in history}
            assert all(len(c) == len(history["epoch"]) for c in columns.values()), {k: len(c) for k, c in columns.items()}
            for example in run["attention"].values():
                for name, m in example.items():
                    weights = m["weights"][()]
                    assert weights.ndim == 4, weights.shape  # [layer, head, n_q, n_k]
                    assert weights.shape[2] == len(m["queries"]) and weights.shape[3] == len(m["keys"])
                    assert np.allclose(weights.sum(axis=-1), 1.0, atol=1e-4)
                    assert all(isinstance(q, str) for q in m["queries"].asstr()[()])
            assert len(run["vocab/source"]) > 3
        summary = f["summary"]
        assert len(summary["sweep_point"]) == 2
        assert "valid_loss_mean" in summary and "valid_loss_std" in summary
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
