#!/usr/bin/python3
"""Compares two attnlab results files object by object, bit for bit: every group, dataset
(dtype, shape, bytes) and attribute, except what differs between machines and attempts by
design: the file's `created`, each run's `wall_seconds`, `host` and `resumed_from_epoch`, the
history's `seconds`, and the summary's `wall_seconds_mean` and text table (whose last column is
the wall time; its numbers are the summary's datasets, compared) (docs/scaling.md).

usage: compare_results.py A.h5 B.h5      exit 0 identical; 1 different (each difference listed)
"""
import sys

import h5py
import numpy as np

IGNORED_ATTRIBUTES = {"created", "wall_seconds", "host", "resumed_from_epoch"}
IGNORED_DATASETS = ("/history/seconds", "/summary/wall_seconds_mean")


def tree(f):
    """{path: object} of every group and dataset below the root."""
    objects = {"/": f}
    f.visititems(lambda name, obj: objects.__setitem__("/" + name, obj))
    return objects


def same_value(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def differences(path_a, path_b):
    out = []
    with h5py.File(path_a, "r") as fa, h5py.File(path_b, "r") as fb:
        ta, tb = tree(fa), tree(fb)
        for path in sorted(set(ta) ^ set(tb)):
            out.append(f"{path}: only in {path_a if path in ta else path_b}")
        for path in sorted(set(ta) & set(tb)):
            a, b = ta[path], tb[path]
            if type(a) is not type(b):
                out.append(f"{path}: a {type(a).__name__} in one, a {type(b).__name__} in the other")
                continue
            ignored = IGNORED_ATTRIBUTES | ({"table"} if path == "/summary" else set())
            for name in sorted((set(a.attrs) | set(b.attrs)) - ignored):
                if name not in a.attrs or name not in b.attrs:
                    out.append(f"{path} attribute {name}: only in one file")
                elif not same_value(a.attrs[name], b.attrs[name]):
                    out.append(f"{path} attribute {name}: {a.attrs[name]!r} != {b.attrs[name]!r}")
            if isinstance(a, h5py.Dataset) and not path.endswith(IGNORED_DATASETS) and not same_value(a[()], b[()]):
                out.append(f"{path}: the data differ")
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    found = differences(sys.argv[1], sys.argv[2])
    for line in found:
        print(line)
    print(f"{len(found)} difference{'s' if len(found) != 1 else ''} between {sys.argv[1]} and {sys.argv[2]}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
