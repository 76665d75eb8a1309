"""randtensor.replay: a GPU framework's random tensors, bit for bit, on a CPU.

`torch_cuda` replays what PyTorch computes on a CUDA device for the same
generator state (seed, philox_offset): torch.rand/uniform_, randn/normal_,
bernoulli_(p), randint/random_(from, to) on contiguous tensors. Every call
returns the generator's new Philox offset, so a sequence of calls replays a
sequence of GPU calls (or use torch_cuda.Generator, which keeps it).

    >>> from randtensor.replay import torch_cuda
    >>> x, philox_offset = torch_cuda.rand((2, 3), seed=42)     # torch.manual_seed(42)
    >>> y, philox_offset = torch_cuda.randn(1000, seed=42, philox_offset=philox_offset)

(seed, philox_offset) are what torch.cuda.get_rng_state() holds: 16 bytes,
seed as uint64 then the Philox offset as int64, little-endian
(torch_cuda.state_from_bytes). The Philox offset is PyTorch's: 4 * the
Philox blocks used, a multiple of 4 (torch.cuda's get_offset), not the
element offset that randtensor.fill's offset= means. `offset=` is still
accepted here as a deprecated spelling of philox_offset=.
Values are bit-exact except normals: the GPU uses approximate __sincosf /
__logf, randtensor the exact formula within SPEC.md's bound (measured
differences in tests/reference/torch_cuda/ORDER.md).

Tensors of more than 40960 elements need the GPU's geometry (gpu="h100-sxm",
a name from gpu_presets(), or (sm_count, threads_per_sm) as
torch.cuda.get_device_properties reports multi_processor_count and
max_threads_per_multi_processor): above sm_count * threads_per_sm elements
PyTorch's element order depends on it, and 40960 is the smallest such bound
among the presets. gpu="unbounded" replays a GPU with unlimited threads.
"""

import warnings

import numpy as np

from . import _DTYPES, _core, _dist, _export_dlpack, _unsigned

__all__ = ["curand_host", "gpu_presets", "torch_cuda"]

_TORCH_CUDA = 1  # randtensor::ElementOrder::kTorchCuda
_GEOMETRY_FREE = 40960  # the smallest sm_count * threads_per_sm of the presets (T4)


def gpu_presets():
    """{name: (sm_count, threads_per_sm)} of the GPUs randtensor knows."""
    return _core.gpu_presets()


def _geometry(gpu, count):
    """(sm_count, threads_per_sm) for `gpu`, which may be None below the
    size where the geometry matters."""
    if gpu is None:
        if count > _GEOMETRY_FREE:
            raise ValueError(
                f"{count} elements: above {_GEOMETRY_FREE} PyTorch's CUDA order depends on the "
                "GPU; pass gpu= a name from gpu_presets(), (sm_count, threads_per_sm), or "
                "'unbounded'")
        return (0, 0)
    if isinstance(gpu, str):
        if gpu.lower() == "unbounded":
            return (0, 0)
        presets = _core.gpu_presets()
        if gpu.lower() not in presets:
            raise ValueError(f"gpu = {gpu!r} is not a preset ({', '.join(sorted(presets))})")
        return presets[gpu.lower()]
    try:
        sm, tps = gpu
    except (TypeError, ValueError):
        raise TypeError(f"gpu must be a preset name or (sm_count, threads_per_sm), not {gpu!r}") from None
    return (_unsigned("gpu sm_count", sm, 31), _unsigned("gpu threads_per_sm", tps, 31))


def _philox_offset(philox_offset, offset):
    """philox_offset, or the value of the deprecated spelling offset=."""
    if offset is None:
        return philox_offset
    if philox_offset != 0:
        raise TypeError("give philox_offset or offset (its deprecated spelling), not both")
    warnings.warn("randtensor.replay.torch_cuda: offset= is deprecated, pass philox_offset= "
                  "(PyTorch's Philox offset; randtensor.fill's offset= counts elements)",
                  DeprecationWarning, stacklevel=3)
    return offset


def _state(seed, philox_offset):
    """The six state words of PyTorch's (seed, philox_offset)."""
    seed = _unsigned("seed", seed, 64)
    philox_offset = _unsigned("philox_offset", philox_offset, 64)
    if philox_offset % 4 != 0:
        raise ValueError(f"philox_offset = {philox_offset} is not a multiple of 4 (PyTorch's "
                         "CUDA generator keeps its Philox offset at multiples of 4)")
    c = philox_offset // 4
    return [c & 0xFFFFFFFF, c >> 32, 0, 0, seed & 0xFFFFFFFF, seed >> 32]


def _philox_offset_of(state):
    """The generator's Philox offset of a returned state."""
    return 4 * (int(state[0]) | int(state[1]) << 32)


def state_from_bytes(data):
    """(seed, philox_offset) from torch.cuda.get_rng_state()'s 16 bytes (a uint8
    tensor, bytes or any buffer)."""
    raw = bytes(np.asarray(data, dtype=np.uint8).tobytes()) if not isinstance(data, bytes) else data
    if len(raw) != 16:
        raise ValueError(f"a CUDA generator state has 16 bytes, not {len(raw)}")
    return int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little", signed=True)


def _fill(out, distribution, seed, philox_offset, gpu, threads, bfloat16=False):
    """Fills `out` (C-contiguous NumPy array or DLPack tensor) in PyTorch's
    CUDA order; returns the new Philox offset."""
    count = int(np.prod(getattr(out, "shape", ()), dtype=np.int64))
    order = (_TORCH_CUDA,) + tuple(_geometry(gpu, count))
    state = _state(seed, philox_offset)
    threads = _unsigned("threads", threads, 32)
    if isinstance(out, np.ndarray):
        if not out.flags.c_contiguous:
            raise ValueError("torch_cuda replays C-contiguous tensors only (PyTorch's CUDA order "
                             "of other layouts is not modelled)")
        new = _core.fill_ndarray(out, state, 0, threads, distribution, bool(bfloat16), None, order)
    elif hasattr(out, "__dlpack__"):
        new = _core.fill_dlpack(_export_dlpack(out), state, 0, threads, distribution, order)
    else:
        raise TypeError(f"cannot fill a {type(out).__name__}: pass a numpy.ndarray or an object "
                        "with __dlpack__")
    return _philox_offset_of(new)


# Types PyTorch fills that SPEC.md section 8's table does not list for a
# distribution, made from one it does with the same stream words and the same
# value, then converted as PyTorch converts: randint into uint8/bool (int32,
# then the narrowing cast), into float16/bfloat16 (float32, then one
# round-to-nearest-even: PyTorch's int64 -> float -> half), bernoulli_ into
# int64 (int32's 0/1).
_VIA = {("integers", "uint8"): "int32", ("integers", "bool"): "int32",
        ("integers", "float16"): "float32", ("integers", "bfloat16"): "float32",
        ("bernoulli", "int64"): "int32"}
_KIND_NAMES = {1: "uniform", 2: "normal", 3: "bernoulli", 4: "integers"}


def _bfloat16_bits(x):
    """float32 -> bfloat16 bit patterns, round to nearest even (finite x)."""
    u = x.astype(np.float32).view(np.uint32)
    return ((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)).astype(np.uint16)


def _new(shape, dtype, distribution, seed, philox_offset, gpu, threads):
    if dtype not in _DTYPES:
        raise TypeError(f"dtype = {dtype!r} is not one of {', '.join(_DTYPES)}")
    _state(seed, philox_offset)  # checked before allocating
    via = _VIA.get((_KIND_NAMES.get(distribution.kind), dtype))
    if via is not None:
        made = np.empty(shape, dtype=_DTYPES[via])
        new_offset = _fill(made, distribution, seed, philox_offset, gpu, threads)
        if dtype == "bfloat16":
            return _bfloat16_bits(made), new_offset
        return made.astype(_DTYPES[dtype]), new_offset
    array = np.empty(shape, dtype=_DTYPES[dtype])
    return array, _fill(array, distribution, seed, philox_offset, gpu, threads,
                        dtype == "bfloat16")


class _TorchCuda:
    """PyTorch's CUDA random ops (see the module's docstring). Every function
    returns (array, new_philox_offset); bfloat16 arrays are uint16 bit
    patterns. offset= is the deprecated spelling of philox_offset=."""

    @staticmethod
    def fill(out, dist="uniform", seed=0, philox_offset=0, gpu=None, threads=0, bfloat16=False,
             *, offset=None, **params):
        """Fills `out` in place as the op `dist` ("uniform", "normal",
        "bernoulli", "integers", "bits") with `params` (low/high, mean/std, p)
        would on the GPU; returns the new Philox offset."""
        return _fill(out, _dist(dist, **params), seed, _philox_offset(philox_offset, offset), gpu,
                     threads, bfloat16)

    @staticmethod
    def uniform(shape, low=0.0, high=1.0, dtype="float32", seed=0, philox_offset=0, gpu=None,
                threads=0, *, offset=None):
        """torch.empty(shape).uniform_(low, high)."""
        return _new(shape, dtype, _dist("uniform", low=low, high=high), seed,
                    _philox_offset(philox_offset, offset), gpu, threads)

    @staticmethod
    def rand(shape, dtype="float32", seed=0, philox_offset=0, gpu=None, threads=0, *,
             offset=None):
        """torch.rand(shape, dtype=dtype, device='cuda')."""
        return _new(shape, dtype, _dist("uniform"), seed, _philox_offset(philox_offset, offset),
                    gpu, threads)

    @staticmethod
    def normal(shape, mean=0.0, std=1.0, dtype="float32", seed=0, philox_offset=0, gpu=None,
               threads=0, *, offset=None):
        """torch.empty(shape).normal_(mean, std)."""
        return _new(shape, dtype, _dist("normal", mean=mean, std=std), seed,
                    _philox_offset(philox_offset, offset), gpu, threads)

    @staticmethod
    def randn(shape, dtype="float32", seed=0, philox_offset=0, gpu=None, threads=0, *,
              offset=None):
        """torch.randn(shape, dtype=dtype, device='cuda')."""
        return _new(shape, dtype, _dist("normal"), seed, _philox_offset(philox_offset, offset),
                    gpu, threads)

    @staticmethod
    def bernoulli(shape, p=0.5, dtype="float32", seed=0, philox_offset=0, gpu=None, threads=0,
                  *, offset=None):
        """torch.empty(shape, dtype=dtype).bernoulli_(p) (p a float)."""
        return _new(shape, dtype, _dist("bernoulli", p=p), seed,
                    _philox_offset(philox_offset, offset), gpu, threads)

    @staticmethod
    def randint(low, high, shape, dtype="int64", seed=0, philox_offset=0, gpu=None, threads=0,
                *, offset=None):
        """torch.randint(low, high, shape, dtype=dtype) = random_(low, high)."""
        return _new(shape, dtype, _dist("integers", low=low, high=high), seed,
                    _philox_offset(philox_offset, offset), gpu, threads)

    @staticmethod
    def dropout(x, p=0.5, seed=0, philox_offset=0, gpu=None, max_vector=None, threads=0,
                bfloat16=False, *, offset=None):
        """torch.native_dropout(x, p, train=True) on a CUDA tensor x (what
        F.dropout(x, p) runs when not in place): returns (output, mask,
        new_philox_offset). x: a C-contiguous float32/float64/float16 array,
        or uint16 bfloat16 bit patterns with bfloat16=True. max_vector: what
        the GPU input's address alignment allows (8 for a fresh allocation,
        the default; 4, 2 or 1 for a view at an offset). 0 < p < 1."""
        philox_offset = _philox_offset(philox_offset, offset)
        x = np.asarray(x)
        if not x.flags.c_contiguous:
            raise ValueError("torch_cuda.dropout replays C-contiguous arrays only")
        order = _geometry(gpu, x.size)
        out = np.empty_like(x)
        mask = np.empty(x.shape, np.bool_)
        state = _core.torch_cuda_dropout(x, out, mask, float(p), _state(seed, philox_offset),
                                         order[0], order[1],
                                         0 if max_vector is None else int(max_vector),
                                         _unsigned("threads", threads, 32), bool(bfloat16))
        return out, mask, _philox_offset_of(state)

    gpu_presets = staticmethod(gpu_presets)
    state_from_bytes = staticmethod(state_from_bytes)

    class Generator:
        """A CUDA generator's (seed, philox_offset), advanced by each call
        exactly as the GPU's: Generator(seed).rand(...) then .randn(...)
        replays torch.manual_seed(seed); torch.rand(...); torch.randn(...)."""

        def __init__(self, seed=67280421310721, philox_offset=0, gpu=None, threads=0, *,
                     offset=None):
            # PyTorch's default CUDA seed (torch.Generator(device='cuda')).
            philox_offset = _philox_offset(philox_offset, offset)
            _state(seed, philox_offset)
            self.seed, self.philox_offset, self.gpu, self.threads = (seed, philox_offset, gpu,
                                                                     threads)

        @property
        def offset(self):
            """Deprecated spelling of philox_offset."""
            warnings.warn("torch_cuda.Generator.offset is deprecated, use philox_offset",
                          DeprecationWarning, stacklevel=2)
            return self.philox_offset

        @offset.setter
        def offset(self, value):
            warnings.warn("torch_cuda.Generator.offset is deprecated, use philox_offset",
                          DeprecationWarning, stacklevel=2)
            self.philox_offset = value

        def manual_seed(self, seed):
            _state(seed, 0)
            self.seed, self.philox_offset = seed, 0
            return self

        def get_state(self):
            """The 16 bytes torch.cuda.get_rng_state() would hold."""
            return self.seed.to_bytes(8, "little") + self.philox_offset.to_bytes(8, "little")

        def set_state(self, data):
            seed, philox_offset = state_from_bytes(data)
            _state(seed, philox_offset)
            self.seed, self.philox_offset = seed, philox_offset

        def _call(self, op, *args, **kwargs):
            array, self.philox_offset = op(*args, seed=self.seed,
                                           philox_offset=self.philox_offset, gpu=self.gpu,
                                           threads=self.threads, **kwargs)
            return array

        def rand(self, shape, dtype="float32"):
            return self._call(_TorchCuda.rand, shape, dtype=dtype)

        def randn(self, shape, dtype="float32"):
            return self._call(_TorchCuda.randn, shape, dtype=dtype)

        def uniform(self, shape, low=0.0, high=1.0, dtype="float32"):
            return self._call(_TorchCuda.uniform, shape, low, high, dtype=dtype)

        def normal(self, shape, mean=0.0, std=1.0, dtype="float32"):
            return self._call(_TorchCuda.normal, shape, mean, std, dtype=dtype)

        def bernoulli(self, shape, p=0.5, dtype="float32"):
            return self._call(_TorchCuda.bernoulli, shape, p, dtype=dtype)

        def randint(self, low, high, shape, dtype="int64"):
            return self._call(_TorchCuda.randint, low, high, shape, dtype=dtype)

        def dropout(self, x, p=0.5, max_vector=None, bfloat16=False):
            """(output, mask) of native_dropout; the Philox offset advances."""
            out, mask, self.philox_offset = _TorchCuda.dropout(
                x, p, seed=self.seed, philox_offset=self.philox_offset, gpu=self.gpu,
                max_vector=max_vector, threads=self.threads, bfloat16=bfloat16)
            return out, mask

        def fill(self, out, dist="uniform", bfloat16=False, **params):
            self.philox_offset = _fill(out, _dist(dist, **params), self.seed, self.philox_offset,
                                       self.gpu, self.threads, bfloat16)
            return out


torch_cuda = _TorchCuda()


class _CurandHost:
    """cuRAND's host generator CURAND_RNG_PSEUDO_PHILOX4_32_10 (default
    ordering), replayed: curand_host.Generator(seed) then generate(n),
    generate_uniform(n), generate_uniform_double(n), generate_normal(n, mean,
    stddev), generate_normal_double(n, mean, stddev), each returning a NumPy
    array of cuRAND's output (uint32, float32, float64) and advancing the
    generator as cuRAND does (tests/reference/curand_host/ORDERING.md).
    Uniforms are bit-exact; normals within SPEC.md's bound of the exact
    formula (the GPU's own differ by up to ~4e-6 in float)."""

    class Generator:
        """curandCreateGenerator(CURAND_RNG_PSEUDO_PHILOX4_32_10) with
        curandSetPseudoRandomGeneratorSeed(seed) (cuRAND's default seed is 0)."""

        def __init__(self, seed=0, threads=0):
            self.seed = _unsigned("seed", seed, 64)
            self.offset, self.skew, self.threads = 0, 0, threads

        def set_offset(self, offset):
            """curandSetGeneratorOffset: outputs to skip (any number, not
            rounded); the double functions' skew starts over."""
            self.offset, self.skew = _unsigned("offset", offset, 64), 0

        def set_seed(self, seed):
            """curandSetPseudoRandomGeneratorSeed before the first generation
            (setting it after one moved the GPU's position in a way not
            modelled: ORDERING.md)."""
            self.seed = _unsigned("seed", seed, 64)

        def _call(self, function, count, mean=0.0, stddev=1.0):
            array, self.offset, self.skew = _core.curand_host_generate(
                function, _unsigned("count", count, 64), self.seed, self.offset, self.skew,
                float(mean), float(stddev), _unsigned("threads", self.threads, 32))
            return array

        def generate(self, count):
            return self._call(0, count)

        def generate_uniform(self, count):
            return self._call(1, count)

        def generate_uniform_double(self, count):
            return self._call(2, count)

        def generate_normal(self, count, mean=0.0, stddev=1.0):
            return self._call(3, count, mean, stddev)

        def generate_normal_double(self, count, mean=0.0, stddev=1.0):
            return self._call(4, count, mean, stddev)


curand_host = _CurandHost()
