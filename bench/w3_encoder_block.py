#!/usr/bin/python3
"""W3 in PyTorch, the twin of attnlab-bench W3: one Transformer encoder block, d2l's way
(../shared BENCHMARKS.md, W3; d2l 11.5-11.7).

usage: /usr/bin/python3 bench/w3_encoder_block.py [--threads N] [--seed S]
Prints one JSON line with the same fields as `attnlab-bench W3`.
"""
import json
import math
import sys

import torch
from torch import nn

from torch_twin import arguments, median_us, set_threads

D_MODEL, HEADS, FFN, BATCH = 256, 8, 1024, 16


def sinusoidal(length, dim):
    """P[i, 2j] = sin(i / 10000^(2j/d)), P[i, 2j+1] = cos(i / 10000^(2j/d))"""
    angles = torch.arange(length, dtype=torch.float32)[:, None] / torch.pow(
        10000, torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    table = torch.zeros(length, dim)
    table[:, 0::2], table[:, 1::2] = torch.sin(angles), torch.cos(angles)
    return table


class MultiHeadAttention(nn.Module):
    """d2l's MultiHeadAttention: W_q, W_k, W_v, W_o without bias, scaled dot product per head."""

    def __init__(self):
        super().__init__()
        self.W_q, self.W_k, self.W_v, self.W_o = (nn.Linear(D_MODEL, D_MODEL, bias=False) for _ in range(4))

    def split(self, x):  # [B, T, d] -> [B * heads, T, d / heads]
        b, t, _ = x.shape
        return x.reshape(b, t, HEADS, -1).permute(0, 2, 1, 3).reshape(b * HEADS, t, -1)

    def forward(self, x):
        q, k, v = self.split(self.W_q(x)), self.split(self.W_k(x)), self.split(self.W_v(x))
        weights = torch.softmax(torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1]), dim=-1)
        out = torch.bmm(weights, v)
        b, t = x.shape[0], x.shape[1]
        return self.W_o(out.reshape(b, HEADS, t, -1).permute(0, 2, 1, 3).reshape(b, t, D_MODEL))


class EncoderBlock(nn.Module):
    """Y = LN(X + MHA(X)); out = LN(Y + FFN(Y)), FFN(x) = relu(x W_1 + b_1) W_2 + b_2."""

    def __init__(self):
        super().__init__()
        self.attention = MultiHeadAttention()
        self.norm1, self.norm2 = nn.LayerNorm(D_MODEL), nn.LayerNorm(D_MODEL)
        self.ffn = nn.Sequential(nn.Linear(D_MODEL, FFN), nn.ReLU(), nn.Linear(FFN, D_MODEL))

    def forward(self, x):
        y = self.norm1(x + self.attention(x))
        return self.norm2(y + self.ffn(y))



def main():
    args = arguments()
    set_threads(torch, args.threads)
    torch.manual_seed(args.seed)
    results = []
    for length in (128, 512):
        block = EncoderBlock()
        x = torch.randn(BATCH, length, D_MODEL, requires_grad=True)
        table = sinusoidal(length, D_MODEL)

        def step():
            x.grad = None
            block.zero_grad(set_to_none=True)
            block(x + table).sum().backward()
        ms = median_us(step, 20, 3) / 1000
        print(f"W3 length {length}: {ms:.1f} ms", file=sys.stderr)
        results.append({"length": length, "median_ms": ms})
    print(json.dumps({"workload": "W3", "threads": args.threads, "results": results}))


if __name__ == "__main__":
    main()
