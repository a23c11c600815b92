#!/usr/bin/python3
"""W10's PyTorch twin (BENCHMARKS.md): graph attention (Velickovic et al. 2018) on Zachary's
karate club as a PyTorch user writes it without a graph library (the dense GAT layer of the
reference implementations): identity features, 2 layers (8 heads of 8, concatenated, ELU; one
output head of 2 classes), LeakyReLU(0.2) scores masked by the adjacency with self-loops,
dropout 0.6 on each layer's input and on the weights, Adam at 0.005, the loss on members 0 and
33. 200 epochs, each one update on the whole graph then the validation accuracy (every other
member) under torch.no_grad; the median epoch time. Prints one JSON line with the fields of
`attnlab-bench W10`.

usage: /usr/bin/python3 bench/w10_gat.py [--threads N] [--seed S]
"""
import json
import os
import sys
import time

import torch
from torch import nn
from torch.nn import functional as F

from torch_twin import arguments, set_threads

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "datasets", "karate-club")


def karate():
    """Adjacency with self-loops [n, n] (bool) and each member's club."""
    with open(os.path.join(DATA, "clubs.txt")) as f:
        labels = dict(map(int, line.split()) for line in f if line.strip() and not line.startswith("#"))
    n = len(labels)
    adjacency = torch.eye(n, dtype=torch.bool)
    with open(os.path.join(DATA, "edges.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                i, j = map(int, line.split()[:2])
                adjacency[i, j] = adjacency[j, i] = True
    return adjacency, torch.tensor([labels[i] for i in range(n)])


class GatLayer(nn.Module):
    def __init__(self, fan_in, heads, out, dropout):
        super().__init__()
        self.heads, self.out, self.dropout = heads, out, dropout
        self.W = nn.Linear(fan_in, heads * out, bias=False)
        nn.init.xavier_uniform_(self.W.weight)
        self.a_q = nn.Parameter(torch.empty(heads, out))
        self.a_k = nn.Parameter(torch.empty(heads, out))
        nn.init.xavier_uniform_(self.a_q)
        nn.init.xavier_uniform_(self.a_k)

    def forward(self, h, adjacency):
        n = h.shape[0]
        z = self.W(F.dropout(h, self.dropout, self.training)).view(n, self.heads, self.out).transpose(0, 1)  # [H, n, F]
        e = F.leaky_relu((z * self.a_q[:, None]).sum(-1)[:, :, None] + (z * self.a_k[:, None]).sum(-1)[:, None, :], 0.2)
        alpha = torch.softmax(e.masked_fill(~adjacency, float("-inf")), -1)
        return F.dropout(alpha, self.dropout, self.training) @ z  # [H, n, F]


class Gat(nn.Module):
    def __init__(self, n, classes):
        super().__init__()
        self.hidden = GatLayer(n, 8, 8, 0.6)
        self.output = GatLayer(64, 1, classes, 0.6)

    def forward(self, x, adjacency):
        h = F.elu(self.hidden(x, adjacency).transpose(0, 1).reshape(x.shape[0], -1))
        return self.output(h, adjacency).mean(0)


def main():
    args = arguments()
    set_threads(torch, args.threads)
    torch.manual_seed(args.seed)
    adjacency, labels = karate()
    n = len(labels)
    x, train, valid = torch.eye(n), torch.tensor([0, n - 1]), torch.arange(1, n - 1)
    model = Gat(n, int(labels.max()) + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
    epochs, accuracy = [], 0.0
    for _ in range(200):
        start = time.perf_counter()
        model.train()
        loss = F.cross_entropy(model(x, adjacency)[train], labels[train])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            accuracy = (model(x, adjacency)[valid].argmax(1) == labels[valid]).float().mean().item()
        epochs.append((time.perf_counter() - start) * 1e3)
    epoch_ms = sorted(epochs)[len(epochs) // 2]
    print(f"W10 twin: {epoch_ms:.3f} ms an epoch, validation accuracy {accuracy:.4f}", file=sys.stderr)
    print(json.dumps({"workload": "W10", "threads": args.threads, "epochs": len(epochs), "median_epoch_ms": epoch_ms,
                      "valid_accuracy": accuracy}))


if __name__ == "__main__":
    main()
