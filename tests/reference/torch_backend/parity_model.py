"""The model and the training step that record_model.py records on a CUDA GPU and
python/tests/test_torch_backend_parity.py replays on the CPU under randtensor.torch's
backend. Both import this file, so the two sides run the same code (stock torch only;
no randtensor here).

run(seed, device, offset) does everything, in this order, and returns plain NumPy
arrays plus the generator offset after each stage (``offset()`` is the caller's way to
read it: torch.cuda.get_rng_state() on the GPU, rt.get_offset() on the CPU):

  torch.manual_seed(seed)
  build_model(device)                       Embedding, TransformerEncoderLayer, Linear(32, 256),
                                            Linear(1024, 512), a (64, 32) trunc_normal_ Parameter
  tokens  = torch.randint(0, 256, (4, 16))
  targets = torch.randint(0, 256, (4, 16))
  model.train(); forward (embedding -> encoder layer -> head); cross entropy; backward
      (forward hooks record the keep masks of the encoder layer's nn.Dropout modules)
  F.dropout(torch.ones(1000), 0.3, training=True)

Changing anything here changes what is recorded: re-record on a GPU afterwards.
"""
import hashlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, D_MODEL, NHEAD, D_FF, P_DROP = 256, 32, 4, 64, 0.1
BIG_IN, BIG_OUT = 1024, 512           # 524,288 weights: more than one per GPU thread
EXTRA_SHAPE, EXTRA_STD = (64, 32), 0.02
BATCH, SEQ = 4, 16
FIXED_DROPOUT_N, FIXED_DROPOUT_P = 1000, 0.3
BIG_HEAD = 64                         # first values of big.weight kept besides its hash
# The encoder layer's nn.Dropout modules, in the order a training forward runs them
# (norm_first=False: x = norm1(x + dropout1(self_attn(x))), then
# x = norm2(x + dropout2(linear2(dropout(relu(linear1(x))))))).
DROPOUTS = ("dropout1", "dropout", "dropout2")
# Where run() reads the generator offset, in order.
STAGES = ("build", "tokens", "targets") + tuple("forward_" + n for n in DROPOUTS) + \
    ("forward", "backward", "fixed_dropout")

# How each parameter is initialised (nn's own reset_parameters), hence how exactly a
# CPU replay can match the GPU: "uniform" (kaiming_uniform_, xavier_uniform_, the
# biases' uniform_), "normal" (nn.Embedding's normal_), "trunc_normal" (uniform_ then
# erfinv_), "constant" (zeros / ones: MultiheadAttention zeroes its biases, LayerNorm).
INIT = {
    "embedding.weight": "normal",
    "encoder.self_attn.in_proj_weight": "uniform",      # xavier_uniform_
    "encoder.self_attn.in_proj_bias": "constant",
    "encoder.self_attn.out_proj.weight": "uniform",     # Linear's kaiming_uniform_
    "encoder.self_attn.out_proj.bias": "constant",      # drawn by Linear, then zeroed
    "encoder.linear1.weight": "uniform",
    "encoder.linear1.bias": "uniform",
    "encoder.linear2.weight": "uniform",
    "encoder.linear2.bias": "uniform",
    "encoder.norm1.weight": "constant",
    "encoder.norm1.bias": "constant",
    "encoder.norm2.weight": "constant",
    "encoder.norm2.bias": "constant",
    "head.weight": "uniform",
    "head.bias": "uniform",
    "big.weight": "uniform",                            # stored as SHA-256 + first 64 values
    "big.bias": "uniform",
    "extra": "trunc_normal",
}


class TinyModel(nn.Module):
    """Stock torch modules only. Construction order is the order of the random draws."""

    def __init__(self, device):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, D_MODEL, device=device)          # normal_
        self.encoder = nn.TransformerEncoderLayer(
            d_model=D_MODEL, nhead=NHEAD, dim_feedforward=D_FF, dropout=P_DROP,
            batch_first=True, device=device)
        # Attention-weight dropout is off: on CUDA, torch 2.x runs it inside the fused
        # scaled_dot_product_attention kernels (flash / memory-efficient attention),
        # which draw their own Philox numbers per attention tile in a kernel-specific
        # order that no CPU replays (randtensor replays the distribution and dropout
        # kernels, not SDPA's). nn.MultiheadAttention keeps dropout as a float, read at
        # each forward. The three nn.Dropout modules of the layer stay at P_DROP.
        self.encoder.self_attn.dropout = 0.0
        self.head = nn.Linear(D_MODEL, VOCAB, device=device)
        self.big = nn.Linear(BIG_IN, BIG_OUT, device=device)                   # not used in forward
        self.extra = nn.Parameter(torch.empty(*EXTRA_SHAPE, device=device))
        nn.init.trunc_normal_(self.extra, std=EXTRA_STD)

    def forward(self, tokens):
        return self.head(self.encoder(self.embedding(tokens)))


def build_model(device):
    """The model on `device`, initialised there (its draws come from that device's
    default generator)."""
    return TinyModel(device)


def _np(t):
    return t.detach().to("cpu").numpy().copy()


def big_weight_summary(w):
    """(SHA-256 hex of the float32 bytes in row-major order, first BIG_HEAD values)."""
    a = np.ascontiguousarray(_np(w), dtype=np.float32)
    return hashlib.sha256(a.tobytes()).hexdigest(), a.reshape(-1)[:BIG_HEAD].copy()


def run(seed, device, offset):
    """Seeds, builds, trains one step and draws the fixed dropout on `device`.

    Returns (arrays, info): arrays maps names to NumPy arrays ("param/<name>" per
    parameter except big.weight, "big_weight_head", "tokens", "targets",
    "<dropout>_input_nonzero", "<dropout>_keep", "fixed_dropout_out",
    "fixed_dropout_keep"); info holds "big_weight_sha256", "loss", "offsets" (stage ->
    offset() after it; STAGES), "dropout_input_strides" and "dropout_input_shapes"."""
    offsets = {}
    torch.manual_seed(seed)
    model = build_model(device)
    offsets["build"] = offset()

    arrays, info = {}, {}
    for name, p in model.named_parameters():
        if name not in INIT:
            raise KeyError(f"parameter {name} has no INIT entry (torch version change?)")
        if name == "big.weight":
            info["big_weight_sha256"], arrays["big_weight_head"] = big_weight_summary(p)
        else:
            arrays["param/" + name] = _np(p).astype(np.float32)
    missing = set(INIT) - {n for n, _ in model.named_parameters()}
    if missing:
        raise KeyError(f"parameters {sorted(missing)} are missing (torch version change?)")

    tokens = torch.randint(0, VOCAB, (BATCH, SEQ), device=device)
    offsets["tokens"] = offset()
    targets = torch.randint(0, VOCAB, (BATCH, SEQ), device=device)
    offsets["targets"] = offset()
    arrays["tokens"], arrays["targets"] = _np(tokens), _np(targets)

    # mask = output != 0 where input != 0: a kept element is x * 1/(1-p), never 0 for a
    # nonzero x; where x == 0 the mask cannot be seen, so input_nonzero is kept too.
    strides, shapes = {}, {}

    def hook(name):
        def fn(module, inputs, output):
            x = inputs[0].detach()
            arrays[name + "_input_nonzero"] = _np(x != 0)
            arrays[name + "_keep"] = _np(output.detach() != 0)
            strides[name], shapes[name] = list(x.stride()), list(x.shape)
            offsets["forward_" + name] = offset()
        return fn

    handles = [getattr(model.encoder, n).register_forward_hook(hook(n)) for n in DROPOUTS]
    model.train()
    logits = model(tokens)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))
    offsets["forward"] = offset()
    loss.backward()
    offsets["backward"] = offset()
    for h in handles:
        h.remove()
    missing = [n for n in DROPOUTS if n + "_keep" not in arrays]
    if missing:
        raise RuntimeError(f"dropout hooks did not fire for {missing} (a fused fast path?)")
    info["loss"] = float(loss.item())
    info["dropout_input_strides"], info["dropout_input_shapes"] = strides, shapes

    x = torch.ones(FIXED_DROPOUT_N, device=device)
    y = F.dropout(x, FIXED_DROPOUT_P, training=True)
    offsets["fixed_dropout"] = offset()
    arrays["fixed_dropout_out"] = _np(y).astype(np.float32)
    arrays["fixed_dropout_keep"] = _np(y != 0)
    info["offsets"] = {s: offsets[s] for s in STAGES}
    return arrays, info
