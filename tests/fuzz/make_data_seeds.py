#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz-data target into tests/fuzz/corpus/data/.

Each seed is one well-formed input of a reader (see fuzz_data.cpp for the layout: reader, options,
the sizes of the first two parts, then the parts), so the fuzzer starts from files the reader
accepts and mutates them into damaged ones.
    /usr/bin/python3 tests/fuzz/make_data_seeds.py
"""
import gzip
import math
import pathlib
import struct

here = pathlib.Path(__file__).resolve().parent
root = here.parent.parent
out = here / "corpus" / "data"


def seed(name, reader, flags, a=b"", b=b"", c=b""):
    out.mkdir(parents=True, exist_ok=True)
    header = bytes([reader, flags]) + struct.pack("<HH", len(a), len(b))
    (out / name).write_bytes(header + a + b + c)


def idx(shape, data):
    rank = len(shape)
    return bytes([0, 0, 8, rank]) + b"".join(struct.pack(">I", s) for s in shape) + bytes(data)


def wav(samples, rate=22050):
    pcm = b"".join(struct.pack("<h", s) for s in samples)
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(pcm)) + pcm
    return b"RIFF" + struct.pack("<I", len(body)) + body


images = idx([3, 4, 4], [(i * 17) % 256 for i in range(48)])
labels = idx([3], [0, 1, 2])
seed("idx-plain", 0, 0x02, images, labels)
seed("idx-gzip-resized", 0, 0x82, gzip.compress(images, mtime=0), gzip.compress(labels, mtime=0))

seed("graph-identity", 1, 0,
     b"# node node weight\n0 1 4\n0 2 5\n1 2 6\n2 3 1\n3 4 2\n",
     b"0 0\n1 0\n2 1\n3 1\n4 1\n")
seed("graph-features", 1, 3, b"0 1\n1 2\n", b"0 0\n1 1\n2 0\n",
     b"0 0.5 1\n1 -2 3e-1\n2 7 0\n")

text = (root / "datasets" / "timemachine" / "timemachine.txt").read_bytes()[:1200]
seed("text-chars-d2l", 2, 0x24, text)
seed("text-words-none", 2, 0x63, text + "\nÉté — naïve ünïcode\n".encode())

tone = [int(8000 * math.sin(2 * math.pi * 440 * t / 22050)) for t in range(800)]
table = b"a.wav 3 three v 175 50\na.wav 4 four w 150 40\na.wav 5 five w 160 45\n"
seed("spoken-digit", 3, 0, table, wav(tone))
seed("spoken-letters", 3, 3, table, wav(tone))
