#!/usr/bin/python3
"""Regenerates vit.txt: a tiny Vision Transformer's forward values and gradients, in float64.

Run with Debian's python3-torch:   /usr/bin/python3 tests/golden/make_vit_golden.py
The model below is a PyTorch twin of d2l 1.0 section 11.8's ViT: a strided-conv patch embedding,
a prepended cls token, learned positions, pre-norm blocks (d2l's MultiHeadAttention without biases,
then a GELU MLP), and LayerNorm + Linear on the cls position. It runs tiny: 8 x 8 grey images,
4 x 4 patches, d 8, MLP 16, 2 heads, 2 blocks, 3 classes, batch 2, dropout 0, every parameter
drawn from a fixed seed. The C++ side is tests/test_torch_golden.cpp ("vit matches PyTorch"): it
reads the images, labels and parameters from the file. Same file format as make_golden.py, with
parameters in attnlab's layout (a Linear's W [in, out] is PyTorch's weight transposed).
"""
import os
import sys

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_golden import write  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from d2l_vit import ViT  # noqa: E402  (the model: bench/d2l_vit.py)

torch.set_default_dtype(torch.float64)


def attnlab_parameters(model):
    """(attnlab name, PyTorch parameter, map from PyTorch's layout to attnlab's) for every parameter."""
    same, T = (lambda t: t), (lambda t: t.T)
    conv = lambda w: w.permute(2, 3, 1, 0).reshape(-1, w.shape[0])  # row (kr*p + kc)*C + ch
    out = [("patch_embedding.W", model.conv.weight, conv), ("patch_embedding.b", model.conv.bias, same),
           ("cls", model.cls, same), ("positional.P", model.positional, lambda t: t[0])]
    for l, blk in enumerate(model.blocks):
        a, mlp1, mlp2 = blk.attention, blk.mlp[0], blk.mlp[3]
        out += [(f"block{l}.{name}", p, f) for name, p, f in [
            ("norm1.gamma", blk.ln1.weight, same), ("norm1.beta", blk.ln1.bias, same),
            ("attention.W_q.W", a.W_q.weight, T), ("attention.W_k.W", a.W_k.weight, T),
            ("attention.W_v.W", a.W_v.weight, T), ("attention.W_o.W", a.W_o.weight, T),
            ("norm2.gamma", blk.ln2.weight, same), ("norm2.beta", blk.ln2.bias, same),
            ("mlp1.W", mlp1.weight, T), ("mlp1.b", mlp1.bias, same),
            ("mlp2.W", mlp2.weight, T), ("mlp2.b", mlp2.bias, same)]]
    out += [("head.norm.gamma", model.head[0].weight, same), ("head.norm.beta", model.head[0].bias, same),
            ("head.output.W", model.head[1].weight, T), ("head.output.b", model.head[1].bias, same)]
    assert {id(p) for _, p, _ in out} == {id(p) for p in model.parameters()} and len(out) == len(list(model.parameters()))
    return out


def main():
    # d2l's configuration (image 96, patch 16, 1 channel, d 512, MLP 2048, 8 heads, 2 blocks, 10 classes)
    big = ViT(96, 1, 16, 512, 2048, 8, 2, 10, dropout=0.1).eval()
    assert big(torch.zeros(4, 1, 96, 96)).shape == (4, 10)
    count = sum(p.numel() for p in big.parameters())
    print("d2l-size ViT parameters:", count)

    g = torch.Generator().manual_seed(129)
    B, image, C, classes = 2, 8, 1, 3
    model = ViT(image, C, 4, 8, 16, 2, 2, classes, dropout=0.0)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(0.5 * torch.randn(p.shape, generator=g))
    images = torch.rand(B, C, image, image, generator=g)
    labels = torch.randint(0, classes, (B,), generator=g)
    logits = model(images)
    weights = [blk.attention.attention_weights.reshape(B, 2, 5, 5) for blk in model.blocks]
    loss = nn.functional.cross_entropy(logits, labels)
    loss.backward()

    tensors = {"images": images.permute(0, 2, 3, 1).reshape(B, image * image, C), "labels": labels.double()}
    params = attnlab_parameters(model)
    tensors.update({name: f(p) for name, p, f in params})
    tensors.update({"d" + name: f(p.grad) for name, p, f in params})
    tensors.update({"logits": logits, "loss": loss, "weights0": weights[0], "weights1": weights[1],
                    "param_count_d2l": torch.tensor(float(count))})
    write("vit.txt", tensors, "d2l 1.0 section 11.8's ViT, tiny (8x8x1 images, patch 4, d 8, MLP 16, "
          "2 heads, 2 blocks, 3 classes, batch 2): logits, mean CE loss, attention weights, all gradients")
    path = os.path.join(HERE, "vit.txt")  # write() names make_golden.py as the generator; name this script
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(text.replace("make_golden.py", "make_vit_golden.py", 1))


if __name__ == "__main__":
    main()
