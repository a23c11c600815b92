#!/usr/bin/python3
"""W2 in PyTorch, the twin of attnlab-bench W2: d2l's Bahdanau seq2seq trained on the reverse
task (../shared BENCHMARKS.md, W2; d2l 10.7 and 11.4).

usage: /usr/bin/python3 bench/w2_bahdanau.py [--threads N] [--seed S] [--epochs E] [--cell gru|lstm|rnn]
Prints one JSON line with the same fields as `attnlab-bench W2` (W2-lstm, W2-rnn with --cell);
progress goes to stderr.
"""
import json
import random
import statistics
import sys
import time

import torch
from torch import nn

from torch_twin import arguments, set_threads

PAD, BOS, EOS, DIGIT0 = 0, 1, 2, 3  # digits '0'..'9' are 3..12
VOCAB, STEPS = 13, 10
CELLS = {"gru": nn.GRU, "lstm": nn.LSTM, "rnn": nn.RNN}  # nn.RNN: h' = tanh(W x + b + U h + c)


def make_split(n, rng):
    """Sources: 3-8 random digits then <eos>; targets: the digits reversed then <eos>."""
    src = torch.full((n, STEPS), PAD, dtype=torch.long)
    tgt = torch.full((n, STEPS), PAD, dtype=torch.long)
    src_lens, tgt_lens = torch.empty(n, dtype=torch.long), torch.empty(n, dtype=torch.long)
    for i in range(n):
        digits = [DIGIT0 + rng.randrange(10) for _ in range(rng.randint(3, 8))]
        for row, lens, seq in ((src, src_lens, digits), (tgt, tgt_lens, digits[::-1])):
            tokens = (seq + [EOS])[:STEPS]
            row[i, :len(tokens)] = torch.tensor(tokens)
            lens[i] = len(tokens)
    return src, src_lens, tgt, tgt_lens


def masked_softmax(scores, lens):
    """d2l's masked_softmax: positions past the valid length get -1e6 before the softmax."""
    mask = torch.arange(scores.shape[-1])[None, None, :] < lens[:, None, None]
    return torch.softmax(scores.masked_fill(~mask, -1e6), dim=-1)


class AdditiveAttention(nn.Module):
    """score(q, k) = w_v^T tanh(W_q q + W_k k); dropout on the attention weights (d2l)."""

    def __init__(self, hidden, dropout):
        super().__init__()
        self.W_q = nn.Linear(hidden, hidden, bias=False)
        self.W_k = nn.Linear(hidden, hidden, bias=False)
        self.w_v = nn.Linear(hidden, 1, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, lens):
        features = torch.tanh(self.W_q(queries).unsqueeze(2) + self.W_k(keys).unsqueeze(1))
        weights = masked_softmax(self.w_v(features).squeeze(-1), lens)
        return torch.bmm(self.dropout(weights), values)


def top_hidden(state):
    """The top layer's hidden state h[-1]: the state is h [L, B, H] (GRU, RNN) or (h, c) (LSTM)."""
    return (state[0] if isinstance(state, tuple) else state)[-1]


class Seq2SeqAttention(nn.Module):
    """d2l's Seq2SeqEncoder and Seq2SeqAttentionDecoder: query = top-layer decoder state,
    keys = values = encoder outputs, recurrent input = [context, embedding]. The recurrent cell
    is a GRU (d2l's), an LSTM (state (h, c); the query is h) or a tanh RNN."""

    def __init__(self, cell="gru", embed=32, hidden=32, layers=2, dropout=0.1):
        super().__init__()
        self.src_embedding = nn.Embedding(VOCAB, embed)
        self.encoder = CELLS[cell](embed, hidden, layers, dropout=dropout)
        self.attention = AdditiveAttention(hidden, dropout)
        self.tgt_embedding = nn.Embedding(VOCAB, embed)
        self.decoder = CELLS[cell](embed + hidden, hidden, layers, dropout=dropout)
        self.dense = nn.Linear(hidden, VOCAB)
        for m in self.modules():  # d2l's init_seq2seq: Xavier-uniform dense and recurrent weights
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
            if isinstance(m, nn.RNNBase):
                for name in m._flat_weights_names:
                    if "weight" in name:
                        nn.init.xavier_uniform_(getattr(m, name))

    def encode(self, src, src_lens):
        outputs, state = self.encoder(self.src_embedding(src.t()))  # [T, B, H], [L, B, H] (or a pair)
        return outputs.permute(1, 0, 2), state

    def step(self, enc_outputs, src_lens, state, x):
        """One decoder step: x [B, E] -> output [B, H], new state."""
        context = self.attention(top_hidden(state).unsqueeze(1), enc_outputs, enc_outputs, src_lens)
        out, state = self.decoder(torch.cat((context, x.unsqueeze(1)), dim=-1).permute(1, 0, 2), state)
        return out[0], state

    def forward(self, src, src_lens, dec_input):
        enc_outputs, state = self.encode(src, src_lens)
        outputs = []
        for x in self.tgt_embedding(dec_input).permute(1, 0, 2):
            out, state = self.step(enc_outputs, src_lens, state, x)
            outputs.append(out)
        return self.dense(torch.stack(outputs, dim=1))  # [B, T, V]

    @torch.no_grad()
    def greedy(self, src, src_lens):
        enc_outputs, state = self.encode(src, src_lens)
        token = torch.full((src.shape[0],), BOS, dtype=torch.long)
        predictions = []
        for _ in range(STEPS):
            out, state = self.step(enc_outputs, src_lens, state, self.tgt_embedding(token))
            token = self.dense(out).argmax(dim=-1)
            predictions.append(token)
        return torch.stack(predictions, dim=1)


def masked_loss(logits, tgt, tgt_lens):
    """Cross-entropy masked by the target valid length, averaged over valid tokens."""
    mask = (torch.arange(STEPS)[None, :] < tgt_lens[:, None]).float()
    losses = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tgt.reshape(-1), reduction="none")
    return (losses * mask.reshape(-1)).sum() / mask.sum()


def exact_match(model, src, src_lens, tgt, tgt_lens):
    """The prediction up to its first <eos> equals the target up to its <eos>."""
    model.eval()
    predicted = model.greedy(src, src_lens).tolist()
    hits = 0
    for i, row in enumerate(predicted):
        cut = row[:row.index(EOS)] if EOS in row else row
        hits += cut == tgt[i, :tgt_lens[i] - 1].tolist()
    return hits / len(predicted)


def main():
    args = arguments(epochs=30, cell=tuple(CELLS))
    set_threads(torch, args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    train, held_out = make_split(2000, rng), make_split(200, rng)
    src, src_lens, tgt, tgt_lens = train
    model = Seq2SeqAttention(args.cell)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
    epoch_seconds, loss = [], float("nan")
    for epoch in range(args.epochs):
        model.train()
        start = time.perf_counter()
        order = torch.randperm(len(src))
        total, tokens = 0.0, 0
        for first in range(0, len(src), 64):
            b = order[first:first + 64]
            dec_input = torch.cat((torch.full((len(b), 1), BOS, dtype=torch.long), tgt[b, :-1]), dim=1)
            optimizer.zero_grad()
            batch_loss = masked_loss(model(src[b], src_lens[b], dec_input), tgt[b], tgt_lens[b])
            batch_loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            n = int(tgt_lens[b].sum())
            total, tokens = total + batch_loss.item() * n, tokens + n
        epoch_seconds.append(time.perf_counter() - start)
        loss = total / tokens
        print(f"epoch {epoch + 1}/{args.epochs}: loss {loss:.4f}, {epoch_seconds[-1]:.2f} s", file=sys.stderr)
    print(json.dumps({
        "workload": "W2" if args.cell == "gru" else "W2-" + args.cell, "cell": args.cell,
        "threads": args.threads, "epochs": args.epochs,
        "median_epoch_s": statistics.median(epoch_seconds),
        "tokens_per_s": int(tgt_lens.sum()) / statistics.median(epoch_seconds),
        "final_train_loss": loss,
        "exact_match": exact_match(model, *held_out),
    }))


if __name__ == "__main__":
    main()
