"""d2l 0.17's Transformer on fra-eng, inlined (no d2l package here), shared by the W5 and W7
twins: the data (§9.5 read_data_nmt ... load_data_nmt, Vocab of §8.2), the model (§10.3
masked_softmax and DotProductAttention, §10.5 MultiHeadAttention, §10.6 PositionalEncoding,
§10.7 the Transformer) and the training (§9.7 MaskedSoftmaxCELoss and train_seq2seq, §8.5
grad_clipping), predict_seq2seq and bleu. Names and code follow d2l; only the plotting, the
device and the data download are left out.

One deliberate difference: d2l's tokenize_nmt stops at `i > num_examples`, so
load_data_nmt(num_examples=600) reads 601 lines; here `pairs` lines are read (600 by default,
as attnlab's parallel_corpus with num_train 600 does).
"""
import collections
import math
import os
import sys
import time

import torch
from torch import nn
from torch.utils import data

HERE = os.path.dirname(os.path.abspath(__file__))
# d2l 0.17 §10.7's settings
NUM_HIDDENS, NUM_LAYERS, DROPOUT, BATCH_SIZE, NUM_STEPS = 32, 2, 0.1, 64, 10
LR, FFN_NUM_INPUT, FFN_NUM_HIDDENS, NUM_HEADS = 0.005, 32, 64, 4
KEY_SIZE = QUERY_SIZE = VALUE_SIZE = 32
NORM_SHAPE = [32]


# ---- data: d2l §9.5 and §8.2 ----

def fra_eng_path():
    """The project's datasets/fra-eng/fra.txt (what experiments/transformer-fra-eng.yaml reads),
    else the shared copy."""
    for path in (os.path.join(HERE, "..", "datasets", "fra-eng", "fra.txt"), "/work/shared/datasets/fra-eng/fra.txt"):
        if os.path.exists(path):
            return os.path.normpath(path)
    raise FileNotFoundError("datasets/fra-eng/fra.txt not found")


def read_data_nmt(path):
    with open(path, 'r', encoding='utf-8') as f:
        return f.read()


def preprocess_nmt(text):
    """U+202F and U+00A0 -> ' ', lower case, ' ' inserted before , . ! ? not preceded by ' '."""
    def no_space(char, prev_char):
        return char in set(',.!?') and prev_char != ' '

    text = text.replace('\u202f', ' ').replace('\xa0', ' ').lower()
    out = [' ' + char if i > 0 and no_space(char, text[i - 1]) else char
           for i, char in enumerate(text)]
    return ''.join(out)


def tokenize_nmt(text, num_examples=None):
    """Lines 0 .. num_examples - 1 (d2l: 0 .. num_examples), split on tab, then on ' '."""
    source, target = [], []
    for i, line in enumerate(text.split('\n')):
        if num_examples and i >= num_examples:
            break
        parts = line.split('\t')
        if len(parts) == 2:
            source.append(parts[0].split(' '))
            target.append(parts[1].split(' '))
    return source, target


class Vocab:
    """d2l's Vocab: '<unk>' = 0, then the reserved tokens, then the tokens seen at least
    min_freq times by descending frequency (ties in order of first appearance: sorted is stable)."""

    def __init__(self, tokens, min_freq=0, reserved_tokens=()):
        counter = collections.Counter(token for line in tokens for token in line)
        self._token_freqs = sorted(counter.items(), key=lambda x: x[1], reverse=True)
        self.idx_to_token = ['<unk>'] + list(reserved_tokens)
        self.token_to_idx = {token: idx for idx, token in enumerate(self.idx_to_token)}
        for token, freq in self._token_freqs:
            if freq < min_freq:
                break
            if token not in self.token_to_idx:
                self.idx_to_token.append(token)
                self.token_to_idx[token] = len(self.idx_to_token) - 1

    def __len__(self):
        return len(self.idx_to_token)

    def __getitem__(self, tokens):
        if not isinstance(tokens, (list, tuple)):
            return self.token_to_idx.get(tokens, 0)
        return [self.__getitem__(token) for token in tokens]

    def to_tokens(self, indices):
        return [self.idx_to_token[index] for index in indices]


def truncate_pad(line, num_steps, padding_token):
    if len(line) > num_steps:
        return line[:num_steps]
    return line + [padding_token] * (num_steps - len(line))


def build_array_nmt(lines, vocab, num_steps):
    """ids + <eos>, truncated or padded to num_steps; valid length = number of non-<pad> ids."""
    lines = [vocab[l] + [vocab['<eos>']] for l in lines]
    array = torch.tensor([truncate_pad(l, num_steps, vocab['<pad>']) for l in lines])
    valid_len = (array != vocab['<pad>']).type(torch.int32).sum(1)
    return array, valid_len


def load_data_nmt(batch_size, num_steps, num_examples=600):
    """d2l's load_data_nmt: a DataLoader over (X, X_valid_len, Y, Y_valid_len), reshuffled every
    epoch, the vocabularies, and the arrays themselves (W7 decodes their sources)."""
    text = preprocess_nmt(read_data_nmt(fra_eng_path()))
    source, target = tokenize_nmt(text, num_examples)
    reserved = ['<pad>', '<bos>', '<eos>']
    src_vocab, tgt_vocab = Vocab(source, 2, reserved), Vocab(target, 2, reserved)
    arrays = build_array_nmt(source, src_vocab, num_steps) + build_array_nmt(target, tgt_vocab, num_steps)
    data_iter = data.DataLoader(data.TensorDataset(*arrays), batch_size, shuffle=True)
    return data_iter, src_vocab, tgt_vocab, arrays


# ---- model: d2l §10.3-10.7 ----

def sequence_mask(X, valid_len, value=0):
    """X[b, j] = value where j >= valid_len[b]."""
    maxlen = X.size(1)
    mask = torch.arange(maxlen, dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    """softmax over the last axis with the keys past the valid length set to -1e6; valid_lens is
    [B] (one length per batch row) or [B, n_q] (one per query)."""
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    shape = X.shape
    if valid_lens.dim() == 1:
        valid_lens = torch.repeat_interleave(valid_lens, shape[1])
    else:
        valid_lens = valid_lens.reshape(-1)
    X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
    return nn.functional.softmax(X.reshape(shape), dim=-1)


class DotProductAttention(nn.Module):
    """softmax(Q K^T / sqrt(d)) V, masked, with dropout on the weights."""

    def __init__(self, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, queries, keys, values, valid_lens=None):
        d = queries.shape[-1]
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
        self.attention_weights = masked_softmax(scores, valid_lens)
        return torch.bmm(self.dropout(self.attention_weights), values)


def transpose_qkv(X, num_heads):
    """[B, n, h] -> [B * heads, n, h / heads]"""
    X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
    X = X.permute(0, 2, 1, 3)
    return X.reshape(-1, X.shape[2], X.shape[3])


def transpose_output(X, num_heads):
    """[B * heads, n, h / heads] -> [B, n, h]"""
    X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
    X = X.permute(0, 2, 1, 3)
    return X.reshape(X.shape[0], X.shape[1], -1)


class MultiHeadAttention(nn.Module):
    """W_o concat_i attention(Q W_q^i, K W_k^i, V W_v^i), no biases (d2l's default bias=False)."""

    def __init__(self, key_size, query_size, value_size, num_hiddens, num_heads, dropout, bias=False):
        super().__init__()
        self.num_heads = num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=bias)
        self.W_k = nn.Linear(key_size, num_hiddens, bias=bias)
        self.W_v = nn.Linear(value_size, num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)

    def forward(self, queries, keys, values, valid_lens):
        queries = transpose_qkv(self.W_q(queries), self.num_heads)
        keys = transpose_qkv(self.W_k(keys), self.num_heads)
        values = transpose_qkv(self.W_v(values), self.num_heads)
        if valid_lens is not None:
            valid_lens = torch.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
        output = self.attention(queries, keys, values, valid_lens)
        return self.W_o(transpose_output(output, self.num_heads))


class PositionalEncoding(nn.Module):
    """X + P[offset : offset + n], then dropout; P[i, 2j] = sin(i / 10000^(2j/d)),
    P[i, 2j+1] = cos(i / 10000^(2j/d)). d2l has no offset (it is always 0)."""

    def __init__(self, num_hiddens, dropout, max_len=1000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
        self.P[:, :, 0::2] = torch.sin(X)
        self.P[:, :, 1::2] = torch.cos(X)

    def forward(self, X, offset=0):
        X = X + self.P[:, offset:offset + X.shape[1], :].to(X.device)
        return self.dropout(X)


class PositionWiseFFN(nn.Module):
    """dense2(relu(dense1(X)))"""

    def __init__(self, ffn_num_input, ffn_num_hiddens, ffn_num_outputs):
        super().__init__()
        self.dense1 = nn.Linear(ffn_num_input, ffn_num_hiddens)
        self.relu = nn.ReLU()
        self.dense2 = nn.Linear(ffn_num_hiddens, ffn_num_outputs)

    def forward(self, X):
        return self.dense2(self.relu(self.dense1(X)))


class AddNorm(nn.Module):
    """LayerNorm(dropout(Y) + X)"""

    def __init__(self, normalized_shape, dropout):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, X, Y):
        return self.ln(self.dropout(Y) + X)


class EncoderBlock(nn.Module):
    """Y = AddNorm(X, MHA(X, X, X)); out = AddNorm(Y, FFN(Y))."""

    def __init__(self, key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
                 ffn_num_hiddens, num_heads, dropout, use_bias=False):
        super().__init__()
        self.attention = MultiHeadAttention(key_size, query_size, value_size, num_hiddens, num_heads,
                                            dropout, use_bias)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm2 = AddNorm(norm_shape, dropout)

    def forward(self, X, valid_lens):
        Y = self.addnorm1(X, self.attention(X, X, X, valid_lens))
        return self.addnorm2(Y, self.ffn(Y))


class TransformerEncoder(nn.Module):
    """X = PE(embed(x) sqrt(d)), then num_layers EncoderBlocks."""

    def __init__(self, vocab_size, key_size, query_size, value_size, num_hiddens, norm_shape,
                 ffn_num_input, ffn_num_hiddens, num_heads, num_layers, dropout, use_bias=False):
        super().__init__()
        self.num_hiddens = num_hiddens
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module("block" + str(i), EncoderBlock(
                key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
                ffn_num_hiddens, num_heads, dropout, use_bias))

    def forward(self, X, valid_lens, *args):
        X = self.pos_encoding(self.embedding(X) * math.sqrt(self.num_hiddens))
        for blk in self.blks:
            X = blk(X, valid_lens)
        return X


class DecoderBlock(nn.Module):
    """Block i: self-attention over key_values = [state[2][i], X] (the block's earlier inputs,
    d2l's cache; causal valid lengths 1..T while training), cross-attention over the encoder
    outputs, FFN, each followed by AddNorm."""

    def __init__(self, key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
                 ffn_num_hiddens, num_heads, dropout, i):
        super().__init__()
        self.i = i
        self.attention1 = MultiHeadAttention(key_size, query_size, value_size, num_hiddens, num_heads, dropout)
        self.addnorm1 = AddNorm(norm_shape, dropout)
        self.attention2 = MultiHeadAttention(key_size, query_size, value_size, num_hiddens, num_heads, dropout)
        self.addnorm2 = AddNorm(norm_shape, dropout)
        self.ffn = PositionWiseFFN(ffn_num_input, ffn_num_hiddens, num_hiddens)
        self.addnorm3 = AddNorm(norm_shape, dropout)

    def forward(self, X, state):
        enc_outputs, enc_valid_lens = state[0], state[1]
        if state[2][self.i] is None:
            key_values = X
        else:
            key_values = torch.cat((state[2][self.i], X), axis=1)
        state[2][self.i] = key_values
        if self.training:
            batch_size, num_steps, _ = X.shape
            dec_valid_lens = torch.arange(1, num_steps + 1, device=X.device).repeat(batch_size, 1)
        else:
            dec_valid_lens = None
        X2 = self.attention1(X, key_values, key_values, dec_valid_lens)
        Y = self.addnorm1(X, X2)
        Y2 = self.attention2(Y, enc_outputs, enc_outputs, enc_valid_lens)
        Z = self.addnorm2(Y, Y2)
        return self.addnorm3(Z, self.ffn(Z)), state


class TransformerDecoder(nn.Module):
    """X = PE(embed(y) sqrt(d)), num_layers DecoderBlocks, dense to the vocabulary. State =
    [enc_outputs, enc_valid_lens, [cache of block i]]. d2l adds P[0 : n] to the n tokens it is
    given, so decoding one token per call adds P[0] at every step; step_positions = True adds
    P[t] to the token at step t instead (what decoding the whole prefix again would do)."""

    def __init__(self, vocab_size, key_size, query_size, value_size, num_hiddens, norm_shape,
                 ffn_num_input, ffn_num_hiddens, num_heads, num_layers, dropout):
        super().__init__()
        self.num_hiddens, self.num_layers, self.step_positions = num_hiddens, num_layers, False
        self.embedding = nn.Embedding(vocab_size, num_hiddens)
        self.pos_encoding = PositionalEncoding(num_hiddens, dropout)
        self.blks = nn.Sequential()
        for i in range(num_layers):
            self.blks.add_module("block" + str(i), DecoderBlock(
                key_size, query_size, value_size, num_hiddens, norm_shape, ffn_num_input,
                ffn_num_hiddens, num_heads, dropout, i))
        self.dense = nn.Linear(num_hiddens, vocab_size)

    def init_state(self, enc_outputs, enc_valid_lens, *args):
        return [enc_outputs, enc_valid_lens, [None] * self.num_layers]

    def forward(self, X, state):
        offset = state[2][0].shape[1] if self.step_positions and state[2][0] is not None else 0
        X = self.pos_encoding(self.embedding(X) * math.sqrt(self.num_hiddens), offset)
        for blk in self.blks:
            X, state = blk(X, state)
        return self.dense(X), state


class EncoderDecoder(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, enc_X, dec_X, *args):
        enc_outputs = self.encoder(enc_X, *args)
        dec_state = self.decoder.init_state(enc_outputs, *args)
        return self.decoder(dec_X, dec_state)


def transformer(src_vocab, tgt_vocab):
    """The §10.7 net: 2 + 2 blocks, d 32, 4 heads, FFN 32 -> 64 -> 32, dropout 0.1."""
    sizes = (KEY_SIZE, QUERY_SIZE, VALUE_SIZE, NUM_HIDDENS, NORM_SHAPE, FFN_NUM_INPUT, FFN_NUM_HIDDENS,
             NUM_HEADS, NUM_LAYERS, DROPOUT)
    return EncoderDecoder(TransformerEncoder(len(src_vocab), *sizes), TransformerDecoder(len(tgt_vocab), *sizes))


# ---- training: d2l §9.7 and §8.5 ----

class MaskedSoftmaxCELoss(nn.CrossEntropyLoss):
    """Per sequence: sum_t [t < valid_len] CE(pred_t, label_t) / num_steps (a mean over all
    num_steps positions, the padded ones counting as 0)."""

    def forward(self, pred, label, valid_len):
        weights = torch.ones_like(label)
        weights = sequence_mask(weights, valid_len)
        self.reduction = 'none'
        unweighted_loss = super().forward(pred.permute(0, 2, 1), label)
        return (unweighted_loss * weights).mean(dim=1)


def grad_clipping(net, theta):
    """g <- g * theta / ||g|| when the global norm ||g|| over all parameters exceeds theta."""
    params = [p for p in net.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm


def xavier_init_weights(m):
    if type(m) == nn.Linear:
        nn.init.xavier_uniform_(m.weight)
    if type(m) == nn.GRU:
        for param in m._flat_weights_names:
            if "weight" in param:
                nn.init.xavier_uniform_(m._parameters[param])


def train_epoch(net, data_iter, optimizer, loss, tgt_vocab):
    """One epoch of d2l's train_seq2seq loop; returns its metric (sum of l, valid tokens)."""
    metric = [0.0, 0.0]
    for batch in data_iter:
        optimizer.zero_grad()
        X, X_valid_len, Y, Y_valid_len = batch
        bos = torch.tensor([tgt_vocab['<bos>']] * Y.shape[0]).reshape(-1, 1)
        dec_input = torch.cat([bos, Y[:, :-1]], 1)  # teacher forcing
        Y_hat, _ = net(X, dec_input, X_valid_len)
        l = loss(Y_hat, Y, Y_valid_len)
        l.sum().backward()
        grad_clipping(net, 1)
        num_tokens = Y_valid_len.sum()
        optimizer.step()
        with torch.no_grad():
            metric = [metric[0] + float(l.sum()), metric[1] + float(num_tokens)]
    return metric


def train_seq2seq(net, data_iter, lr, num_epochs, tgt_vocab):
    """d2l's train_seq2seq: Xavier-uniform init, Adam, MaskedSoftmaxCELoss, clipping to norm 1.
    Returns the seconds of each epoch and the last epoch's metric; d2l prints
    metric[0] / metric[1] = (per-token cross-entropy) / num_steps."""
    net.apply(xavier_init_weights)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    loss = MaskedSoftmaxCELoss()
    net.train()
    seconds, metric = [], [float("nan"), 1.0]
    for epoch in range(num_epochs):
        start = time.perf_counter()
        metric = train_epoch(net, data_iter, optimizer, loss, tgt_vocab)
        seconds.append(time.perf_counter() - start)
        if (epoch + 1) % 10 == 0 or epoch + 1 == num_epochs:
            print(f"epoch {epoch + 1}/{num_epochs}: loss {metric[0] / metric[1]:.3f}, {seconds[-1]:.3f} s",
                  file=sys.stderr)
    return seconds, metric


def predict_seq2seq(net, src_sentence, src_vocab, tgt_vocab, num_steps):
    """d2l's greedy translation: encode once, feed <bos>, then each argmax, stop at <eos>."""
    net.eval()
    src_tokens = src_vocab[src_sentence.lower().split(' ')] + [src_vocab['<eos>']]
    enc_valid_len = torch.tensor([len(src_tokens)])
    src_tokens = truncate_pad(src_tokens, num_steps, src_vocab['<pad>'])
    enc_X = torch.unsqueeze(torch.tensor(src_tokens, dtype=torch.long), dim=0)
    enc_outputs = net.encoder(enc_X, enc_valid_len)
    dec_state = net.decoder.init_state(enc_outputs, enc_valid_len)
    dec_X = torch.unsqueeze(torch.tensor([tgt_vocab['<bos>']], dtype=torch.long), dim=0)
    output_seq = []
    for _ in range(num_steps):
        Y, dec_state = net.decoder(dec_X, dec_state)
        dec_X = Y.argmax(dim=2)
        pred = dec_X.squeeze(dim=0).type(torch.int32).item()
        if pred == tgt_vocab['<eos>']:
            break
        output_seq.append(pred)
    return ' '.join(tgt_vocab.to_tokens(output_seq))


def bleu(pred_seq, label_seq, k):
    """exp(min(0, 1 - len_label / len_pred)) prod_{n<=k} p_n^(1/2^n), p_n = clipped n-gram
    precision. Where d2l divides by zero, attnlab's bleu is followed: an empty prediction scores
    0 (d2l: ''.split(' ') is one empty token, then 0 / 0 at n = 2), and orders n > len_pred
    are skipped (d2l: 0 / 0)."""
    if not pred_seq:
        return 0.0
    pred_tokens, label_tokens = pred_seq.split(' '), label_seq.split(' ')
    len_pred, len_label = len(pred_tokens), len(label_tokens)
    score = math.exp(min(0, 1 - len_label / len_pred))
    for n in range(1, min(k, len_pred) + 1):
        num_matches, label_subs = 0, collections.defaultdict(int)
        for i in range(len_label - n + 1):
            label_subs[' '.join(label_tokens[i: i + n])] += 1
        for i in range(len_pred - n + 1):
            if label_subs[' '.join(pred_tokens[i: i + n])] > 0:
                num_matches += 1
                label_subs[' '.join(pred_tokens[i: i + n])] -= 1
        score *= math.pow(num_matches / (len_pred - n + 1), math.pow(0.5, n))
    return score
