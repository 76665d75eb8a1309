"""Which Philox words PyTorch's CUDA random kernels give each element, in pure Python.

A reference for ORDER.md (same folder): slow, plain, exact. It reuses the independent
model one folder up (`philox_stream.py` for Philox4x32-10 and curand_init's state,
`distributions.py` for the exact-rational transforms of SPEC.md section 8 in their
`variant="pytorch"` form) and adds only the launch geometry and the element ->
(thread, call, lane) mapping of PyTorch's kernels (torch 2.11 headers; see ORDER.md for
every rule and its source line).

    elements(kind, dtype, numel, seed, offset, sm_count, threads_per_sm, **params)
        -> (values, new_offset)
    word_address(kind, e, numel, sm_count, threads_per_sm, dtype="float32", **params)
        -> (subsequence, block, lane)

Values are bit patterns (ints of the output type's width; integers in two's complement,
bool as 0/1). For kind "dropout" each value is a pair (output bits, mask 0/1).

kinds (aliases in brackets) and their params:
  "uniform"        [rand]     low=0.0, high=1.0          Tensor.uniform_ / torch.rand
  "normal"         [randn]    mean=0.0, std=1.0          Tensor.normal_ / torch.randn
  "bernoulli"                 p                          Tensor.bernoulli_(float p)
  "random_from_to" [randint]  low, high (high None: to the type's max, as random_(from))
  "random"                    -                          Tensor.random_() (no bounds)
  "random_full64"             -                          Tensor.random_(-2**63, None)
  "dropout"                   p, src, max_vec=None, vec=None
        torch.native_dropout(x, p, True) / F.dropout(x, p, training=True) (not inplace):
        src(e) -> value of input element e (exactly representable in dtype) or a list;
        max_vec caps the vector width (None: torch 2.11's 16 / sizeof(T) cap, i.e. 8 for
        float16/bfloat16; 4 is the behaviour before pytorch PR #145746); vec forces it
        (1 = the non-vectorized kernel, e.g. for a non-dense input).

Only contiguous outputs (logical row-major order = memory order) and tensors that
TensorIterator can index with 32 bits (ORDER.md section 7) are modelled.
"""
import functools
import os
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/reference

import distributions as dist  # noqa: E402
import philox_stream as ps  # noqa: E402

F32, F64, F16, BF16 = dist.F32, dist.F64, dist.F16, dist.BF16
FLOATS = (F32, F64, F16, BF16)
BLOCK = 256                  # block_size_bound (cuda/DistributionTemplates.h:34), Dropout.cu block_size
OFFSETS_PER_CALL = 4         # max_generator_offsets_per_curand_call (cuda/DistributionTemplates.h:38)
DROPOUT_UNROLL = 4           # Dropout.cu UNROLL
MASK64 = (1 << 64) - 1

ITEMSIZE = {F64: 8, F32: 4, F16: 2, BF16: 2, "int64": 8, "int32": 4, "int16": 2, "int8": 1,
            "uint8": 1, "bool": 1, "uint16": 2, "uint32": 4, "uint64": 8}
INT_BITS = {"int64": 64, "int32": 32, "int16": 16, "int8": 8, "uint8": 8, "uint16": 16,
            "uint32": 32, "uint64": 64}
SIGNED = {"int64", "int32", "int16", "int8"}
DIGITS = {F64: 53, F32: 24, F16: 11, BF16: 8}   # std::numeric_limits<T>::digits
ALIASES = {"rand": "uniform", "randn": "normal", "randint": "random_from_to",
           "integers": "random_from_to", "random_": "random"}
KINDS = ("uniform", "normal", "bernoulli", "random_from_to", "random", "random_full64", "dropout")


def canonical(kind):
    k = ALIASES.get(kind, kind)
    if k not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    return k


# ----------------------------------------------------------- launch geometry --
def max_grid(sm_count, threads_per_sm):
    """SMs * (maxThreadsPerMultiProcessor / 256), integer division (calc_execution_policy)."""
    return sm_count * (threads_per_sm // BLOCK)


def launch(numel, sm_count, threads_per_sm):
    """(grid, G): grid = min(ceil(numel / 256), max_grid), G = 256 * grid threads.
    Same formula in calc_execution_policy and in Dropout.cu's dropout_cuda."""
    if numel <= 0:
        raise ValueError("numel must be positive (an empty tensor launches nothing)")
    grid = min((numel + BLOCK - 1) // BLOCK, max_grid(sm_count, threads_per_sm))
    if grid < 1:
        raise ValueError("threads_per_sm must be at least 256")
    return grid, BLOCK * grid


def _int_range(kind, dtype, params):
    """(base, range) of random_from_to as random_from_to_impl computes them; range None
    for random_full64 (2^64)."""
    lo = int(params.get("low", 0))
    hi = params.get("high")
    if dtype in FLOATS:
        lo = _update_from(lo, dtype)
    if hi is not None:
        hi = int(hi)
        if dtype in FLOATS:
            hi = _update_to(hi, dtype)
        if not lo < hi:
            raise ValueError(f"random_ expects from < to, got {lo} >= {hi}")
        return lo, (hi - lo) & MASK64
    if lo == -(1 << 63):
        return lo, None
    if dtype in FLOATS:
        to_inc = min(1 << DIGITS[dtype], (1 << 63) - 1)
    elif dtype == "bool":
        to_inc = 1
    else:
        bits = INT_BITS[dtype]
        to_inc = (1 << (bits - 1)) - 1 if dtype in SIGNED else (1 << bits) - 1
        to_inc = min(to_inc, (1 << 63) - 1)
    return lo, (to_inc - lo + 1) & MASK64


def unroll(kind, dtype, **params):
    """Elements per curand call (U): sizeof(dist_func_return_t) / sizeof(accscalar_t)
    (distribution_nullary_kernel, cuda/DistributionTemplates.h:117)."""
    kind = canonical(kind)
    if kind in ("uniform", "normal", "bernoulli"):
        return 2 if dtype == F64 else 4          # double2/double, float4/float
    if kind == "random_from_to":
        _, r = _int_range(kind, dtype, params)
        if r is None:
            return 2
        return 2 if r >= (1 << 28) else 4        # ulonglong2/uint64_t vs uint4/uint32_t
    if kind == "random":
        return 2 if dtype in (F64, "int64") else 4
    if kind == "random_full64":
        return 2
    if kind == "dropout":
        return DROPOUT_UNROLL
    raise ValueError(kind)


def calls_per_thread(kind, dtype, numel, sm_count, threads_per_sm, **params):
    """ceil(numel / (G * U)): curand calls every thread makes (all threads make the same
    number in the distribution kernel; the offset is reserved for that many)."""
    _, g = launch(numel, sm_count, threads_per_sm)
    u = unroll(kind, dtype, **params)
    return (numel - 1) // (g * u) + 1


def offset_increment(kind, dtype, numel, sm_count, threads_per_sm, **params):
    """What one call adds to the generator's philox offset: counter_offset =
    ((numel - 1) / (G * U) + 1) * 4 (dropout: U = UNROLL = 4 whatever VEC), rounded up
    to a multiple of 4 by CUDAGeneratorState::increase (already one). 0 for numel 0."""
    if numel == 0:
        return 0
    return OFFSETS_PER_CALL * calls_per_thread(kind, dtype, numel, sm_count, threads_per_sm, **params)


def check_32bit_indexing(kind, dtype, numel):
    """TensorIterator::can_use_32bit_indexing for a contiguous output: numel and the
    byte extent (numel - 1) * itemsize + 1 must not exceed 2^31 - 1; beyond it the
    distribution kernel reserves an offset for the whole tensor and then splits it
    into sub-iterators, each reserving again (not modelled). Dropout does not split."""
    if kind == "dropout":
        return
    limit = (1 << 31) - 1
    if numel > limit or (numel - 1) * ITEMSIZE[dtype] + 1 > limit:
        raise NotImplementedError(
            f"{numel} elements of {dtype} exceed 32-bit indexing: PyTorch splits the launch "
            "(distribution_nullary_kernel, with_32bit_indexing); not modelled")


# -------------------------------------------------------------- dropout VEC --
def dropout_vec(dtype, numel, max_vec=None, vec=None, **_):
    """get_vector_size (Dropout.cu) for a fresh, aligned, dense contiguous input:
    can_vectorize_up_to gives 8 for a 512-byte aligned CUDA allocation, capped at
    16 / sizeof(T) (8 for 2-byte types, 4 float, 2 double), then halved until it
    divides numel; 1 means the non-vectorized fused_dropout_kernel."""
    if vec is not None:
        return vec
    v = min(8, 16 // ITEMSIZE[dtype])
    if max_vec is not None:
        v = min(v, max_vec)
    while v > 1 and numel % v:
        v //= 2
    return max(v, 1)


# --------------------------------------------------------- element -> words --
def word_address(kind, e, numel, sm_count, threads_per_sm, dtype=F32, **params):
    """(subsequence, block, lane) of element e (logical row-major index of a contiguous
    tensor of numel elements).

    subsequence: the thread id t = blockIdx.x * 256 + threadIdx.x passed to
        curand_init(seed, t, offset).
    block: the index of the thread's curand call (0, 1, ...); its Philox counter is
        t * 2^64 + offset / 4 + block (mod 2^128), key = (seed lo, seed hi).
    lane: which of the call's U results the element takes. Words of the 4-word block:
        U = 4 (float4 / uint4 calls): word `lane` (normal float: Box-Muller pair
            (w0, w1) for lanes 0, 1 and (w2, w3) for lanes 2, 3; sin for even lanes);
        U = 2 (double2 / ulonglong2 calls): words 2*lane, 2*lane+1 (normal double:
            all four words; lane 0 sin, lane 1 cos);
        dropout: `lane` is the word (0..3) of the curand_uniform4 call `block`.
    """
    kind = canonical(kind)
    if not 0 <= e < numel:
        raise IndexError(e)
    return _address(_geometry(kind, numel, sm_count, threads_per_sm, dtype, params), e)


def _geometry(kind, numel, sm_count, threads_per_sm, dtype, params):
    """What word_address needs besides e (the same for every element of a call):
    (G, v, u), v the dropout VEC when the vectorized kernel runs (else None)."""
    _, g = launch(numel, sm_count, threads_per_sm)
    if kind == "dropout":
        v = dropout_vec(dtype, numel, **params)
        if v > 1:
            return g, v, None
        return g, None, DROPOUT_UNROLL  # fused_dropout_kernel: same grid-stride order as the distributions
    return g, None, unroll(kind, dtype, **params)


def _address(geometry, e):
    """word_address of element e (0 <= e < numel) from _geometry's (G, v, u)."""
    g, v, u = geometry
    if v is not None:  # fused_dropout_kernel_vec: thread t owns VEC consecutive elements per stride
        k, r = divmod(e, g * v)
        t, j = divmod(r, v)
        rand_size = (v + 3) // 4
        return t, k * rand_size + j // 4, j % 4
    k, r = divmod(e, g * u)
    lane, t = divmod(r, g)
    return t, k, lane


def philox_block(seed, offset, subsequence, block):
    """The 4 words curand4 returns at call `block` of a thread initialized with
    curand_init(seed, subsequence, offset), offset a multiple of 4."""
    state = ps.curand_init_state(seed, subsequence, offset)
    return ps.block(state, block)


# ---------------------------------------------------------------- transforms --
def _update_from(frm, dtype):
    """update_from<scalar_t> (ATen/native/DistributionTemplates.h:43-58)."""
    from_plus_1 = _trunc_int(_cast_int_to_float(frm + 1, dtype), dtype)
    if from_plus_1 < frm:
        f = abs(frm + 1)
        n = f.bit_length() - 1 if f else 0
        frm = from_plus_1 + (1 << (n - DIGITS[dtype] + 1))
    return frm


def _update_to(to, dtype):
    """update_to<scalar_t> (ATen/native/DistributionTemplates.h:60-75)."""
    to_minus_1 = _trunc_int(_cast_int_to_float(to - 1, dtype), dtype)
    if to_minus_1 >= to:
        f = abs(to - 1)
        n = f.bit_length() - 1 if f else 0
        to = to_minus_1 - (1 << (n - DIGITS[dtype] + 1))
    return to


def _cast_int_to_float(v, dtype):
    """static_cast<T>(int64): float/double one rounding; Half/BFloat16 through float."""
    return dist._int_out(v, dtype)


def _trunc_int(bits, dtype):
    """static_cast<int64_t>(T value), truncation toward zero."""
    x = dist.value(bits, dtype)
    return int(x)  # int() of a Fraction truncates toward zero


def _int_to_type(v, dtype):
    """static_cast<T>(int64_t v) as a bit pattern of T."""
    if dtype in FLOATS:
        return dist._int_out(v, dtype)
    if dtype == "bool":
        return 1 if v != 0 else 0
    return v & ((1 << INT_BITS[dtype]) - 1)


def _s64(x):
    """uint64 -> int64 (two's complement)."""
    x &= MASK64
    return x - (1 << 64) if x >> 63 else x


def _lane_words(blk, u, lane):
    return [blk[lane]] if u == 4 else [blk[2 * lane], blk[2 * lane + 1]]


def _uniform_int(val, dtype):
    """transformation::uniform_int (core/TransformationHelper.h:59-82), then the cast."""
    if dtype == "bool":
        return val & 1
    if dtype == "int64":
        return _int_to_type(val % (1 << 63), dtype)
    if dtype in FLOATS:
        return _int_to_type(val % ((1 << DIGITS[dtype]) + 1), dtype)
    if dtype in ("uint16", "uint32", "uint64"):
        raise ValueError(f"random_() has no CUDA kernel for {dtype}")
    bits = INT_BITS[dtype]
    mx = (1 << (bits - 1)) - 1 if dtype in SIGNED else (1 << bits) - 1
    return _int_to_type(val % (mx + 1), dtype)


def _normal_bits(blk, u, lane, dtype, mean, std):
    acc = F64 if dtype == F64 else F32
    if acc == F32:
        pair = lane // 2
        z = dist.box_muller_f_bits(blk[2 * pair], blk[2 * pair + 1])[lane % 2]
    else:
        z = dist.box_muller_d_bits(*blk)[lane]
    o = dist.fma_bits(z, dist.param_bits(std, acc), dist.param_bits(mean, acc), acc)
    return o if dtype == acc else dist.convert(o, acc, dtype)


def normal_exact(blk, lane, dtype, mean=0.0, std=1.0):
    """The exact z * std + mean (Fraction; z from mpmath at 200 bits on the exact u, v)
    of a normal element whose call returned the words blk: for tolerance checks."""
    acc = F64 if dtype == F64 else F32
    if acc == F32:
        pair = lane // 2
        z = dist.box_muller_f(blk[2 * pair], blk[2 * pair + 1])[lane % 2]
    else:
        z = dist.box_muller_d(*blk)[lane]
    return dist.mpf_to_fraction(z) * dist.value(dist.param_bits(std, acc), acc) + \
        dist.value(dist.param_bits(mean, acc), acc)


def normal_within_gpu_tolerance(got_bits, dtype, exact, mean=0.0, std=1.0):
    """Whether a GPU normal (bit pattern) is as close to the exact value as cuRAND's
    fast math allows: float path |z error| <= 4e-6 (measured 3.2e-6 over 2^24 values,
    __sincosf), double path <= 5 ulp(z) + 2^-50 (measured 2.62 ulp), both times |std|,
    plus one rounding to the output type. A wrong element order misses by O(1)."""
    d = abs(dist.value(got_bits, dtype) - exact)
    if dtype == F64:
        z = (exact - dist.value(dist.param_bits(mean, F64), F64)) / dist.value(dist.param_bits(std, F64), F64)
        ez = 5 * dist.ulp(z, F64) + Fraction(1, 2**50)
    else:
        ez = Fraction(4, 10**6)
    return d <= ez * abs(Fraction(std)) + dist.ulp(exact, dtype), d


@functools.lru_cache(maxsize=256)  # the same for every element of a call
def _dropout_consts(p, acc):
    """(pa, scale) of fused_dropout for p: p1m = 1. - p (double); pa = accscalar_t(p1m);
    scale = accscalar_t(1.0 / pa) (division in double)."""
    p1m = dist.rnd(1 - Fraction(p), F64)
    pa = dist.rnd(p1m, acc)
    return pa, dist.rnd(dist.rnd(1 / pa, F64), acc)


def _dropout_value(word, dtype, p, src_value):
    """(output bits, mask) of fused_dropout_kernel(_vec) for one element.
    p1m = 1. - p (double); pa = accscalar_t(p1m); mask = curand_uniform4 lane < pa;
    scale = accscalar_t(1.0 / pa) (division in double); out = src * float(mask) * scale."""
    acc = F64 if dtype == F64 else F32
    pa, scale = _dropout_consts(p, acc)
    m = 1 if dist.value(dist.u32(word), F32) < pa else 0
    x_bits = dist.round_bits(Fraction(src_value), dtype,
                             negative_zero=isinstance(src_value, float) and str(src_value).startswith("-"))
    x = dist.value(x_bits, dtype)
    neg = dist.is_negative(x_bits, dtype)
    if m == 0 or x == 0:
        # src * 0.0 * scale (or a zero src): a zero with src's sign (finite src)
        zero = dist.round_bits(0, dtype, negative_zero=neg)
        return zero, m
    if dtype in (F16, BF16):
        return dist.round_bits(dist.rnd(x * scale, F32), dtype), m   # float math, stored to half
    return dist.round_bits(x * scale, dtype), m


def _transform(kind, dtype, blk, u, lane, params):
    if kind == "uniform":
        ws = _lane_words(blk, u, lane)
        return dist.fill_words(ws, "uniform", (params.get("low", 0.0), params.get("high", 1.0)), dtype)[0][0]
    if kind == "normal":
        return _normal_bits(blk, u, lane, dtype, params.get("mean", 0.0), params.get("std", 1.0))
    if kind == "bernoulli":
        ws = _lane_words(blk, u, lane)
        p = params["p"]
        if dtype == F64:
            hit = dist.value(dist.u53(ws[0], ws[1]), F64) < dist.rnd(Fraction(p), F64)
        else:
            hit = dist.value(dist.u32(ws[0]), F32) < dist.rnd(Fraction(p), F32)
        one = {F32: 0x3F800000, F64: 0x3FF0000000000000, F16: 0x3C00, BF16: 0x3F80}.get(dtype, 1)
        return one if hit else 0
    ws = _lane_words(blk, u, lane)
    val = ws[0] if u == 4 else (ws[0] << 32) | ws[1]
    if kind == "random_from_to":
        base, r = _int_range(kind, dtype, params)
        if r is None:
            return _int_to_type(_s64(val), dtype)
        return _int_to_type(_s64((val % r) + (base & MASK64)), dtype)
    if kind == "random":
        return _uniform_int(val, dtype)
    if kind == "random_full64":
        if dtype not in ("int64", F64, F32, BF16):
            raise ValueError("random_full_64_bits_range handles only int64, double, float and bfloat16")
        return _int_to_type(_s64(val), dtype)
    raise ValueError(kind)


# ------------------------------------------------------------------- public --
def elements(kind, dtype, numel, seed, offset, sm_count, threads_per_sm, indices=None, **params):
    """(values, new_offset) of one PyTorch CUDA call on a generator (seed, offset) that
    fills a contiguous tensor of numel elements of dtype. indices: the elements to
    compute (default all). new_offset = offset + offset_increment(...)."""
    kind = canonical(kind)
    if offset % 4:
        raise ValueError("PyTorch keeps the philox offset a multiple of 4")
    if numel == 0:
        return [], offset
    check_32bit_indexing(kind, dtype, numel)
    if kind == "random_full64":
        params = dict(params, low=-(1 << 63), high=None)
    if kind == "random_from_to":
        _int_range(kind, dtype, params)  # validates
    u = unroll(kind, dtype, **params)
    if indices is None:
        indices = range(numel)
    src = params.get("src")
    cache = {}
    out = []
    geometry = None  # word_address's per-call part, computed once (after the first range check)
    for e in indices:
        if not 0 <= e < numel:
            raise IndexError(e)
        if geometry is None:
            geometry = _geometry(kind, numel, sm_count, threads_per_sm, dtype, params)
        t, b, lane = _address(geometry, e)
        key = (t, b)
        if key not in cache:
            if len(cache) > 4096:
                cache.clear()
            cache[key] = philox_block(seed, offset, t, b)
        blk = cache[key]
        if kind == "dropout":
            x = src(e) if callable(src) else src[e]
            out.append(_dropout_value(blk[lane], dtype, params["p"], x))
        else:
            out.append(_transform(kind, dtype, blk, u, lane, params))
    return out, offset + offset_increment(kind, dtype, numel, sm_count, threads_per_sm, **params)


def thread_elements(kind, dtype, numel, t, sm_count, threads_per_sm, **params):
    """The elements thread t writes, in the order it produces them (call, lane)."""
    kind = canonical(kind)
    _, g = launch(numel, sm_count, threads_per_sm)
    if t >= g:
        return []
    res = []
    if kind == "dropout" and dropout_vec(dtype, numel, **params) > 1:
        v = dropout_vec(dtype, numel, **params)
        li = t * v
        while li < numel:
            res.extend(range(li, li + v))
            li += g * v
        return res
    u = DROPOUT_UNROLL if kind == "dropout" else unroll(kind, dtype, **params)
    rounded = ((numel - 1) // (g * u) + 1) * g * u
    li = t
    while li < rounded:
        for ii in range(u):
            e = li + g * ii
            if e < numel:
                res.append(e)
        li += g * u
    return res
