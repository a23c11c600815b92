#!/usr/bin/python3
"""W1 in PyTorch, the twin of attnlab-bench W1 (see ../shared BENCHMARKS.md, W1).

usage: /usr/bin/python3 bench/w1_scoring.py [--threads N] [--seed S]
Prints one JSON line with the same fields as `attnlab-bench W1`.
"""
import json
import sys

import torch

from torch_twin import arguments, median_us, set_threads


def masked_softmax(scores, lens):
    """d2l's masked_softmax: masked positions get -1e6 before the softmax."""
    mask = torch.arange(scores.shape[-1])[None, None, :] < lens[:, None, None]
    return torch.softmax(scores.masked_fill(~mask, -1e6), dim=-1)


def make(scoring, batch, nq, nk, d, h):
    q = torch.randn(batch, nq, d, requires_grad=True)
    k = torch.randn(batch, nk, d, requires_grad=True)
    v = torch.randn(batch, nk, d, requires_grad=True)
    lens = torch.tensor([nk - b % 3 for b in range(batch)])
    params = []
    if scoring == "general":
        W = (torch.randn(d, d) / d ** 0.5).requires_grad_()
        params = [W]
        score = lambda: q @ W @ k.transpose(1, 2)
    elif scoring == "additive":
        W_q = (torch.randn(d, h) / d ** 0.5).requires_grad_()
        W_k = (torch.randn(d, h) / d ** 0.5).requires_grad_()
        w_v = (torch.randn(h) / h ** 0.5).requires_grad_()
        params = [W_q, W_k, w_v]
        # d2l's AdditiveAttention: broadcast to [B, n_q, n_k, h], tanh, project with w_v
        score = lambda: torch.tanh((q @ W_q).unsqueeze(2) + (k @ W_k).unsqueeze(1)) @ w_v
    elif scoring == "scaled_dot":
        score = lambda: q @ k.transpose(1, 2) / d ** 0.5
    else:
        score = lambda: q @ k.transpose(1, 2)
    leaves = [q, k, v] + params

    def step():
        for t in leaves:
            t.grad = None
        torch.bmm(masked_softmax(score(), lens), v).sum().backward()
    return step



def main():
    args = arguments()
    set_threads(torch, args.threads)
    torch.manual_seed(args.seed)
    results = []
    for shape, (batch, nq, nk, d, h) in [("small", (64, 10, 10, 32, 32)), ("large", (16, 256, 256, 64, 64))]:
        for scoring in ["dot", "scaled_dot", "general", "additive"]:
            us = median_us(make(scoring, batch, nq, nk, d, h), 50 if shape == "large" else 200, 10)
            print(f"W1 torch {scoring} {shape}: {us:.1f} us", file=sys.stderr)
            results.append({"scoring": scoring, "shape": shape, "median_us": round(us, 1)})
    print(json.dumps({"workload": "W1_scoring", "threads": args.threads, "results": results}))


if __name__ == "__main__":
    main()
