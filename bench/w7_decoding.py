#!/usr/bin/python3
"""W7 in PyTorch, the twin of attnlab-bench W7: greedy and beam-4 decoding of fra-eng sentences
with the W5 Transformer, d2l 0.17's decoder loop and state cache (../shared BENCHMARKS.md;
d2l's code in bench/d2l_transformer.py).

usage: /usr/bin/python3 bench/w7_decoding.py [--threads N] [--seed S] [--epochs E]
                                             [--sentences K] [--positions d2l|step]
Trains the W5 model for E epochs (200), then decodes the sources of the first K (500) training
pairs one sentence at a time, for NUM_STEPS steps each, without stopping at <eos>. The sources
are the training arrays: ids + <eos>, padded to the model's num_steps 10, as attnlab pads them.
--positions step adds P[t] at step t (d2l adds P[0] at every step).
Prints one JSON line with the same fields as `attnlab-bench W7`; progress goes to stderr.
"""
import json
import sys
import time

import torch

import d2l_transformer as d2l
from torch_twin import arguments, set_threads

NUM_STEPS, BEAM, ALPHA = 50, 4, 0.75


def start(net, src, src_len):
    """Encode one sentence (ids [num_steps], valid length) once: d2l's state for batch 1."""
    enc_X, enc_valid_len = src.unsqueeze(0), src_len.reshape(1)
    return net.decoder.init_state(net.encoder(enc_X, enc_valid_len), enc_valid_len)


def greedy(net, src, src_len, bos, eos):
    """d2l's predict_seq2seq loop, always NUM_STEPS steps: dec_X = [[<bos>]], then
    Y, state = decoder(dec_X, state), dec_X = argmax Y. The answer stops before the first <eos>."""
    dec_state = start(net, src, src_len)
    dec_X = torch.tensor([[bos]], dtype=torch.long)
    output_seq = []
    for _ in range(NUM_STEPS):
        Y, dec_state = net.decoder(dec_X, dec_state)
        dec_X = Y.argmax(dim=2)
        output_seq.append(dec_X.squeeze(dim=0).type(torch.int32).item())
    return output_seq[:output_seq.index(eos)] if eos in output_seq else output_seq


def select(state, parents):
    """The state of the hypotheses `parents` (d2l's state: encoder outputs, valid lengths, and
    each block's cache state[2][i] [B, t, d], reordered with index_select)."""
    index = torch.tensor(parents, dtype=torch.long)
    enc_outputs, enc_valid_lens = state[0], state[1]
    if enc_outputs.shape[0] != len(parents):  # after the first step: one copy per hypothesis
        enc_outputs = enc_outputs.repeat(len(parents), 1, 1)
        enc_valid_lens = enc_valid_lens.repeat(len(parents))
    return [enc_outputs, enc_valid_lens, [cache.index_select(0, index) for cache in state[2]]]


def walk(live, log_probs, eos, finished):
    """One beam step. Candidates (h, v) score log P_h + log p_h(v), walked in descending order
    (stable: ties by h, then v): <eos> among the first BEAM candidates finishes h with score
    log P / max(|tokens|, 1)^ALPHA; any other token extends h, until BEAM live hypotheses."""
    scores = log_probs.double() + torch.tensor([lp for _, lp in live], dtype=torch.float64)[:, None]
    order = torch.sort(scores.reshape(-1), descending=True, stable=True).indices
    vocab, flat = scores.shape[1], scores.reshape(-1)
    new_live, parents = [], []
    for rank, c in enumerate(order.tolist()):
        h, v = divmod(c, vocab)
        if v == eos:
            if rank < BEAM:
                finished.append((float(flat[c]) / max(len(live[h][0]), 1) ** ALPHA, live[h][0]))
            continue
        new_live.append((live[h][0] + [v], float(flat[c])))
        parents.append(h)
        if len(new_live) == BEAM:
            break
    return new_live, parents


def beam_search(net, src, src_len, bos, eos):
    """Beam BEAM over NUM_STEPS steps, the live hypotheses decoded as one batch; at the end the
    live hypotheses are finished too; the answer is the finished one of the highest score."""
    state = start(net, src, src_len)
    live, finished = [([], 0.0)], []  # (tokens, log P)
    for _ in range(NUM_STEPS):
        dec_X = torch.tensor([[tokens[-1] if tokens else bos] for tokens, _ in live], dtype=torch.long)
        Y, state = net.decoder(dec_X, state)
        live, parents = walk(live, torch.log_softmax(Y[:, -1], dim=-1), eos, finished)
        state = select(state, parents)
    finished += [(lp / max(len(tokens), 1) ** ALPHA, tokens) for tokens, lp in live]
    return max(finished, key=lambda f: f[0])[1]


def decode_all(decoder, net, src, src_len, tgt_vocab):
    """Seconds to decode every sentence one at a time, and the outputs."""
    bos, eos = tgt_vocab['<bos>'], tgt_vocab['<eos>']
    start_time = time.perf_counter()
    outputs = [decoder(net, src[i], src_len[i], bos, eos) for i in range(len(src))]
    return time.perf_counter() - start_time, outputs


def main():
    args = arguments(epochs=200, sentences=500, pairs=600, positions=("d2l", "step"))
    set_threads(torch, args.threads)
    torch.manual_seed(args.seed)
    train_iter, src_vocab, tgt_vocab, arrays = d2l.load_data_nmt(d2l.BATCH_SIZE, d2l.NUM_STEPS, args.pairs)
    net = d2l.transformer(src_vocab, tgt_vocab)
    seconds, _ = d2l.train_seq2seq(net, train_iter, d2l.LR, args.epochs, tgt_vocab)
    net.eval()
    net.decoder.step_positions = args.positions == "step"
    src, src_len = arrays[0][:args.sentences], arrays[1][:args.sentences]
    with torch.no_grad():
        greedy_s, greedy_out = decode_all(greedy, net, src, src_len, tgt_vocab)
        print(f"W7 torch greedy: {greedy_s:.2f} s", file=sys.stderr)
        beam_s, _ = decode_all(beam_search, net, src, src_len, tgt_vocab)
        print(f"W7 torch beam {BEAM}: {beam_s:.2f} s", file=sys.stderr)
    n = len(src)
    print(json.dumps({
        "workload": "W7", "threads": args.threads, "sentences": n, "num_steps": NUM_STEPS,
        "epochs": args.epochs, "greedy_s": greedy_s, "beam_s": beam_s,
        "greedy_ms_per_sentence": greedy_s / n * 1000, "beam_ms_per_sentence": beam_s / n * 1000,
        "train_s": sum(seconds), "mean_greedy_length": sum(map(len, greedy_out)) / n,
    }))


if __name__ == "__main__":
    main()
