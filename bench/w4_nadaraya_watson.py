#!/usr/bin/python3
"""W4 in PyTorch, the twin of attnlab-bench W4: Nadaraya-Watson kernel regression, d2l 0.17
§10.2 (../shared BENCHMARKS.md, W4).

usage: /usr/bin/python3 bench/w4_nadaraya_watson.py [--threads N] [--seed S] [--data FILE]
FILE holds one JSON line (attnlab-bench W4's output) with "x_train", "y_train" and "w_init":
the twin then fits exactly that data from exactly that w, so both sides must agree to 1e-4.
Prints one JSON line with the same fields as `attnlab-bench W4`; progress goes to stderr.
"""
import json
import sys

import torch
from torch import nn

from torch_twin import arguments, median_us, set_threads

N_TRAIN, EPOCHS, LR = 50, 5, 0.5


def f(x):
    """The noise-free curve y = 2 sin(x) + x^0.8."""
    return 2 * torch.sin(x) + x ** 0.8


def draw(seed):
    """d2l's draw, in d2l's order: x = sorted(U(0,1) * 5), y = f(x) + N(0, 0.5), then w ~ U(0,1)
    (NWKernelRegression's torch.rand((1,)))."""
    torch.manual_seed(seed)
    x_train, _ = torch.sort(torch.rand(N_TRAIN) * 5)
    y_train = f(x_train) + torch.normal(0.0, 0.5, (N_TRAIN,))
    return x_train, y_train, float(torch.rand((1,)))


def load(path):
    """x_train, y_train (float32) and w_init from attnlab-bench W4's JSON line."""
    with open(path) as file:
        result = json.loads(file.read().strip().splitlines()[-1])
    x_train = torch.tensor(result["x_train"], dtype=torch.float32)
    y_train = torch.tensor(result["y_train"], dtype=torch.float32)
    return x_train, y_train, float(result["w_init"])


def nonparametric(x_test, x_train, y_train):
    """f(x) = sum_i softmax_i(-(x - x_i)^2 / 2) y_i over all training points (d2l's X_repeat)."""
    X_repeat = x_test.repeat_interleave(len(x_train)).reshape((-1, len(x_train)))
    attention_weights = nn.functional.softmax(-(X_repeat - x_train) ** 2 / 2, dim=1)
    return torch.matmul(attention_weights, y_train)


class NWKernelRegression(nn.Module):
    """d2l's parametric kernel: f(q) = sum_i softmax_i(-((q - k_i) w)^2 / 2) v_i, one key row per
    query (keys, values [n_q, n_k])."""

    def __init__(self, w_init):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([w_init], dtype=torch.float32))

    def forward(self, queries, keys, values):
        queries = queries.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]))
        self.attention_weights = nn.functional.softmax(-((queries - keys) * self.w) ** 2 / 2, dim=1)
        return torch.bmm(self.attention_weights.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)


def leave_one_out(x_train, y_train):
    """Keys and values of training query i: every training point but the i-th ([n, n - 1])."""
    n = len(x_train)
    others = (1 - torch.eye(n)).type(torch.bool)
    return x_train.repeat((n, 1))[others].reshape((n, -1)), y_train.repeat((n, 1))[others].reshape((n, -1))


def fit(x_train, y_train, keys, values, w_init):
    """d2l's loop: EPOCHS full-batch SGD steps (lr 0.5) on L(w) = sum_i (f(x_i) - y_i)^2;
    returns the model and L before each step (what d2l prints)."""
    net = NWKernelRegression(w_init)
    loss = nn.MSELoss(reduction='none')
    trainer = torch.optim.SGD(net.parameters(), lr=LR)
    losses = []
    for _ in range(EPOCHS):
        trainer.zero_grad()
        l = loss(net(x_train, keys, values), y_train)
        l.sum().backward()
        trainer.step()
        losses.append(float(l.sum()))
    return net, losses


@torch.no_grad()
def predict(net, x_test, x_train, y_train):
    """Both predictions on the test grid; the parametric one sees all training points."""
    n_test = len(x_test)
    return (nonparametric(x_test, x_train, y_train),
            net(x_test, x_train.repeat((n_test, 1)), y_train.repeat((n_test, 1))))


def main():
    args = arguments(data="")
    set_threads(torch, args.threads)
    x_train, y_train, w_init = load(args.data) if args.data else draw(args.seed)
    x_test = torch.arange(0, 5, 0.1)
    y_truth = f(x_test)
    keys, values = leave_one_out(x_train, y_train)
    net, losses = fit(x_train, y_train, keys, values, w_init)
    y_np, y_p = predict(net, x_test, x_train, y_train)
    mse = lambda y_hat: float(((y_hat - y_truth) ** 2).mean())
    print(f"W4 torch: w {float(net.w):.6f}, losses {losses}", file=sys.stderr)
    fit_us = median_us(lambda: fit(x_train, y_train, keys, values, w_init), 50, 5)
    predict_us = median_us(lambda: predict(net, x_test, x_train, y_train), 50, 5)
    print(json.dumps({
        "workload": "W4", "threads": args.threads,
        "nonparametric_test_mse": mse(y_np), "parametric_test_mse": mse(y_p),
        "w": float(net.w), "train_losses": losses,
        "median_fit_us": fit_us, "median_predict_us": predict_us,
    }))


if __name__ == "__main__":
    main()
