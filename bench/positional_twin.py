#!/usr/bin/python3
"""d2l-neu's positional-information experiment in PyTorch: the twin of attnlab's
experiments/positional-extrapolation.yaml.

usage: /usr/bin/python3 bench/positional_twin.py [--threads N] [--seeds 1,2,3] [--steps 3000]
         [--schemes learned,sinusoidal,rope,alibi,none] [--contexts 128,256,512] [--out FILE]
         [--unused-tokens K] [--init-from RESULTS.h5] [--attnlab-order]

The model is the next d2l edition's attention-only character model (TinyCharLM): an embedding
N(0, 0.02^2), 2 blocks X = X + proj(MHA_causal(X)) with one qkv projection and no biases, 4 heads,
128 wide, no FFN, no norm, the output head tied to the embedding; positions learned (a table of
512 rows, N(0, 0.02^2)), sinusoidal (added), rope (queries and keys of each head turned), alibi
(slopes 2^(-8h/H), h = 1..H) or none. The data are d2l's TimeMachine: The Time Machine
(datasets/timemachine/timemachine.txt) with runs of non-letters made one space, lower case, as
characters; window i is characters [i, i + n), its labels the next ones; the first 100000
windows train, the next 3000 validate. Training is d2l's train_lm: AdamW (lr 1e-3, no weight
decay), batches of 64 reshuffled every epoch, 3000 steps. Validation perplexity is
exp(mean cross-entropy over every validation token) at each context (d2l averages its batches'
means, which differs only by its last, smaller batch). Prints one JSON line per scheme: the
perplexity at each context, the last 100 steps' mean training loss and the seconds taken; with
--out, appends them to FILE and skips the (scheme, seed) pairs FILE already holds, so that an
interrupted reproduction continues where it stopped. --unused-tokens K adds K vocabulary entries
that never occur in the text (attnlab's vocabulary holds three, <pad> <bos> <eos>; d2l's one,
<unk>): the tied head still scores them.

Trained on attnlab's random draws: --init-from RESULTS.h5 starts each (scheme, seed) from the
parameters of attnlab's run `positional-SCHEME_seed-SEED` in that file, with attnlab's vocabulary
(<pad> <bos> <eos>, then the characters most frequent first); its initial parameters are those of
a run of one step at a learning rate of 1e-30 (docs/reproductions.md has the command).
--attnlab-order takes the batches in the order attnlab's trainer draws for that seed
(bench/attnlab_rng.py).
"""
import collections
import json
import math
import os
import re
import time

import torch
from torch import nn
from torch.nn import functional as F

from attnlab_rng import orders
from torch_twin import arguments, set_threads

TEXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "datasets", "timemachine", "timemachine.txt")
NUM_TRAIN, NUM_VALID = 100000, 3000


def text():
    """The Time Machine as d2l reads it: runs of non-letters made one space, lower case."""
    with open(TEXT) as f:
        return re.sub("[^A-Za-z]+", " ", f.read()).lower()


def attnlab_vocabulary(characters):
    """attnlab's vocabulary of a text: <pad> <bos> <eos>, then its characters most frequent first
    (ties in order of first appearance)."""
    counts = collections.Counter(characters)
    return ["<pad>", "<bos>", "<eos>"] + sorted(dict.fromkeys(characters), key=lambda c: -counts[c])


def corpus(attnlab=False):
    """The characters of The Time Machine as ids, and the vocabulary's size: d2l's (sorted
    characters) or attnlab's."""
    characters = text()
    vocab = attnlab_vocabulary(characters) if attnlab else sorted(set(characters))
    index = {c: i for i, c in enumerate(vocab)}
    return torch.tensor([index[c] for c in characters]), len(vocab)


def windows(ids, n, first, count):
    """Windows first .. first + count - 1 of n characters and their next characters."""
    starts = torch.arange(first, first + count)
    at = starts[:, None] + torch.arange(n)[None, :]
    return ids[at], ids[at + 1]


def rotate(x):
    """Turns each feature pair (2m, 2m+1) of x [..., n, p] at position i by i * 10000^(-2m/p)."""
    n, p = x.shape[-2], x.shape[-1]
    angle = torch.arange(n, dtype=torch.float32)[:, None] * 10000.0 ** (-torch.arange(0, p, 2) / p)[None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * angle.cos() - odd * angle.sin(), even * angle.sin() + odd * angle.cos()], -1).flatten(-2)


class CharModel(nn.Module):
    def __init__(self, vocab, positional, d=128, heads=4, blocks=2, max_len=512):
        super().__init__()
        self.heads, self.positional = heads, positional
        self.embedding = nn.Embedding(vocab, d)
        nn.init.normal_(self.embedding.weight, std=0.02)
        if positional == "learned":
            self.table = nn.Parameter(torch.randn(max_len, d) * 0.02)
        if positional == "sinusoidal":
            angle = torch.arange(max_len)[:, None] / 10000 ** (torch.arange(0, d, 2) / d)
            self.register_buffer("table", torch.stack([angle.sin(), angle.cos()], -1).reshape(max_len, d))
        self.qkv = nn.ModuleList(nn.Linear(d, 3 * d, bias=False) for _ in range(blocks))
        self.proj = nn.ModuleList(nn.Linear(d, d, bias=False) for _ in range(blocks))

    def attend(self, b, h):
        batch, n, d = h.shape
        q, k, v = (u.reshape(batch, n, self.heads, -1).transpose(1, 2) for u in self.qkv[b](h).chunk(3, -1))
        if self.positional == "rope":
            q, k = rotate(q), rotate(k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if self.positional == "alibi":
            slopes = 2.0 ** (-8.0 * torch.arange(1, self.heads + 1) / self.heads)
            position = torch.arange(n, dtype=torch.float32)
            scores = scores + slopes[:, None, None] * (position[None, :] - position[:, None])
        scores = scores.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
        out = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, n, d)
        return self.proj[b](out)

    def forward(self, x):
        h = self.embedding(x)
        if self.positional in ("learned", "sinusoidal"):
            h = h + self.table[: x.shape[1]]
        for b in range(len(self.qkv)):
            h = h + self.attend(b, h)
        return h @ self.embedding.weight.T


def attnlab_parameters(model):
    """The model's parameters under attnlab's names, as attnlab stores them (x W with W [in, out]):
    views of the model's own tensors."""
    d = model.embedding.weight.shape[1]
    out = {"embedding.weight": model.embedding.weight}
    if isinstance(getattr(model, "table", None), nn.Parameter):
        out["positional.P"] = model.table
    for b in range(len(model.qkv)):
        w = model.qkv[b].weight
        for m, rows in zip("qkv", (w[:d], w[d:2 * d], w[2 * d:])):
            out[f"block{b}.attention.W_{m}.W"] = rows.T
        out[f"block{b}.attention.W_o.W"] = model.proj[b].weight.T
    return out


def start_from(model, path, run):
    """Sets the model's parameters to those of attnlab's run `run` in the results file `path`."""
    import h5py
    with h5py.File(path, "r") as f, torch.no_grad():
        stored = f["runs"][run]["params"]
        for name, tensor in attnlab_parameters(model).items():
            tensor.copy_(torch.from_numpy(stored[name.replace(".", "/")][()]))


def perplexity(model, ids, n):
    x, y = windows(ids, n, NUM_TRAIN, NUM_VALID)
    total = 0.0
    with torch.no_grad():
        for rows in torch.arange(NUM_VALID).split(16):
            logits = model(x[rows])
            total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y[rows].reshape(-1), reduction="sum").item()
    return math.exp(total / (NUM_VALID * n))


def batch_orders(seed, steps, attnlab_order):
    """Each epoch's order of the training windows: PyTorch's randperm, or attnlab's."""
    epochs = -(-steps * 64 // NUM_TRAIN)
    if attnlab_order:
        return [torch.tensor(order) for order in orders(seed, NUM_TRAIN, epochs)]
    return [torch.randperm(NUM_TRAIN) for _ in range(epochs)]


def train(positional, ids, vocab, steps, seed, init_from="", attnlab_order=False):
    torch.manual_seed(seed)
    model = CharModel(vocab, positional)
    if init_from:
        start_from(model, init_from, f"positional-{positional}_seed-{seed}")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    x, y = windows(ids, 128, 0, NUM_TRAIN)
    losses = []
    for order in batch_orders(seed, steps, attnlab_order):
        for rows in order.split(64):
            logits = model(x[rows])
            loss = F.cross_entropy(logits.reshape(-1, vocab), y[rows].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if len(losses) == steps:
                break
    return model, sum(losses[-100:]) / min(100, len(losses))


def done_in(path):
    """The (scheme, seed) pairs an output file already holds."""
    if not path or not os.path.exists(path):
        return set()
    with open(path) as f:
        return {(r["positional"], r["seed"]) for r in map(json.loads, filter(str.strip, f))}


def main():
    args = arguments(steps=3000, seeds="1,2,3", schemes="learned,sinusoidal,rope,alibi,none", contexts="128,256,512", out="", unused_tokens=0,
                     init_from="", attnlab_order=False)
    set_threads(torch, args.threads)
    ids, vocab = corpus(attnlab=bool(args.init_from))
    vocab += args.unused_tokens
    done = done_in(args.out)
    for seed in map(int, args.seeds.split(",")):
        for positional in args.schemes.split(","):
            if (positional, seed) in done:
                continue
            start = time.perf_counter()
            model, train_loss = train(positional, ids, vocab, args.steps, seed, args.init_from, args.attnlab_order)
            trained = time.perf_counter() - start
            model.eval()
            ppl = {n: perplexity(model, ids, int(n)) for n in args.contexts.split(",")}
            line = json.dumps({"positional": positional, "seed": seed, "valid_ppl": ppl, "train_loss": train_loss,
                               "train_seconds": trained, "seconds": time.perf_counter() - start, "threads": args.threads,
                               "unused_tokens": args.unused_tokens, "init_from": args.init_from, "attnlab_order": args.attnlab_order})
            print(line, flush=True)
            if args.out:
                with open(args.out, "a") as f:
                    f.write(line + "\n")


if __name__ == "__main__":
    main()
