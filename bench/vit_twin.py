#!/usr/bin/python3
"""d2l 1.0 section 11.8's ViT trained in PyTorch on Fashion-MNIST: the twin of attnlab's `vit`
(experiments/vit-fashion-mnist-small.yaml and experiments/vit-fashion-mnist.yaml).

usage: /usr/bin/python3 bench/vit_twin.py [--threads N] [--seed S] [--epochs E] [--image 28]
         [--patch 7] [--hidden 128] [--mlp 512] [--heads 4] [--blocks 2] [--lr 0.1] [--batch 128]
The data are d2l's: Debian's dataset-fashion-mnist files, resized as torchvision's Resize on
PIL images (when --image is not 28), scaled to [0, 1]; the test split validates. Plain SGD,
minibatches reshuffled every epoch, dropout 0.1 (d2l's emb_dropout and blk_dropout). Prints one
JSON line: the final validation accuracy, the last epoch's training loss, seconds per epoch.
"""
import gzip
import json
import time

import numpy as np
import torch
from PIL import Image

from d2l_vit import ViT
from torch_twin import arguments, set_threads

FILES = "/usr/share/datasets/fashion-mnist/"


def idx(name):
    with gzip.open(FILES + name) as f:
        data = f.read()
    rank = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * rank).reshape(shape)


def images(name, side):
    raw = idx(name)
    if side != raw.shape[1]:
        raw = np.stack([np.asarray(Image.fromarray(x, "L").resize((side, side), Image.BILINEAR)) for x in raw])
    return torch.tensor(raw.astype(np.float32) / 255.0).unsqueeze(1)  # [N, 1, side, side]


def main():
    args = arguments(epochs=5, image=28, patch=7, hidden=128, mlp=512, heads=4, blocks=2, lr=0.1, batch=128)
    set_threads(torch, args.threads)
    torch.manual_seed(args.seed)
    x_train, x_valid = images("train-images-idx3-ubyte.gz", args.image), images("t10k-images-idx3-ubyte.gz", args.image)
    y_train = torch.tensor(idx("train-labels-idx1-ubyte.gz").astype(np.int64))
    y_valid = torch.tensor(idx("t10k-labels-idx1-ubyte.gz").astype(np.int64))
    model = ViT(args.image, 1, args.patch, args.hidden, args.mlp, args.heads, args.blocks, 10, dropout=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    seconds = []
    for epoch in range(args.epochs):
        start, total, model = time.perf_counter(), 0.0, model.train()
        for batch in torch.randperm(len(y_train)).split(args.batch):
            loss = torch.nn.functional.cross_entropy(model(x_train[batch]), y_train[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        seconds.append(time.perf_counter() - start)
        train_loss = total / len(y_train)
        print(f"epoch {epoch + 1}: train_loss {train_loss:.4f} ({seconds[-1]:.1f} s)", flush=True, file=__import__("sys").stderr)
    model.eval()
    with torch.no_grad():
        correct = sum((model(x_valid[b]).argmax(1) == y_valid[b]).sum().item() for b in torch.arange(len(y_valid)).split(256))
    print(json.dumps({"workload": "vit", "seed": args.seed, "valid_accuracy": correct / len(y_valid),
                      "train_loss": train_loss, "seconds_per_epoch": sum(seconds) / len(seconds)}))


if __name__ == "__main__":
    main()
