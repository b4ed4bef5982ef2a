"""The models trained side by side, in PyTorch, and the data file both sides read.

The meshguard side (meshguard_side.cpp) builds the same modules in C++ with
the same parameter names and reads every initial value and every batch from
the file written here, so the two runs start from the same numbers.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

# Sizes: "test" keeps the run short; "bench" is big enough that a step's
# time is the model's, not the framework's alone.
SIZES = {
    "test": {"batch": 8, "seq": 6, "dim": 16, "heads": 4, "hidden": 32, "vocab": 32, "out": 8,
             "channels": 3, "image": 8, "filters": 8, "classes": 4},
    "bench": {"batch": 16, "seq": 32, "dim": 128, "heads": 4, "hidden": 512, "vocab": 512, "out": 128,
              "channels": 3, "image": 32, "filters": 32, "classes": 10},
}

LEARNING_RATE = 0.05


class Mlp(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.fc1 = nn.Linear(s["dim"], s["hidden"])
        self.fc2 = nn.Linear(s["hidden"], s["out"])

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

    @staticmethod
    def loss(out, y):
        return F.mse_loss(out, y)


class Block(nn.Module):
    """One pre-norm transformer block with an embedding and an output head."""

    def __init__(self, s):
        super().__init__()
        d = s["dim"]
        self.head_dim = d // s["heads"]
        self.tok = nn.Embedding(s["vocab"], d)
        self.ln1 = nn.LayerNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.ln2 = nn.LayerNorm(d)
        self.w1 = nn.Linear(d, s["hidden"])
        self.w2 = nn.Linear(s["hidden"], d)
        self.head = nn.Linear(d, s["vocab"], bias=False)

    def heads(self, t, b, n):
        # -1: under tensor parallelism each rank holds heads / tp of them.
        return t.view(b, n, -1, self.head_dim).transpose(1, 2)

    def forward(self, tokens):
        x = self.tok(tokens)  # under sequence parallelism: this rank's positions
        b, n = tokens.shape
        h = self.ln1(x)
        q, k, v = self.heads(self.wq(h), b, n), self.heads(self.wk(h), b, n), self.heads(self.wv(h), b, n)
        a = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.head_dim), dim=-1) @ v
        x = x + self.wo(a.transpose(1, 2).reshape(b, n, -1))
        x = x + self.w2(torch.relu(self.w1(self.ln2(x))))
        return self.head(x)

    @staticmethod
    def loss(out, y):
        return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))


class ConvNet(nn.Module):
    """Conv2d, BatchNorm2d (training mode: batch statistics), ReLU, 2x2 max
    pooling and a Linear head over the flattened maps."""

    def __init__(self, s):
        super().__init__()
        self.conv = nn.Conv2d(s["channels"], s["filters"], 3, padding=1)
        self.bn = nn.BatchNorm2d(s["filters"])
        self.head = nn.Linear(s["filters"] * (s["image"] // 2) ** 2, s["classes"])

    def forward(self, x):
        return self.head(torch.flatten(F.max_pool2d(torch.relu(self.bn(self.conv(x))), 2), 1))

    @staticmethod
    def loss(out, y):
        return F.cross_entropy(out, y)


MODELS = {"mlp": Mlp, "block": Block, "convnet": ConvNet}


def make_model(kind, sizes):
    torch.manual_seed(0)
    return MODELS[kind](sizes)


def make_batches(kind, s, steps):
    g = torch.Generator().manual_seed(1)
    out = []
    for _ in range(steps):
        if kind == "mlp":
            x = torch.randn(s["batch"], s["dim"], generator=g)
            y = torch.randn(s["batch"], s["out"], generator=g)
        elif kind == "convnet":
            x = torch.randn(s["batch"], s["channels"], s["image"], s["image"], generator=g)
            y = torch.randint(0, s["classes"], (s["batch"],), generator=g)
        else:
            x = torch.randint(0, s["vocab"], (s["batch"], s["seq"]), generator=g)
            y = torch.randint(0, s["vocab"], (s["batch"], s["seq"]), generator=g)
        out.append((x, y))
    return out


def write_data(path, kind, size, steps):
    """Tuples only: libtorch 1.13's unpickler has no APPEND (lists)."""
    s = SIZES[size]
    model = make_model(kind, s)
    names = tuple(n for n, _ in model.named_parameters())
    values = tuple(p.detach().clone() for _, p in model.named_parameters())
    batches = make_batches(kind, s, steps)
    sizes = tuple((k, v) for k, v in sorted(s.items()))
    torch.save((kind, sizes, LEARNING_RATE, names, values, tuple(x for x, _ in batches), tuple(y for _, y in batches)),
               path)


def read_data(path):
    kind, sizes, lr, names, values, xs, ys = torch.load(path)
    return kind, dict(sizes), lr, dict(zip(names, values)), list(zip(xs, ys))
