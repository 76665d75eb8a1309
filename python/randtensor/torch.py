"""randtensor.torch: randtensor as a CPU backend for PyTorch.

In-place fills of CPU tensors (zero copy, through DLPack, any strides) and
the constructors built on them, drawing from a `Generator` that holds the
state the way PyTorch's CUDA generator does: (seed, offset), key = seed,
counter words 0-1 = offset / 4.

    >>> import torch, randtensor.torch as rt
    >>> g = rt.Generator(seed=42)
    >>> w = torch.empty(1024, 1024)
    >>> _ = rt.normal_(w, std=0.02, generator=g)       # like w.normal_(0, 0.02)
    >>> g.get_offset()                                  # 4 * Philox blocks used
    1048576

Values are SPEC.md section 8's: element e of the logical (row-major) tensor
gets stream element e of the generator's state, whatever the tensor's
strides, the thread count or the SIMD target. A fill advances the offset by
4 * ceil(n * w / 4) for n elements of w stream words each (w = 2 for float64
uniform/normal/bernoulli and for integer ranges of 2^28 or more, else 1):
the offset only ever names whole Philox blocks, as torch.cuda's does.

Errors raise before anything is written and leave the generator unchanged:
ValueError for a non-CPU tensor, overlapping elements or bad parameters,
TypeError for a dtype a distribution cannot fill, RuntimeError where torch
itself refuses an in-place op (a leaf that requires grad, an inference
tensor outside inference mode).

Importing this module imports torch; `import randtensor` alone does not.
"""

import contextlib
import operator
import os
import struct
import threading

import numpy as np
import torch

import randtensor
from randtensor import replay as _replay

__all__ = [
    "Generator",
    "get_offset",
    "install",
    "installed",
    "is_installed",
    "set_offset",
    "uninstall",
    "bernoulli_",
    "default_generator",
    "dropout",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "normal_",
    "rand",
    "randint",
    "randn",
    "random_",
    "seed",
    "set_rng_state",
    "uniform_",
]

# torch's default_rng_seed_val: the seed of torch.Generator(device="cuda") and
# of a fresh process's CUDA default generators (torch.cuda.initial_seed()).
DEFAULT_SEED = 67280421310721

_MASK32 = (1 << 32) - 1
_OFFSET_END = 1 << 63  # the offset is an int64 in torch's state layout
_STATE_FORMAT = "<Qq"  # seed uint64 LE, offset int64 LE: torch.cuda.get_rng_state()

_FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
# The torch dtypes each distribution of the library fills (distribution.h);
# torch has no uint32, so "bits" is not offered.
_DTYPES = {
    "uniform": _FLOATS,
    "normal": _FLOATS,
    "bernoulli": (torch.bool, torch.uint8, torch.int32) + _FLOATS,
    "integers": (torch.int32, torch.int64, torch.float32, torch.float64),
}


def _dtype_names(dtypes):
    return ", ".join(str(d) for d in dtypes)


def _words_per_element(dist, dtype, params):
    """Stream words one element reads (SPEC.md section 8): 2 for float64
    uniform/normal/bernoulli and for integer ranges of 2^28 or more (PyTorch's
    rule), else 1. Only used to refuse an offset overflow before writing."""
    if dist == "integers":
        return 2 if params["high"] - params["low"] >= 1 << 28 else 1
    return 2 if dtype == torch.float64 else 1


def _seed_value(seed):
    """A seed as torch takes it: -2^63 .. 2^64 - 1, negatives as two's complement."""
    try:
        value = operator.index(seed)
    except TypeError:
        raise TypeError(f"seed must be an integer, not {type(seed).__name__}") from None
    if not -(1 << 63) <= value < 1 << 64:
        raise ValueError(f"seed = {value} is outside [-2**63, 2**64 - 1]")
    return value % (1 << 64)


def _offset_value(offset):
    try:
        value = operator.index(offset)
    except TypeError:
        raise TypeError(f"offset must be an integer, not {type(offset).__name__}") from None
    if not 0 <= value < _OFFSET_END:
        raise ValueError(f"offset = {value} is outside [0, 2**63 - 1]")
    if value % 4:
        raise ValueError(f"offset = {value} is not a multiple of 4 (offsets count whole "
                         "Philox blocks, as torch.cuda's do)")
    return value


def _threads(threads):
    """The library's thread count: torch's intra-op thread count unless given."""
    return torch.get_num_threads() if threads is None else threads


class Generator:
    """A Philox4x32-10 generator in PyTorch CUDA's terms: (seed, offset).

    Generator(seed=None, order="stream", gpu=None): seed None is torch's
    default CUDA seed (67280421310721), as torch.Generator(device="cuda")
    starts; offset 0. Every draw goes through `_fill`, the one place that
    maps the generator onto tensor elements:
      order="stream": element e of the logical tensor gets stream element e
        (any strides; the offset advances by the Philox blocks used);
      order="torch_cuda": the element order of torch.cuda's kernels on the
        GPU `gpu` (randtensor.replay.torch_cuda: a preset name or
        (sm_count, threads_per_sm); needed above 40960 elements), so that a
        sequence of draws gives the very tensors, and offsets, a CUDA
        generator of the same (seed, offset) gives. Contiguous tensors only.
    Draws from one Generator in several threads are serialized, so they
    never share stream words.
    """

    device = torch.device("cpu")

    def __init__(self, seed=None, order="stream", gpu=None):
        if order not in ("stream", "torch_cuda"):
            raise ValueError(f"order = {order!r} is not 'stream' or 'torch_cuda'")
        self._lock = threading.Lock()
        self._seed = DEFAULT_SEED if seed is None else _seed_value(seed)
        self._offset = 0
        self.order, self.gpu = order, gpu

    def __repr__(self):
        return f"randtensor.torch.Generator(seed={self._seed}, offset={self._offset})"

    def manual_seed(self, seed):
        """Seed `seed` (-2^63 .. 2^64 - 1), offset 0; returns self, as torch does."""
        value = _seed_value(seed)
        with self._lock:
            self._seed, self._offset = value, 0
        return self

    def seed(self):
        """Reseeds from OS entropy (53 bits, as torch's non-deterministic seeds)
        with offset 0, and returns the new seed."""
        value = int.from_bytes(os.urandom(8), "little") & ((1 << 53) - 1)
        self.manual_seed(value)
        return value

    def initial_seed(self):
        return self._seed

    @property
    def seed_value(self):
        """The seed (the Philox key), as torch.cuda's generator calls it current_seed."""
        return self._seed

    def get_offset(self):
        """The offset: 4 * the Philox counter's words 0-1 (a multiple of 4)."""
        return self._offset

    def set_offset(self, offset):
        """Sets the offset (a multiple of 4 in [0, 2^63)), keeping the seed."""
        value = _offset_value(offset)
        with self._lock:
            self._offset = value

    def get_state(self):
        """A new uint8 tensor of 16 bytes: seed (uint64 LE), offset (int64 LE),
        the layout of torch.cuda.get_rng_state()."""
        with self._lock:  # seed and offset of one moment
            data = struct.pack(_STATE_FORMAT, self._seed, self._offset)
        return torch.tensor(list(data), dtype=torch.uint8)

    def set_state(self, new_state):
        """Restores a get_state() tensor (or a torch.cuda RNG state). As torch
        does, 8 bytes (a seed alone) mean offset 0."""
        seed_value, offset = _unpack_state(new_state)
        offset = _offset_value(offset)
        with self._lock:
            self._seed, self._offset = seed_value, offset
        return self

    def philox_state(self):
        """The six uint32 words of randtensor.fill's state: counter = offset / 4
        in words 0-1, words 2-3 zero, key = (seed lo, seed hi)."""
        with self._lock:
            return _state_words(self._seed, self._offset)

    def _fill(self, op, tensor, dist, params, threads):
        """Fills `tensor` (checked) with `dist` at the current offset and moves
        the offset past the Philox blocks the library says it used."""
        n = tensor.numel()
        with self._lock:
            blocks = -(-n * _words_per_element(dist, tensor.dtype, params) // 4)
            if self._offset + 4 * blocks >= _OFFSET_END:
                raise ValueError(f"{op}: offset {self._offset} + {4 * blocks} for {n} elements "
                                 "passes 2**63 - 1, the largest offset torch's state holds")
            try:
                if self.order == "torch_cuda":
                    if not tensor.is_contiguous():
                        raise ValueError("order='torch_cuda' replays contiguous tensors only")
                    self._offset = _replay.torch_cuda.fill(
                        _dlpack_view(tensor), dist, seed=self._seed, philox_offset=self._offset,
                        gpu=self.gpu, threads=_threads(threads), **params)
                else:
                    state = randtensor.fill(_dlpack_view(tensor),
                                            state=_state_words(self._seed, self._offset),
                                            threads=_threads(threads), dist=dist, **params)
                    # The library's returned counter is the truth; words 2-3
                    # stay 0 by the check above.
                    self._offset = 4 * (int(state[0]) | int(state[1]) << 32)
            except (TypeError, ValueError) as error:  # the library's message, with the op
                raise type(error)(f"{op}: {error}") from None
        _bump_version(tensor)
        return tensor


def _state_words(seed_value, offset):
    counter = offset // 4
    return [counter & _MASK32, counter >> 32, 0, 0, seed_value & _MASK32, seed_value >> 32]


def _unpack_state(new_state):
    """(seed, offset) from a uint8 CPU tensor of 16 (or 8) bytes."""
    if not isinstance(new_state, torch.Tensor) or new_state.dtype != torch.uint8:
        kind = new_state.dtype if isinstance(new_state, torch.Tensor) else type(new_state).__name__
        raise TypeError(f"the RNG state must be a torch.uint8 tensor, not {kind}")
    if new_state.device.type != "cpu":
        raise ValueError(f"the RNG state must be a CPU tensor, not on {new_state.device}")
    data = bytes(new_state.reshape(-1).tolist())
    if len(data) == 8:
        return struct.unpack("<Q", data)[0], 0
    if len(data) != 16:
        raise ValueError(f"the RNG state has {len(data)} bytes; it needs 16 (seed uint64, "
                         "offset int64) or 8 (seed)")
    return struct.unpack(_STATE_FORMAT, data)


default_generator = Generator()


def manual_seed(seed):
    """Seeds the module's default generator (offset 0) and returns it, like
    torch.manual_seed."""
    return default_generator.manual_seed(seed)


def seed():
    """Reseeds the default generator from OS entropy; returns the seed."""
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's 16-byte state (torch.cuda.get_rng_state's layout)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


# ---------------------------------------------------------------------------
# Tensor checks: everything that can be refused is refused before a write.

def _check_tensor(tensor, op, name="tensor"):
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"{op}: {name} must be a torch.Tensor, not {type(tensor).__name__}")
    if tensor.device.type != "cpu":
        raise ValueError(f"{op}: {name} is on device '{tensor.device}'; randtensor.torch "
                         "fills CPU tensors only")
    if tensor.layout != torch.strided:
        raise TypeError(f"{op}: {name} has layout {tensor.layout}; only torch.strided "
                        "tensors can be filled")


def _check_writable(tensor, op):
    """Refuses what torch's own in-place ops refuse. A fill cannot be recorded
    by autograd, so a tensor that requires grad is filled only under
    torch.no_grad() (how torch.nn.init fills parameters)."""
    if tensor.is_inference() and not torch.is_inference_mode_enabled():
        raise RuntimeError(f"{op}: inplace update to inference tensor outside InferenceMode "
                           "is not allowed (torch refuses it too); clone() it first")
    if tensor.is_neg() or tensor.is_conj():
        # DLPack exports the memory without the lazy negation: the tensor
        # would read back the negated values.
        raise ValueError(f"{op}: tensor is a lazily negated or conjugated view "
                         "(torch._neg_view, .conj()); fill its resolve_neg()/resolve_conj()")
    if tensor.requires_grad and torch.is_grad_enabled():
        if tensor.is_leaf:
            raise RuntimeError(f"{op}: a leaf Variable that requires grad is being used in "
                               "an in-place operation (fill it under torch.no_grad())")
        raise RuntimeError(f"{op}: an in-place randtensor fill cannot be recorded by autograd; "
                           "fill it under torch.no_grad() or fill tensor.detach()")


def _check_dtype(tensor, op, dist):
    if tensor.dtype not in _DTYPES[dist]:
        raise TypeError(f"{op}: dtype {tensor.dtype} is not supported (randtensor fills "
                        f"{_dtype_names(_DTYPES[dist])} with {dist})")


def _dlpack_view(tensor):
    """What DLPack can export: detached (torch refuses to export a tensor that
    requires grad), and bool as uint8 (torch 1.13's DLPack has no bool; a
    bernoulli fill writes 0 and 1, valid bools). Both are views: zero copy."""
    view = tensor.detach()
    return view.view(torch.uint8) if view.dtype == torch.bool else view


def _bump_version(tensor):
    """Marks `tensor` modified, as a torch in-place op does, so that autograd
    still detects a saved tensor overwritten by a fill: an in-place op on an
    empty view of it (views share the version counter). Inference tensors
    have no version counter."""
    if not tensor.is_inference():
        torch.Tensor.zero_(tensor.detach().as_strided((0,), (1,)))


def _generator(generator, op):
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"{op}: generator must be a randtensor.torch.Generator, not "
                        f"{type(generator).__name__}")
    return generator


# Types torch fills that the library's table does not list for a
# distribution: made in a type it does, with the same stream words and value,
# then converted as torch converts (random_ into uint8/bool: the narrowing
# cast of the int32 value; into float16/bfloat16: one round to nearest even
# of the float32 value, torch's int64 -> float -> half; bernoulli_ into int64:
# the 0/1 of int32). Values outside what the type holds are refused.
_VIA = {("integers", torch.uint8): (torch.int32, 0, 256),
        ("integers", torch.bool): (torch.int32, 0, 2),
        ("integers", torch.float16): (torch.float32, -65504, 65505),
        ("integers", torch.bfloat16): (torch.float32, -(1 << 24), (1 << 24) + 1),
        ("bernoulli", torch.int64): (torch.int32, None, None)}


def _fill(op, tensor, dist, params, generator, threads):
    _check_tensor(tensor, op)
    via = _VIA.get((dist, tensor.dtype))
    if via is None:
        _check_dtype(tensor, op, dist)
    _check_writable(tensor, op)
    gen = _generator(generator, op)
    if via is None:
        return gen._fill(op, tensor, dist, params, threads)
    made_dtype, lowest, end = via
    if lowest is not None and not (lowest <= params["low"] and params["high"] <= end):
        raise ValueError(f"{op}: [{params['low']}, {params['high']}) is not within what "
                         f"{tensor.dtype} holds ([{lowest}, {end}))")
    # Contiguous like the tensor's logical order: the element order is logical.
    made = torch.empty(tensor.shape, dtype=made_dtype)
    gen._fill(op, made, dist, params, threads)
    with torch.no_grad():
        tensor.copy_(made.to(tensor.dtype))
    return tensor


# ---------------------------------------------------------------------------
# In-place fills (torch's Tensor methods of the same names, CUDA's values)

def uniform_(tensor, low=0.0, high=1.0, generator=None, threads=None):
    """Fills `tensor` with uniform values in [low, high), low < high (torch's
    uniform_(from, to)); float32, float64, float16, bfloat16. Returns it."""
    return _fill("uniform_", tensor, "uniform", {"low": low, "high": high}, generator, threads)


def normal_(tensor, mean=0.0, std=1.0, generator=None, threads=None):
    """Fills `tensor` with normal values (Box-Muller, torch.cuda's pairing);
    float32, float64, float16, bfloat16. Returns it."""
    return _fill("normal_", tensor, "normal", {"mean": mean, "std": std}, generator, threads)


def bernoulli_(tensor, p=0.5, generator=None, threads=None):
    """Fills `tensor` with 1 with probability p (0 <= p <= 1), else 0; bool,
    uint8, int32, float32, float64, float16, bfloat16. Returns it."""
    return _fill("bernoulli_", tensor, "bernoulli", {"p": p}, generator, threads)


def _integer(op, name, value):
    """An integer bound (Python or NumPy int; not a float, which torch would
    truncate silently)."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{op}: {name} must be an integer, not {type(value).__name__} "
                        f"{value!r}") from None


def random_(tensor, low, high=None, generator=None, threads=None):
    """Fills `tensor` with integers in [low, high); random_(t, high) means
    [0, high), as torch's random_(to). int32, int64, float32 (ranges up to
    2^24), float64; uint8, bool, float16, bfloat16 through int32/float32
    values converted as torch converts. Returns it."""
    if high is None:
        low, high = 0, low
    params = {"low": _integer("random_", "low", low), "high": _integer("random_", "high", high)}
    return _fill("random_", tensor, "integers", params, generator, threads)


# ---------------------------------------------------------------------------
# Constructors

def _size(size, op):
    """torch's size forms: rand(2, 3), rand((2, 3)), rand([2, 3]), rand(torch.Size)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = size[0]
    try:
        return tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError(f"{op}: size must be integers, not {size!r}") from None


def _new(op, size, dtype, dist, params, generator, threads, requires_grad=False):
    dtype = torch.get_default_dtype() if dtype is None else dtype
    if dtype not in _DTYPES[dist] and (dist, dtype) not in _VIA:  # before allocating
        raise TypeError(f"{op}: dtype {dtype} is not supported (randtensor fills "
                        f"{_dtype_names(_DTYPES[dist])} with {dist})")
    tensor = torch.empty(size, dtype=dtype)
    _fill(op, tensor, dist, params, generator, threads)
    return tensor.requires_grad_(requires_grad)


def rand(*size, dtype=None, generator=None, threads=None, requires_grad=False):
    """A new tensor of uniform values in [0, 1) (torch.rand; dtype default:
    torch.get_default_dtype())."""
    return _new("rand", _size(size, "rand"), dtype, "uniform", {"low": 0.0, "high": 1.0},
                generator, threads, requires_grad)


def randn(*size, dtype=None, generator=None, threads=None, requires_grad=False):
    """A new tensor of standard normal values (torch.randn)."""
    return _new("randn", _size(size, "randn"), dtype, "normal", {"mean": 0.0, "std": 1.0},
                generator, threads, requires_grad)


def randint(low, high=None, size=None, dtype=torch.int64, generator=None, threads=None):
    """A new tensor of integers in [low, high) (torch.randint); randint(high,
    size) means [0, high)."""
    if size is None:
        if high is None:
            raise TypeError("randint: size is required")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    params = {"low": _integer("randint", "low", low), "high": _integer("randint", "high", high)}
    return _new("randint", _size((size,), "randint"), dtype, "integers", params,
                generator, threads)


# ---------------------------------------------------------------------------
# Dropout (torch.native_dropout on CUDA: ORDER.md section 6)

def _float32_ceil(value):
    """The smallest float32 >= value, as a Python float."""
    rounded = np.float32(value)
    if float(rounded) < value:
        rounded = np.nextafter(rounded, np.float32(np.inf))
    return float(rounded)


def _keep_probability(x, p1m):
    """The bernoulli p whose mask equals CUDA dropout's `u < p1m`, u a float
    uniform: the library compares u < float(p). For float64 inputs CUDA
    compares in double, which keeps u == float(p1m) when float(p1m) < p1m; the
    float32 ceiling of p1m keeps exactly those u."""
    return _float32_ceil(p1m) if x.dtype == torch.float64 else p1m


def _scale(x, p1m):
    """1 / p1m in x's accumulation type: double for float64; for the others
    float, divided in double from float(p1m) as the CUDA kernel does."""
    if x.dtype == torch.float64:
        return 1.0 / p1m
    return float(np.float32(1.0 / float(np.float32(p1m))))


def _replay_dropout_mask(gen, x, p, threads):
    """The keep mask of torch.cuda's fused dropout in its own element order
    (vector widths of Dropout.cu; randtensor.replay.torch_cuda.dropout); the
    generator's offset advances as the GPU's does."""
    if not x.is_contiguous():
        raise ValueError("dropout: order='torch_cuda' replays contiguous tensors only")
    data = x.detach()
    bf16 = data.dtype == torch.bfloat16
    array = data.view(torch.int16).numpy().view(np.uint16) if bf16 else data.numpy()
    with gen._lock:
        try:
            _, mask, gen._offset = _replay.torch_cuda.dropout(
                array, p, seed=gen._seed, philox_offset=gen._offset, gpu=gen.gpu,
                threads=_threads(threads), bfloat16=bf16)
        except (TypeError, ValueError) as error:
            raise type(error)(f"dropout: {error}") from None
    return torch.from_numpy(mask)


def dropout(x, p=0.5, training=True, generator=None, threads=None):
    """(output, mask) as torch.native_dropout computes on CUDA: mask =
    bernoulli(1 - p) as bool, output = x * mask * (1 / (1 - p)), in float
    for float16/bfloat16/float32 (rounded once to x's type) and in double for
    float64. training=False and p == 0 draw nothing: (x.clone(), all True);
    p == 1 draws nothing: (zeros, all False). Differentiable in x."""
    _check_tensor(x, "dropout", "x")
    if x.dtype not in _FLOATS:
        raise TypeError(f"dropout: x has dtype {x.dtype}; dropout needs one of "
                        f"{_dtype_names(_FLOATS)}")
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: probability has to be between 0 and 1, but got p = {p}")
    gen = _generator(generator, "dropout")
    if not training or p == 0.0 or x.numel() == 0:
        return x.clone(), torch.ones_like(x, dtype=torch.bool)
    if p == 1.0:
        return torch.zeros_like(x), torch.zeros_like(x, dtype=torch.bool)
    p1m = 1.0 - p
    if gen.order == "torch_cuda":
        mask = _replay_dropout_mask(gen, x, p, threads)
    else:
        mask = torch.empty(x.shape, dtype=torch.bool)
        gen._fill("dropout", mask, "bernoulli", {"p": _keep_probability(x, p1m)}, threads)
    wide = x if x.dtype in (torch.float32, torch.float64) else x.float()
    # Two roundings in the accumulation type, as the kernel's x * keep * scale;
    # the first is exact (keep is 0 or 1).
    output = wide.mul(mask).mul(_scale(x, p1m))
    return output.to(x.dtype), mask


# ---------------------------------------------------------------------------
# The backend: PyTorch's own random operators served by randtensor

_backend_lock = threading.Lock()
_backend_loaded = False
_fork_hook_registered = False
_installed_with = None  # install()'s (order, gpu, huge_pages) while installed


def _load_backend():
    """Loads _torch_backend.so (built with the package against this torch's
    libtorch) into torch's dispatcher, once."""
    global _backend_loaded
    with _backend_lock:
        if _backend_loaded:
            return
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_torch_backend.so")
        if not os.path.exists(path):
            raise ImportError(
                f"randtensor.torch.install: {path} is missing: randtensor was built without "
                "libtorch (Debian: apt-get install libtorch-dev, then rebuild)")
        torch.ops.load_library(path)
        _backend_loaded = True


def _reseed_after_fork():
    """A forked child continues from its own entropy seed, not from the
    parent's position: two processes never draw the same stream words unless
    one of them seeds itself (DataLoader workers do, with distinct seeds)."""
    if is_installed():
        torch.default_generator.seed()


def install(order="stream", gpu=None, huge_pages=False):
    """Makes PyTorch's CPU random operators randtensor's, for the whole process.

    Unchanged PyTorch code (w.normal_(), torch.rand, nn.init.*, F.dropout,
    torch.randint, ...) then draws from randtensor's Philox stream, on all of
    torch.get_num_threads() threads. A torch CPU generator's state is
    (seed, offset) as torch.cuda's: torch.manual_seed(s) starts at offset 0,
    and get_rng_state/set_rng_state/fork_rng save and restore it.

    order="stream": element e of a tensor's logical order gets stream element
      e from the generator's offset (layout and thread count never matter).
    order="torch_cuda": what PyTorch on a CUDA GPU returns for the same seed
      and the same calls (docs/torch.md lists what is exact and what is close).
      gpu: a preset name ("h100-sxm", ...), (sm_count, threads_per_sm) as
      torch.cuda.get_device_properties gives them, or None / "unbounded"
      (one element per GPU thread: exact for tensors of up to the GPU's
      thread count).

    huge_pages: whether fills of 16 MiB or more ask the kernel for
      transparent huge pages first (one page fault per 2 MiB of fresh memory
      instead of 512). Faster on most hosts, slower on some virtual machines
      (docs/torch.md, "Speed"); values never depend on it.

    Calling it again changes the settings; uninstall() restores PyTorch's kernels.
    """
    global _fork_hook_registered, _installed_with
    if order not in ("stream", "torch_cuda"):
        raise ValueError(f"order = {order!r} is not 'stream' or 'torch_cuda'")
    # randtensor.replay's reading of gpu (None: one element per GPU thread)
    sm_count, threads_per_sm = _replay._geometry(gpu, 0)
    if not isinstance(huge_pages, bool):
        raise TypeError(f"huge_pages = {huge_pages!r} is not True or False")
    _load_backend()
    torch.ops.randtensor.install(order, sm_count, threads_per_sm, huge_pages)
    _installed_with = (order, gpu, huge_pages)
    with _backend_lock:
        if not _fork_hook_registered and hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_reseed_after_fork)
            _fork_hook_registered = True


def uninstall():
    """Gives PyTorch its own CPU random kernels back (a no-op when not installed)."""
    global _installed_with
    if _backend_loaded:
        torch.ops.randtensor.uninstall()
    _installed_with = None


def is_installed():
    """Whether install() is in effect."""
    return _installed_with is not None


@contextlib.contextmanager
def installed(order="stream", gpu=None, huge_pages=False):
    """install() for a with-block; on leaving, the state before it (PyTorch's
    kernels, or the earlier install() and its order) returns."""
    before = _installed_with if is_installed() else None
    install(order, gpu, huge_pages)
    try:
        yield
    finally:
        if before is not None:
            install(*before)
        else:
            uninstall()


def get_offset(generator=None):
    """The stream offset of a torch CPU generator (default: torch's default
    generator), as torch.cuda's get_offset: 4 * Philox blocks used since its
    last seeding."""
    _load_backend()
    return torch.ops.randtensor.get_offset(generator)


def set_offset(offset, generator=None):
    """Moves a torch CPU generator to `offset` (a multiple of 4), keeping its seed."""
    _load_backend()
    torch.ops.randtensor.set_offset(generator, offset)
