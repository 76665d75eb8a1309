"""randtensor: Philox4x32-10 random bits into NumPy arrays and DLPack tensors.

Every element gets the value DirectML's DML_RANDOM_GENERATOR gives it
(SPEC.md): number the elements in logical row-major order (last axis fastest),
then element e holds word (e' mod 4) of Philox4x32-10(C + e' // 4, key) with
e' = offset + e. Values never depend on the array's memory layout, the thread
count or the SIMD target: a transposed, sliced or negatively strided view holds
the same logical tensor as a fresh C-contiguous array.

The state is six uint32 words in DirectML's order: counter words 0-3 (least
significant first), then key words 0-1. `seed=N` means key (N mod 2^32,
N >> 32) and counter 0. Every fill returns the state after it: the counter
advanced by ceil((offset + N) / 4), the key unchanged.

    >>> import numpy as np, randtensor
    >>> a = np.empty((3, 4), np.uint32)
    >>> state = randtensor.fill(a, seed=42)
    >>> state = randtensor.fill(a.T, state=state)        # any view works

Errors raise before anything is written, with the library's message:
TypeError for a dtype other than uint32 (or an object that is neither an
ndarray nor a DLPack producer), ValueError for bad layouts (read-only,
unaligned, overlapping, more than 8 dimensions) and bad arguments,
RuntimeError when the process's SIMD target choice (RANDTENSOR_TARGET) is
unusable.
"""

import operator

import numpy as np

from . import _core
from ._core import (
    Philox4x32,
    __version__,
    active_target,
    default_threads,
    set_default_threads,
    targets,
)

__all__ = [
    "Philox4x32",
    "__version__",
    "active_target",
    "bernoulli",
    "cauchy",
    "default_threads",
    "exponential",
    "fill",
    "generate",
    "geometric",
    "integers",
    "lognormal",
    "normal",
    "philox_block",
    "set_default_threads",
    "set_target",
    "targets",
    "uniform",
]

# Distribution kinds (randtensor/distribution.h); _dist() names their parameters.
(_BITS, _UNIFORM, _NORMAL, _BERNOULLI, _INTEGERS, _EXPONENTIAL, _CAUCHY, _LOG_NORMAL,
 _GEOMETRIC) = range(9)
_DTYPES = {"uint32": np.uint32, "float32": np.float32, "float64": np.float64,
           "float16": np.float16, "bfloat16": np.uint16, "uint8": np.uint8, "bool": np.bool_,
           "int32": np.int32, "int64": np.int64}

_STATE_WORDS = 6


def _unsigned(name, value, bits):
    """`value` as a Python int in 0 .. 2**bits - 1, or a TypeError/ValueError naming `name`."""
    try:
        number = operator.index(value)  # ints and NumPy integers; not floats or strings
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None
    if not 0 <= number < 1 << bits:
        raise ValueError(f"{name} = {number} is outside the uint{bits} range 0..{(1 << bits) - 1}")
    return number


def _words(name, words, count):
    """A sequence of `count` uint32 words as a list of ints."""
    try:
        length = None if isinstance(words, (str, bytes)) else len(words)
    except TypeError:  # no len(), or a 0-d NumPy array
        length = None
    if length is None:
        raise TypeError(f"{name} must be a sequence of {count} uint32 words, "
                        f"not {type(words).__name__}")
    if length != count:
        raise ValueError(f"{name} has {length} words; it needs {count}")
    return [_unsigned(f"{name}[{i}]", w, 32) for i, w in enumerate(words)]


def _state_words(state, seed):
    """The six input words from `state` or `seed` (default: seed 0)."""
    if state is not None and seed is not None:
        raise ValueError("give state or seed, not both")
    if state is not None:
        return _words("state", state, _STATE_WORDS)
    return _core.seed_state(_unsigned("seed", 0 if seed is None else seed, 64))


def _fill_arguments(state, seed, offset, threads):
    return (_state_words(state, seed), _unsigned("offset", offset, 64),
            _unsigned("threads", threads, 32))


def _export_dlpack(producer):
    """The producer's "dltensor" capsule. CPU tensors need no stream; the
    protocol says to pass stream=None, which older producers do not accept."""
    try:
        return producer.__dlpack__(stream=None)
    except TypeError:
        return producer.__dlpack__()


def _dist(dist, low=None, high=None, mean=None, std=None, p=None, lambd=None, median=None,
          sigma=None):
    """The compiled core's Distribution of a distribution by name, its
    parameters by name (randtensor::Distribution's fields; lambd for lambda,
    a Python keyword, as PyTorch spells it)."""
    given = {"low": low, "high": high, "mean": mean, "std": std, "p": p, "lambd": lambd,
             "median": median, "sigma": sigma}
    allowed = {"bits": (), "uniform": ("low", "high"), "normal": ("mean", "std"),
               "bernoulli": ("p",), "integers": ("low", "high"), "exponential": ("lambd",),
               "cauchy": ("median", "sigma"), "lognormal": ("mean", "std"),
               "geometric": ("p",)}
    if dist not in allowed:
        raise ValueError(f"dist = {dist!r} is not a distribution ({', '.join(allowed)})")
    for name, value in given.items():
        if value is not None and name not in allowed[dist]:
            raise ValueError(f"{name} does not apply to dist = {dist!r}")
    if dist == "bits":
        return _core.Distribution(_BITS)
    if dist == "uniform":
        return _core.Distribution(_UNIFORM, low=float(0.0 if low is None else low),
                                  high=float(1.0 if high is None else high))
    if dist == "normal":
        return _core.Distribution(_NORMAL, mean=float(0.0 if mean is None else mean),
                                  std=float(1.0 if std is None else std))
    if dist == "bernoulli":
        return _core.Distribution(_BERNOULLI, p=float(0.5 if p is None else p))
    if dist == "exponential":
        return _core.Distribution(_EXPONENTIAL, lambd=float(1.0 if lambd is None else lambd))
    if dist == "cauchy":
        return _core.Distribution(_CAUCHY, median=float(0.0 if median is None else median),
                                  sigma=float(1.0 if sigma is None else sigma))
    if dist == "lognormal":
        return _core.Distribution(_LOG_NORMAL, mean=float(0.0 if mean is None else mean),
                                  std=float(1.0 if std is None else std))
    if dist == "geometric":
        if p is None:
            raise ValueError("geometric needs p")
        return _core.Distribution(_GEOMETRIC, p=float(p))
    if high is None:
        raise ValueError("integers needs high")
    return _core.Distribution(_INTEGERS, int_low=operator.index(0 if low is None else low),
                              int_high=operator.index(high))


def fill(array, state=None, seed=None, offset=0, threads=0, dist="bits", low=None, high=None,
         mean=None, std=None, p=None, bfloat16=False, region=None, lambd=None, median=None,
         sigma=None):
    """Fills `array` in place and returns the next state (uint32 array of 6 words).

    array: a writable numpy.ndarray of dtype uint32, any shape (0 to 8
        dimensions) and any strides, or any object with __dlpack__ whose
        tensor is uint32 in CPU memory (PyTorch, JAX, CuPy's host arrays...).
    state: six uint32 words (counter words 0-3, key words 0-1); or
    seed: an integer 0 .. 2**64 - 1 (key = (seed mod 2**32, seed >> 32),
        counter 0). Not both; neither means seed 0.
    offset: the element offset: element e of the array takes stream element
        offset + e (sharding; cuRAND's offset). Not PyTorch's Philox offset,
        which randtensor.replay.torch_cuda takes as philox_offset.
    threads: at most this many threads; 0 means default_threads().
    dist: "bits" (uint32 arrays), "uniform" (low, high), "normal" (mean, std),
        "bernoulli" (p), "integers" (low, high), "exponential" (lambd),
        "cauchy" (median, sigma), "lognormal" (mean, std) or "geometric" (p):
        SPEC.md sections 8 and 8.1, the
        values cuRAND and PyTorch's CUDA transforms compute; the array's dtype
        is the output type (float32, float64, float16, uint8, bool, int32,
        int64, uint32), and bfloat16=True fills a uint16 array with bfloat16
        bit patterns (DLPack tensors carry bfloat16 themselves).
    region: (global_shape, start): `array` is the block start .. start +
        array.shape of a global tensor of global_shape, and gets exactly the
        values the whole global fill gives those elements (SPEC.md section
        10); the returned state is the global fill's. NumPy arrays only.
    """
    arguments = _fill_arguments(state, seed, offset, threads)
    distribution = _dist(dist, low, high, mean, std, p, lambd, median, sigma)
    # NumPy arrays go through the buffer path, which can see writability;
    # DLPack 0.x cannot express "read-only".
    if region is not None:
        global_shape, start = region
        region = ([operator.index(g) for g in global_shape], [operator.index(s) for s in start])
    if isinstance(array, np.ndarray):
        return _core.fill_ndarray(array, *arguments, distribution, bool(bfloat16), region)
    if region is not None:
        raise ValueError("region= is for NumPy arrays in this version")
    if bfloat16:
        raise ValueError("bfloat16=True is for uint16 NumPy arrays; a DLPack tensor says its dtype")
    if hasattr(array, "__dlpack__"):
        return _core.fill_dlpack(_export_dlpack(array), *arguments, distribution)
    raise TypeError(f"cannot fill a {type(array).__name__}: pass a numpy.ndarray or an "
                    "object with __dlpack__")


def generate(shape, state=None, seed=None, offset=0, threads=0, return_state=False):
    """A new C-contiguous uint32 array of `shape` (an int or a tuple; zero sizes
    allowed) filled as fill() would; with return_state=True, (array, next
    state) so that calls chain: generate(n, state=next) continues the stream."""
    return _new(shape, "uint32", _dist("bits"), state, seed, offset, threads, return_state)


def _new(shape, dtype, distribution, state, seed, offset, threads, return_state=False):
    if dtype not in _DTYPES:
        raise TypeError(f"dtype = {dtype!r} is not one of {', '.join(_DTYPES)}")
    arguments = _fill_arguments(state, seed, offset, threads)  # before allocating
    array = np.empty(shape, dtype=_DTYPES[dtype])
    next_state = _core.fill_ndarray(array, *arguments, distribution, dtype == "bfloat16")
    return (array, next_state) if return_state else array


def uniform(shape, low=0.0, high=1.0, dtype="float32", state=None, seed=None, offset=0,
            threads=0, return_state=False):
    """A new array of uniform values in [low, high) (torch.rand / uniform_ on a
    CUDA thread's stream). dtype: float32, float64, float16 or bfloat16
    (returned as uint16 bit patterns). return_state: (array, next state)."""
    return _new(shape, dtype, _dist("uniform", low=low, high=high), state, seed, offset, threads,
                return_state)


def normal(shape, mean=0.0, std=1.0, dtype="float32", state=None, seed=None, offset=0,
           threads=0, return_state=False):
    """A new array of normal values (torch.randn / normal_ on a CUDA thread's
    stream: Box-Muller on word pairs, sine for even, cosine for odd elements;
    randtensor's own log/sin/cos, the same bits on every CPU). dtype: float32,
    float64, float16 or bfloat16 (uint16 bit patterns)."""
    return _new(shape, dtype, _dist("normal", mean=mean, std=std), state, seed, offset, threads,
                return_state)


def bernoulli(shape, p=0.5, dtype="float32", state=None, seed=None, offset=0, threads=0,
              return_state=False):
    """A new array of 1 with probability p, else 0 (bernoulli_(p)). dtype:
    float32, float64, float16, bfloat16, uint8, bool or int32."""
    return _new(shape, dtype, _dist("bernoulli", p=p), state, seed, offset, threads, return_state)


def integers(shape, low, high=None, dtype="int64", state=None, seed=None, offset=0, threads=0,
             return_state=False):
    """A new array of integers in [low, high) (random_(from, to) / randint);
    integers(shape, high) means [0, high). dtype: int64, int32, uint32,
    float32, float64; two stream words per element from a range of 2^28."""
    if high is None:
        low, high = 0, low
    return _new(shape, dtype, _dist("integers", low=low, high=high), state, seed, offset, threads,
                return_state)


def exponential(shape, lambd=1.0, dtype="float32", state=None, seed=None, offset=0, threads=0,
                return_state=False):
    """A new array of exponential values of rate lambd (PyTorch's exponential_(lambd):
    -log(u) / lambd on a CUDA thread's stream; NumPy's scale is 1 / lambd). dtype:
    float32, float64, float16 or bfloat16 (uint16 bit patterns)."""
    return _new(shape, dtype, _dist("exponential", lambd=lambd), state, seed, offset, threads,
                return_state)


def cauchy(shape, median=0.0, sigma=1.0, dtype="float32", state=None, seed=None, offset=0,
           threads=0, return_state=False):
    """A new array of Cauchy values (cauchy_(median, sigma): median + sigma tan(pi (u -
    1/2))). dtype: float32, float64, float16 or bfloat16 (uint16 bit patterns)."""
    return _new(shape, dtype, _dist("cauchy", median=median, sigma=sigma), state, seed, offset,
                threads, return_state)


def lognormal(shape, mean=0.0, std=1.0, dtype="float32", state=None, seed=None, offset=0,
              threads=0, return_state=False):
    """A new array of exp(normal(mean, std)) (log_normal_(mean, std); NumPy's
    lognormal(mean, sigma) with sigma = std): the normal's words and types."""
    return _new(shape, dtype, _dist("lognormal", mean=mean, std=std), state, seed, offset,
                threads, return_state)


def geometric(shape, p, dtype="int64", state=None, seed=None, offset=0, threads=0,
              return_state=False):
    """A new array of geometric values, the trials up to the first success of
    probability p (geometric_(p): ceil(log(u) / log(1 - p))). dtype: int64, int32,
    uint8, float32, float64, float16 or bfloat16; an integer type must hold every
    value (p large enough), else ValueError."""
    return _new(shape, dtype, _dist("geometric", p=p), state, seed, offset, threads,
                return_state)


def philox_block(counter, key):
    """Philox4x32-10 of one block (Random123's philox4x32_R(10, ctr, key)):
    four counter words (least significant first) and two key words -> a tuple
    of four ints. The scalar reference every fill equals."""
    return _core.philox_block(_words("counter", counter, 4), _words("key", key, 2))


def set_target(name):
    """Forces SIMD target `name` (see targets(); case is ignored) for every
    later fill in this process; "auto" or None restores the default. Raises
    ValueError for a target that is unknown or that this CPU cannot run."""
    _core.set_target("auto" if name is None else name)
