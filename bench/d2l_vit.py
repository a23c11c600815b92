"""d2l 1.0 section 11.8's Vision Transformer in PyTorch (d2l's PatchEmbedding, ViTBlock and ViT,
written out without the d2l package), shared by the golden file's generator
(tests/golden/make_vit_golden.py) and the training twin (bench/vit_twin.py)."""
import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    """d2l's MultiHeadAttention(use_bias=False) over scaled dot-product attention, no valid lengths."""

    def __init__(self, d, heads, dropout):
        super().__init__()
        self.heads = heads
        self.W_q, self.W_k, self.W_v, self.W_o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.dropout = nn.Dropout(dropout)

    def split(self, X):  # d2l's transpose_qkv: [B, n, d] -> [B, n, h, d/h] -> [B, h, n, d/h] -> [B*h, n, d/h]
        B, n, _ = X.shape
        return X.reshape(B, n, self.heads, -1).permute(0, 2, 1, 3).reshape(B * self.heads, n, -1)

    def forward(self, queries, keys, values):
        Q, K, V = self.split(self.W_q(queries)), self.split(self.W_k(keys)), self.split(self.W_v(values))
        self.attention_weights = torch.softmax(Q @ K.transpose(1, 2) / Q.shape[-1] ** 0.5, dim=-1)
        out = self.dropout(self.attention_weights) @ V  # [B*h, n, d/h]
        B, n = queries.shape[:2]
        out = out.reshape(B, self.heads, n, -1).permute(0, 2, 1, 3).reshape(B, n, -1)  # transpose_output
        return self.W_o(out)


class ViTBlock(nn.Module):
    """Pre-norm: X + MHA(LN1(X) x 3), then X + MLP(LN2(X)); MLP = Linear, GELU (erf), Dropout, Linear, Dropout."""

    def __init__(self, d, mlp_hidden, heads, dropout):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-5), nn.LayerNorm(d, eps=1e-5)
        self.attention = MultiHeadAttention(d, heads, dropout)
        self.mlp = nn.Sequential(nn.Linear(d, mlp_hidden), nn.GELU(), nn.Dropout(dropout),
                                 nn.Linear(mlp_hidden, d), nn.Dropout(dropout))

    def forward(self, X):
        Y = self.ln1(X)
        X = X + self.attention(Y, Y, Y)
        return X + self.mlp(self.ln2(X))


class ViT(nn.Module):
    def __init__(self, image, channels, patch, d, mlp_hidden, heads, blocks, classes, dropout):
        super().__init__()
        self.conv = nn.Conv2d(channels, d, kernel_size=patch, stride=patch)  # d2l's PatchEmbedding
        steps = (image // patch) ** 2 + 1
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.positional = nn.Parameter(0.02 * torch.randn(1, steps, d))
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(ViTBlock(d, mlp_hidden, heads, dropout) for _ in range(blocks))
        self.head = nn.Sequential(nn.LayerNorm(d, eps=1e-5), nn.Linear(d, classes))

    def forward(self, X):  # X [B, C, H, W] -> logits [B, classes]
        X = self.conv(X).flatten(2).transpose(1, 2)  # [B, m, d]
        X = torch.cat((self.cls.expand(X.shape[0], -1, -1), X), dim=1)
        X = self.dropout(X + self.positional)
        for block in self.blocks:
            X = block(X)
        return self.head(X[:, 0])
