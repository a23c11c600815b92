#!/usr/bin/python3
"""Checks the attnlab Python module (framework/lab/python/attnlab.py) on a results file of
tests/specs/good/tiny-sweep.yaml, and on the same file laid out as format 6 wrote it (the
per-head history and the snapshots inside history/), which it writes as OLD.h5. Prints ok.
usage: check_python_module.py RESULTS.h5 OLD.h5"""
import shutil
import sys

import h5py
import numpy as np

import attnlab

path, old = sys.argv[1], sys.argv[2]
with attnlab.Results(path) as results:
    runs = results.runs
    assert len(runs) == 4 and set(runs["status"]) == {"finished"}, runs
    assert sorted(set(runs["model.attention.scoring"])) == ["additive", "dot"], runs.columns
    assert np.isfinite(runs["valid_loss"]).all() and "config" in runs
    history = results.history()
    for run_id, epochs in zip(runs["id"], runs["epochs_done"]):
        assert (history["run"] == run_id).sum() == epochs, (run_id, epochs)
    assert {"epoch", "train_loss", "valid_loss", "attention.cross.alignment"} <= set(history.columns)
    heads = results.heads()
    assert len(heads) == 4 and {"alignment", "entropy", "gold_mass"} <= set(heads.columns), heads
    per_epoch = results.attention_history()
    assert len(per_epoch) == len(history) and per_epoch["epoch"].dtype.kind == "i", per_epoch
    weights, queries, keys = results.map("scoring-dot_seed-1", "example_0", "cross")
    assert weights.shape[2:] == (len(queries), len(keys)), (weights.shape, queries, keys)
    assert len(results.lengths()) == 0 and len(results.ablation()) == 0

shutil.copy(path, old)
with h5py.File(old, "r+") as f:
    f.attrs["format_version"] = 6
    for run in f["runs"].values():
        for now, before in (("attention_history", "attention"), ("snapshots", "snapshots")):
            if now in run:
                run.move(now, "history/" + before)
with attnlab.Results(old) as before:
    a = per_epoch.sort_values(["run", "epoch"]).reset_index(drop=True)
    b = before.attention_history().sort_values(["run", "epoch"]).reset_index(drop=True)
    assert a.equals(b), (a, b)
    assert before.history().shape == history.shape
print("ok")
