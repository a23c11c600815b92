#!/usr/bin/python3
"""W5 in PyTorch, the twin of attnlab-bench W5: d2l 0.17 §10.7's Transformer trained on 600
fra-eng pairs (../shared BENCHMARKS.md; d2l's code in bench/d2l_transformer.py).

usage: /usr/bin/python3 bench/w5_transformer.py [--threads N] [--seed S] [--epochs E]
                                                [--pairs P] [--positions d2l|step]
--positions step decodes the translations with P[t] at step t (d2l adds P[0] at every step).
Prints one JSON line with the same fields as `attnlab-bench W5`; progress goes to stderr.
"""
import json
import statistics

import torch

import d2l_transformer as d2l
from torch_twin import arguments, set_threads

# d2l §10.7's four test sentences and their references
ENGS = ["go .", "i lost .", "he's calm .", "i'm home ."]
FRAS = ["va !", "j'ai perdu .", "il est calme .", "je suis chez moi ."]


def main():
    args = arguments(epochs=200, pairs=600, positions=("d2l", "step"))
    set_threads(torch, args.threads)
    torch.manual_seed(args.seed)
    train_iter, src_vocab, tgt_vocab, _ = d2l.load_data_nmt(d2l.BATCH_SIZE, d2l.NUM_STEPS, args.pairs)
    net = d2l.transformer(src_vocab, tgt_vocab)
    seconds, metric = d2l.train_seq2seq(net, train_iter, d2l.LR, args.epochs, tgt_vocab)
    net.decoder.step_positions = args.positions == "step"
    with torch.no_grad():
        translations = {eng: d2l.predict_seq2seq(net, eng, src_vocab, tgt_vocab, d2l.NUM_STEPS) for eng in ENGS}
    print(json.dumps({
        "workload": "W5", "threads": args.threads, "epochs": args.epochs,
        "median_epoch_s": statistics.median(seconds),
        "final_train_loss": metric[0] / metric[1] * d2l.NUM_STEPS,
        "d2l_loss": metric[0] / metric[1],
        "translations": translations,
        "bleu": {eng: d2l.bleu(translations[eng], fra, k=2) for eng, fra in zip(ENGS, FRAS)},
        "exact": sum(translations[eng] == fra for eng, fra in zip(ENGS, FRAS)),
    }))


if __name__ == "__main__":
    main()
