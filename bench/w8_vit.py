#!/usr/bin/python3
"""W8's PyTorch twin (BENCHMARKS.md): d2l 1.0 section 11.8's ViT at its own size (image 96,
patch 16, 512 hidden, MLP 2048, 8 heads, 2 blocks, dropout 0.1) on the first 640 Fashion-MNIST
training images resized as torchvision's Resize does, SGD at 0.1, batch 128: the median time of
a training step over 4 steps after 1, and its fraction of the GEMM limit counted as
bench/w8_vit.cpp counts it, against this process's single-thread sgemm rate (a 512^3 product
through torch.mm with one thread, timed after every step). Prints one JSON line with the fields
of `attnlab-bench W8`.

usage: /usr/bin/python3 bench/w8_vit.py [--threads N] [--seed S]
"""
import json
import sys
import time

import numpy as np
import torch
from PIL import Image

from d2l_vit import ViT
from torch_twin import arguments, set_threads, timed_step
from vit_twin import idx

B, P, C, PATCH, N, D, F, L, K = 128, 36, 1, 16, 37, 512, 2048, 2, 10
FORWARD = 2 * B * P * (C * PATCH * PATCH) * D + L * (8 * B * N * D * D + 4 * B * N * D * F + 4 * B * N * N * D) + 2 * B * D * K


def first_images(count, side):
    raw = idx("train-images-idx3-ubyte.gz")[:count]
    resized = np.stack([np.asarray(Image.fromarray(x, "L").resize((side, side), Image.BILINEAR)) for x in raw])
    return torch.tensor(resized.astype(np.float32) / 255.0).unsqueeze(1)


def sgemm_ms(threads):
    """The median of 4 one-thread 512^3 products (the pool set back to `threads` after)."""
    torch.set_num_threads(1)
    a, b = torch.randn(512, 512), torch.randn(512, 512)
    times = []
    for _ in range(4):
        start = time.perf_counter()
        torch.mm(a, b)
        times.append((time.perf_counter() - start) * 1e3)
    set_threads(torch, threads)
    return sorted(times)[len(times) // 2]


def main():
    args = arguments()
    set_threads(torch, args.threads)
    torch.manual_seed(args.seed)
    x, y = first_images(640, 96), torch.tensor(idx("train-labels-idx1-ubyte.gz")[:640].astype(np.int64))
    model = ViT(96, 1, PATCH, D, F, 8, L, K, dropout=0.1).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    steps, reference, losses = [], [], []
    for i in range(5):
        rows = slice(i * B, (i + 1) * B)
        took, loss = timed_step(lambda: torch.nn.functional.cross_entropy(model(x[rows]), y[rows]), optimizer)
        losses.append(loss)
        if i > 0:
            steps.append(took)
        reference.append(sgemm_ms(args.threads))
    step_ms = sorted(steps)[len(steps) // 2]
    rate = 2 * 512 ** 3 / (sorted(reference)[len(reference) // 2] / 1e3) / 1e9
    gflop = 3 * FORWARD / 1e9
    gflops = gflop / (step_ms / 1e3)
    print(f"W8 twin: {step_ms:.1f} ms a step, {gflops:.1f} GFLOP/s, sgemm {rate:.1f}", file=sys.stderr)
    print(json.dumps({"workload": "W8", "threads": args.threads, "median_step_ms": step_ms, "gflop": gflop,
                      "gflops": gflops, "sgemm_gflops": rate, "fraction_of_gemm_limit": gflops / (rate * args.threads),
                      "first_loss": losses[0], "last_loss": losses[-1]}))


if __name__ == "__main__":
    main()
