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


def rotary_tables(seq, head_dim, theta=10000.0):
    """cos and sin of the rotary angles, [seq, head_dim] (the two halves alike:
    the rotate-half form)."""
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    freqs = torch.outer(torch.arange(seq, dtype=torch.float32), inv)
    emb = torch.cat((freqs, freqs), -1)
    return emb.cos(), emb.sin()


def rotate(x, cos, sin):
    """Rotary embedding of x [batch, seq, heads, head_dim]."""
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), -1)
    n = x.shape[1]
    return x * cos.view(1, n, 1, -1) + rotated * sin.view(1, n, 1, -1)


class Attention(nn.Module):
    """Causal self-attention with rotary embeddings (torchtitan's names)."""

    def __init__(self, s):
        super().__init__()
        d = s["dim"]
        self.head_dim = d // s["heads"]
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        # Plain attributes, not buffers: constants, not state.
        self.cos, self.sin = rotary_tables(s["seq"], self.head_dim)

    def forward(self, x):
        b, n = x.shape[0], x.shape[1]
        # -1: under tensor parallelism each rank holds heads / tp of them.
        q = rotate(self.wq(x).view(b, n, -1, self.head_dim), self.cos, self.sin)
        k = rotate(self.wk(x).view(b, n, -1, self.head_dim), self.cos, self.sin)
        v = self.wv(x).view(b, n, -1, self.head_dim)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.wo(a.transpose(1, 2).reshape(b, n, -1))


class FeedForward(nn.Module):
    """SwiGLU: w2(silu(w1 x) * w3 x)."""

    def __init__(self, s):
        super().__init__()
        self.w1 = nn.Linear(s["dim"], s["hidden"], bias=False)
        self.w2 = nn.Linear(s["hidden"], s["dim"], bias=False)
        self.w3 = nn.Linear(s["dim"], s["hidden"], bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


RMS_EPS = 1e-5


class Llama(nn.Module):
    """A Llama-style decoder: token embedding, one pre-norm block (RMSNorm,
    rotary causal attention, RMSNorm, SwiGLU), a final RMSNorm and an output
    head; module names as torchtitan's llama3 (its TP plan names them)."""

    def __init__(self, s):
        super().__init__()
        d = s["dim"]
        self.tok_embeddings = nn.Embedding(s["vocab"], d)
        self.attention_norm = nn.RMSNorm(d, eps=RMS_EPS)
        self.attention = Attention(s)
        self.ffn_norm = nn.RMSNorm(d, eps=RMS_EPS)
        self.feed_forward = FeedForward(s)
        self.norm = nn.RMSNorm(d, eps=RMS_EPS)
        self.output = nn.Linear(d, s["vocab"], bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        h = h + self.attention(self.attention_norm(h))
        h = h + self.feed_forward(self.ffn_norm(h))
        return self.output(self.norm(h))

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


MODELS = {"mlp": Mlp, "block": Block, "llama": Llama, "convnet": ConvNet}


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
