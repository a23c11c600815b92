"""attnlab's results files as pandas DataFrames and numpy arrays (docs/analysis.md).

    import attnlab
    results = attnlab.Results("tiny.h5")
    results.runs                  # one row per run: id, status, seed, swept keys, final metrics
    results.history()             # one row per run and epoch: every history column
    results.lengths()             # one row per run and length (evaluation.lengths)
    results.heads()               # one row per run, map, layer and head: attention metrics, detectors
    results.attention_history()   # the same per epoch
    results.ablation()            # attnlab ablate: one row per run, map, layer and head
    weights, queries, keys = results.map("scoring-dot_seed-1", "example_0", "cross")

Every table is long ("tidy"): filter and pivot it with pandas. Reads every format attnlab
writes (format 4 to 6 kept the per-head history inside history/). Needs h5py, numpy and pandas
(Debian: python3-h5py, python3-numpy, python3-pandas).
"""
import h5py
import numpy as np
import pandas as pd

__all__ = ["Results"]


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def _point(yaml_text):
    """A run's sweep_point attribute ("key: value" lines, or "{}") as a dict of strings."""
    text = _text(yaml_text).strip()
    if text in ("", "{}"):
        return {}
    point = {}
    for line in text.splitlines():
        key, _, value = line.partition(": ")
        point[key.strip()] = value.strip().strip("'\"")
    return point


def _number(text):
    """A swept value as a number when it is one ("0.5" -> 0.5), else the string."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _grid_rows(run_id, group, extra=None):
    """<group>/<map>/<metric> arrays [..., layer, head] as rows: run, (extra), map, layer, head, metrics."""
    rows = {}
    for map_name, metrics in group.items():
        for metric, data in metrics.items():
            values = data[()]
            lead = values.shape[:-2]  # () for [layer, head], (epochs,) for [epoch, layer, head]
            for index in np.ndindex(values.shape):
                outer, (layer, head) = index[:len(lead)], index[len(lead):]
                key = (run_id, *outer, map_name, layer, head)
                rows.setdefault(key, {})[metric] = float(values[index])
    columns = ["run", *(extra or []), "map", "layer", "head"]
    frame = pd.DataFrame([dict(zip(columns, key), **metrics) for key, metrics in rows.items()])
    return frame


class Results:
    """One results file, opened for reading for as long as the object lives (or a `with` block)."""

    def __init__(self, path):
        self.path = path
        self.file = h5py.File(path, "r")
        if _text(self.file.attrs.get("format", "")) != "attnlab-results":
            raise ValueError(f"{path}: not an attnlab results file (no format attribute 'attnlab-results')")
        self.format_version = int(self.file.attrs.get("format_version", 1))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()

    def _runs(self):
        runs = self.file["runs"]
        return sorted(runs.items(), key=lambda item: int(item[1].attrs.get("index", 0)))

    @property
    def runs(self):
        """One row per run, in sweep order: id, status, seed, index, wall_seconds, epochs_done,
        one column per swept key (values as numbers where they are), every final metric (the
        metric.* attributes without the prefix) and config (the resolved YAML)."""
        rows = []
        for run_id, run in self._runs():
            a = run.attrs
            row = {"id": run_id, "status": _text(a.get("status", "")), "seed": int(a.get("seed", 0)),
                   "index": int(a.get("index", 0)), "wall_seconds": float(a.get("wall_seconds", np.nan)),
                   "epochs_done": int(a.get("epochs_done", 0))}
            row.update({k: _number(v) for k, v in _point(a.get("sweep_point", "{}")).items() if k != "seed"})
            row.update({k[len("metric."):]: float(v) for k, v in a.items() if k.startswith("metric.")})
            row["config"] = _text(a.get("config", ""))
            rows.append(row)
        return pd.DataFrame(rows)

    def history(self, run=None):
        """One row per run and epoch: run, then every column of history/ (NaN where an epoch was
        not evaluated). `run`: one run's id, else every run."""
        frames = []
        for run_id, group in self._runs():
            if run is not None and run_id != run:
                continue
            history = group["history"]
            columns = {k: history[k][()] for k in history if isinstance(history[k], h5py.Dataset)}
            if columns:
                frames.append(pd.DataFrame(columns).assign(run=run_id))
        frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["run", "epoch"])
        return frame[["run"] + [c for c in frame.columns if c != "run"]]

    def lengths(self):
        """One row per run and length of evaluation.lengths: run, length, the metrics there."""
        frames = [pd.DataFrame({k: g["lengths"][k][()] for k in g["lengths"]}).assign(run=run_id)
                  for run_id, g in self._runs() if "lengths" in g]
        frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["run", "length"])
        frame["length"] = frame["length"].astype(int)
        return frame[["run"] + [c for c in frame.columns if c != "run"]]

    def heads(self):
        """The final model's attention metrics and head detectors per head: one row per run, map,
        layer and head (attention_metrics/)."""
        frames = [_grid_rows(run_id, g["attention_metrics"]) for run_id, g in self._runs()
                  if "attention_metrics" in g and len(g["attention_metrics"])]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["run", "map", "layer", "head"])

    def attention_history(self):
        """The attention metrics per head at each measured epoch: one row per run, epoch, map,
        layer and head (attention_history/; history/attention/ in files before format 7)."""
        frames = []
        for run_id, g in self._runs():
            group = g.get("attention_history", g["history"].get("attention") if "history" in g else None)
            if group is None or not len(group):
                continue
            frame = _grid_rows(run_id, group, ["epoch"])
            epochs = g["history"]["epoch"][()]
            frame["epoch"] = epochs[frame["epoch"].to_numpy()].astype(int)  # an index into the history -> its epoch
            frames.append(frame.dropna(how="all", subset=[c for c in frame.columns if c not in ("run", "epoch", "map", "layer", "head")]))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["run", "epoch", "map", "layer", "head"])

    def ablation(self):
        """attnlab ablate's results: one row per run, map, layer and head, with the change of each
        metric when that head is switched off ("<metric>") and the head's importance
        ("importance", "importance_raw"); the baseline metrics are in heads/'s attributes."""
        frames = []
        for run_id, g in self._runs():
            if "heads" not in g:
                continue
            ablation = _grid_rows(run_id, g["heads/ablation"])
            importance = _grid_rows(run_id, g["heads/importance"])
            frames.append(ablation.merge(importance, on=["run", "map", "layer", "head"], how="outer"))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["run", "map", "layer", "head"])

    def map(self, run, example, map_name):
        """One recorded map: weights [layer, head, query, key] (numpy), and the query and key
        labels (tokens, x values or positions). `example`: "example_<i>", or "probe_<n>"."""
        group = self.file["runs"][run]["probes" if example.startswith("probe_") else "attention"][example][map_name]
        return group["weights"][()], list(group["queries"].asstr()[()]), list(group["keys"].asstr()[()])
