#!/usr/bin/python3
"""W9's PyTorch twin (BENCHMARKS.md): d2l-neu's attention-only character model of The Time
Machine (bench/positional_twin.py's CharModel: 128 wide, 4 heads, 2 blocks, tied head) with
learned positions, AdamW at 1e-3, batch 64, context 128: the median time of a training step over
10 steps after 1, and of an evaluation at context 512 (the loss of 64 windows of 512 characters
under torch.no_grad, median of 5 after 1). Prints one JSON line with the fields of
`attnlab-bench W9`.

usage: /usr/bin/python3 bench/w9_char_lm.py [--threads N] [--seed S]
"""
import json
import sys

import torch
from torch.nn import functional as F

from positional_twin import CharModel, corpus, windows
from torch_twin import arguments, median_us, set_threads, timed_step


def main():
    args = arguments()
    set_threads(torch, args.threads)
    torch.manual_seed(args.seed)
    ids, vocab = corpus()
    model = CharModel(vocab, "learned")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    x, y = windows(ids, 128, 0, 64 * 11)
    steps, losses = [], []
    for i in range(11):
        rows = slice(i * 64, (i + 1) * 64)
        took, loss = timed_step(lambda: F.cross_entropy(model(x[rows]).reshape(-1, vocab), y[rows].reshape(-1)), optimizer)
        losses.append(loss)
        if i > 0:
            steps.append(took)
    x512, y512 = windows(ids, 512, 1000, 64)
    model.eval()

    def evaluate():
        with torch.no_grad():
            logits = model(x512)
            F.cross_entropy(logits.reshape(-1, vocab), y512.reshape(-1))

    eval_ms = median_us(evaluate, 5, 1) / 1e3
    step_ms = sorted(steps)[len(steps) // 2]
    print(f"W9 twin: {step_ms:.2f} ms a step, evaluation at 512 {eval_ms:.2f} ms", file=sys.stderr)
    print(json.dumps({"workload": "W9", "threads": args.threads, "median_step_ms": step_ms, "eval512_ms": eval_ms,
                      "first_loss": losses[0], "last_loss": losses[-1]}))


if __name__ == "__main__":
    main()
