"""Reference model of SPEC.md section 8 (profile `cuda`), exact, in pure Python.

Every floating-point step is done on exact rationals (fractions.Fraction) and
rounded once by this module's own round-to-nearest-even (`round_bits`), with
subnormals, overflow to infinity and ties handled as IEEE-754 says. `fma(a, b, c)`
is the exact a * b + c rounded once. Values are passed around as bit patterns
(ints of the format's width).

Normals: the Box-Muller formula is evaluated with mpmath at high precision (200
bits) on the exact float `u` and `v`: `box_muller_f` / `box_muller_d` return those
high-precision values ("the formula evaluated exactly"), and the output bits of a
normal fill are that value rounded once to float / double (then through the fma with
std and mean). A real implementation (cuRAND's, randtensor's) is not bit-exact with
this; `ulp_diff` and `within_normal_tolerance` measure how close it is.

Where PyTorch's CUDA code differs from the letter of SPEC.md section 8, `variant`
chooses: "pytorch" (default: what torch 2.11 computes, proven on an H100 by
gpu/compare.py) or "spec" (SPEC.md's text as written). See README.md.
"""
import functools
import operator
from fractions import Fraction

import mpmath

# name: (precision p incl. hidden bit, emin, emax, width)
FORMATS = {
    "float64": (53, -1022, 1023, 64),
    "float32": (24, -126, 127, 32),
    "float16": (11, -14, 15, 16),
    "bfloat16": (8, -126, 127, 16),
}
F32, F64, F16, BF16 = "float32", "float64", "float16", "bfloat16"
FLOAT_TYPES = (F32, F16, BF16, F64)
INT_WIDTH = {"uint8": 8, "bool": 8, "int32": 32, "uint32": 32, "int64": 64}

P32 = Fraction(1, 2**32)
P53 = Fraction(1, 2**53)
MP_PREC = 200


class Inf(Exception):
    pass


# ------------------------------------------------------------------ rounding --
# Everything here is exact integer arithmetic on numerators, denominators and
# powers of two: Fraction arithmetic was most of the model's running time.

# per format: significand field shift, exponent mask, significand mask, exponent of a
# subnormal's last bit, bias to that exponent from the exponent field, sign bit
_LAYOUT = {f: (p - 1, (1 << (w - p)) - 1, (1 << (p - 1)) - 1, emin - p + 1, -emax - p + 1, w - 1)
           for f, (p, emin, emax, w) in FORMATS.items()}


def _floor_log2(a):
    """floor(log2(a)) for a positive Fraction."""
    num, den = a.numerator, a.denominator
    e = num.bit_length() - den.bit_length()
    if (den << e > num) if e >= 0 else (den > num << -e):
        e -= 1
    return e


def _pow2(e):
    """2^e as a Fraction (e any int)."""
    return Fraction(1 << e) if e >= 0 else Fraction(1, 1 << -e)


def _encode(n, q, top, fmt):
    """Bits of top | n * 2^q, n the rounded significand at quantum 2^q (q >= emin - p + 1)."""
    p, _, emax, width = FORMATS[fmt]
    if n == 0:
        return top
    if n >> p:  # carried into the next binade (n == 2^p, even)
        n >>= 1
        q += 1
    if not n >> (p - 1):  # subnormal
        return top | n
    big_e = q + p - 1
    if big_e > emax:
        return top | (((1 << (width - p)) - 1) << (p - 1))  # infinity
    return top | ((big_e + emax) << (p - 1)) | (n - (1 << (p - 1)))


def _round_ratio(num, den, top, fmt):
    """Bits of num / den (integers, num >= 0, den > 0) rounded to nearest even, sign bit top."""
    if num == 0:
        return top
    p, emin = FORMATS[fmt][:2]
    e = num.bit_length() - den.bit_length()  # floor(log2(num / den)) is e or e - 1
    if (den << e > num) if e >= 0 else (den > num << -e):
        e -= 1
    q = (e if e > emin else emin) - (p - 1)  # quantum 2^q
    if q >= 0:
        den <<= q
    else:
        num <<= -q
    n, r = divmod(num, den)
    r <<= 1  # compare the remainder with half a quantum
    if r > den or (r == den and n & 1):
        n += 1
    return _encode(n, q, top, fmt)


def _round_m2k(m, k, top, fmt):
    """Bits of m * 2^k (integers, m >= 0) rounded to nearest even, sign bit top."""
    if m == 0:
        return top
    p, emin = FORMATS[fmt][:2]
    e = m.bit_length() - 1 + k
    q = (e if e > emin else emin) - (p - 1)
    s = q - k  # bits below the quantum
    if s <= 0:
        return _encode(m << -s, q, top, fmt)
    n = m >> s
    r = m & ((1 << s) - 1)
    half = 1 << (s - 1)
    if r > half or (r == half and n & 1):
        n += 1
    return _encode(n, q, top, fmt)


def round_bits(x, fmt, negative_zero=False):
    """Bit pattern of the rational x rounded to nearest, ties to even, in fmt."""
    width = FORMATS[fmt][3]
    t = type(x)
    if t is int:
        num, den = x, 1
    elif t is Fraction:
        num, den = x.numerator, x.denominator
    elif t is float:  # what Fraction(x) does (OverflowError / ValueError for inf / nan)
        num, den = x.as_integer_ratio()
    else:
        x = Fraction(x)
        num, den = x.numerator, x.denominator
    sign = 1 if (num < 0 or (num == 0 and negative_zero)) else 0
    if den == 1:
        return _round_m2k(abs(num), 0, sign << (width - 1), fmt)
    return _round_ratio(abs(num), den, sign << (width - 1), fmt)


def _decode(bits, fmt):
    """(m, k) with the finite bit pattern's value m * 2^k (m a signed int); raises Inf otherwise."""
    sh, emask, mmask, k_sub, k_bias, sbit = _LAYOUT[fmt]
    if type(bits) is not int:
        bits = operator.index(bits)
    ef = (bits >> sh) & emask
    if ef == emask:
        raise Inf(f"{fmt} {bits:#x} is not finite")
    man = bits & mmask
    if ef == 0:
        k = k_sub
    else:
        man |= mmask + 1  # the hidden bit
        k = ef + k_bias
    return (-man if bits >> sbit & 1 else man), k


def value(bits, fmt):
    """The exact value (Fraction) of a finite bit pattern; raises Inf otherwise."""
    m, k = _decode(bits, fmt)
    return Fraction(m << k) if k >= 0 else Fraction(m, 1 << -k)


def is_negative(bits, fmt):
    return bool(bits >> (FORMATS[fmt][3] - 1))


def rnd(x, fmt):
    """x rounded to fmt, as an exact Fraction."""
    return value(round_bits(x, fmt), fmt)


def convert(bits, src, dst):
    """Bit pattern of the src value rounded once to dst (e.g. float32 -> float16 RNE)."""
    m, k = _decode(bits, src)
    neg = m < 0 or (m == 0 and is_negative(bits, src))
    return _round_m2k(abs(m), k, int(neg) << (FORMATS[dst][3] - 1), dst)


def fma_bits(a_bits, b_bits, c_bits, fmt):
    """IEEE fma(a, b, c) in fmt: exact a * b + c, one rounding; signed zeros as IEEE."""
    (ma, ka), (mb, kb), (mc, kc) = _decode(a_bits, fmt), _decode(b_bits, fmt), _decode(c_bits, fmt)
    mp, kp = ma * mb, ka + kb
    k = kp if kp < kc else kc  # exact = m * 2^k
    m = (mp << (kp - k)) + (mc << (kc - k))
    top = 1 << (FORMATS[fmt][3] - 1)
    if m == 0:
        prod_neg = is_negative(a_bits, fmt) != is_negative(b_bits, fmt)
        both_neg = (mp == 0 and mc == 0 and prod_neg and is_negative(c_bits, fmt))
        return top if both_neg else 0
    return _round_m2k(-m, k, top, fmt) if m < 0 else _round_m2k(m, k, 0, fmt)


def float_of_uint(x, fmt):
    """float(x) / double(x) of an unsigned integer: correctly rounded."""
    return round_bits(int(x), fmt)


def param_bits(x, fmt):
    """A parameter (Python float, int or Fraction, i.e. a double or exact) rounded to fmt."""
    neg0 = isinstance(x, float) and x == 0 and str(x).startswith("-")
    return round_bits(Fraction(x), fmt, negative_zero=neg0)


# --------------------------------------------------------------- constants ---
TWO_PI_F = round_bits(Fraction("6.2831855"), F32)          # cuRAND's 6.2831855f
P32_F = round_bits(P32, F32)                                # 2.3283064e-10f == 2^-32
P32_2PI_F = round_bits(value(P32_F, F32) * value(TWO_PI_F, F32), F32)  # exact
assert value(P32_F, F32) == P32
assert value(P32_2PI_F, F32) == P32 * value(TWO_PI_F, F32)
# the other fma operands of u32 / u53 / v32 / v53, rounded once here instead of per call
_P32_HALF_F = round_bits(P32 / 2, F32)
_P32_2PI_HALF_F = round_bits(value(P32_2PI_F, F32) / 2, F32)
_P53_D, _P53_HALF_D, _P53_TWICE_D = round_bits(P53, F64), round_bits(P53 / 2, F64), round_bits(2 * P53, F64)


# ------------------------------------------------------- base conversions ----
def u32(x):
    """fma(float(x), P32, P32 / 2) in float: bit pattern of a float in (0, 1]."""
    return fma_bits(float_of_uint(x, F32), P32_F, _P32_HALF_F, F32)


def _z53(a, b):
    return (int(a) ^ (int(b) << 21)) & ((1 << 64) - 1)


def u53(a, b):
    """fma(double(a ^ (b << 21)), P53, P53 / 2) in double: bit pattern in (0, 1]."""
    return fma_bits(float_of_uint(_z53(a, b), F64), _P53_D, _P53_HALF_D, F64)


def v32(y):
    """Box-Muller angle, float: fma(float(y), P32_2PI, P32_2PI / 2)."""
    return fma_bits(float_of_uint(y, F32), P32_2PI_F, _P32_2PI_HALF_F, F32)


def v53(c, d):
    """Box-Muller angle / pi, double: fma(double(c ^ (d << 21)), 2 * P53, P53)."""
    return fma_bits(float_of_uint(_z53(c, d), F64), _P53_TWICE_D, _P53_D, F64)


def _mpf(fr):
    return mpmath.mpf(fr.numerator) / fr.denominator


def mpf_to_fraction(x):
    """The exact value of an mpmath mpf (all of its bits, whatever the working precision)."""
    if isinstance(x, Fraction):
        return x
    if not isinstance(x, mpmath.mpf):
        return Fraction(x)
    sign, man, exp, _ = x._mpf_
    if not man:
        if exp:  # inf / nan
            raise Inf(str(x))
        return Fraction(0)
    m = -int(man) if sign else int(man)
    return Fraction(m << exp) if exp >= 0 else Fraction(m, 1 << -exp)


def box_muller_f(x, y):
    """(s * sin(v), s * cos(v)) as mpmath values at 200 bits, with u = u32(x),
    v = v32(y), s = sqrt(-2 log u): the float Box-Muller evaluated exactly."""
    return _box_muller_f(int(x), int(y))


def box_muller_d(a, b, c, d):
    """(s * sin(pi v), s * cos(pi v)) at 200 bits with u = u53(a, b), v = v53(c, d)."""
    return _box_muller_d(int(a), int(b), int(c), int(d))


# Cached: a pure function of the words, and callers often need both a pair's exact
# value and its rounding.
@functools.lru_cache(maxsize=1024)
def _box_muller_f(x, y):
    u, v = value(u32(x), F32), value(v32(y), F32)
    with mpmath.workprec(MP_PREC):
        s = mpmath.sqrt(-2 * mpmath.log(_mpf(u)))
        vv = _mpf(v)
        return (s * mpmath.sin(vv), s * mpmath.cos(vv))


@functools.lru_cache(maxsize=1024)
def _box_muller_d(a, b, c, d):
    u, v = value(u53(a, b), F64), value(v53(c, d), F64)
    with mpmath.workprec(MP_PREC):
        s = mpmath.sqrt(-2 * mpmath.log(_mpf(u)))
        vv = _mpf(v)
        return (s * mpmath.sinpi(vv), s * mpmath.cospi(vv))


def _zero_sign_f(x, y, lane):
    """Sign of the zero when s == 0 (u == 1): the sign of sin(v) / cos(v)."""
    v = value(v32(y), F32)
    with mpmath.workprec(MP_PREC):
        t = mpmath.sin(_mpf(v)) if lane == 0 else mpmath.cos(_mpf(v))
    return t < 0


def round_mpf(x, fmt, negative_zero=False):
    """Bit pattern of a high-precision mpmath value rounded to fmt."""
    if isinstance(x, mpmath.mpf):
        sign, man, exp, _ = x._mpf_
        if man:  # nonzero finite: man * 2^exp, rounded from the integers
            return _round_m2k(int(man), exp, sign << (FORMATS[fmt][3] - 1), fmt)
    return round_bits(mpf_to_fraction(x), fmt, negative_zero=negative_zero)


def box_muller_f_bits(x, y):
    """The exact float Box-Muller pair, each rounded once to float."""
    zs = box_muller_f(x, y)
    return tuple(round_mpf(z, F32, negative_zero=(z == 0 and _zero_sign_f(x, y, i))) for i, z in enumerate(zs))


def box_muller_d_bits(a, b, c, d):
    zs = box_muller_d(a, b, c, d)
    out = []
    for i, z in enumerate(zs):
        neg0 = False
        if z == 0:
            v = value(v53(c, d), F64)
            with mpmath.workprec(MP_PREC):
                t = mpmath.sinpi(_mpf(v)) if i == 0 else mpmath.cospi(_mpf(v))
            neg0 = t < 0
        out.append(round_mpf(z, F64, negative_zero=neg0))
    return tuple(out)


# --------------------------------------------------------- ulp measurement ---
def ulp(x, fmt):
    """ulp of fmt at the magnitude of x (an mpf or Fraction): 2^(max(e, emin) - p + 1)."""
    p, emin, _, _ = FORMATS[fmt]
    fr = mpf_to_fraction(x)
    e = emin if fr == 0 else max(_floor_log2(abs(fr)), emin)
    return _pow2(e - p + 1)


def ulp_diff(got, exact, fmt):
    """|got - exact| in ulps of fmt at exact; got a Python float (or Fraction), exact an mpf."""
    ex = mpf_to_fraction(exact)
    return float(abs(Fraction(got) - ex) / ulp(ex, fmt))


def abs_diff(got, exact):
    return abs(Fraction(got) - mpf_to_fraction(exact))


def within_normal_tolerance(got, exact, fmt):
    """SPEC.md section 8's promise: float32 within 2 ulp or 2^-22, float64 within 4 ulp or 2^-50."""
    ulps, absolute = (2, Fraction(1, 2**22)) if fmt == F32 else (4, Fraction(1, 2**50))
    return ulp_diff(got, exact, fmt) <= ulps or abs_diff(got, exact) <= absolute


# ------------------------------------------------------------ distributions ---
def word_count(dist, dtype, params=(), variant="pytorch"):
    if dist == "bits":
        return 1
    if dist in ("uniform", "normal", "bernoulli") + TRANSFORMS:
        return 2 if dtype == F64 else 1
    if dist == "integers":
        return 2 if wide_integers(params[0], params[1], variant) else 1
    raise ValueError(dist)


def wide_integers(low, high, variant="pytorch"):
    """Whether integers(low, high) takes the two-word (64-bit) path. torch 2.11
    (aten/src/ATen/native/cuda/DistributionTemplates.h random_from_to_kernel, non-FBCODE
    branch): range >= 2^28, for every dtype. SPEC.md's text: range >= 2^32."""
    r = high - low
    return r >= (2**28 if variant == "pytorch" else 2**32)


def _one_bits(dtype):
    return {F32: 0x3F800000, F64: 0x3FF0000000000000, F16: 0x3C00, BF16: 0x3F80}.get(dtype, 1)


def _int_out(v, dtype):
    """static_cast<T>(int64 v) as a bit pattern of the output type."""
    if dtype in (F32, F64):
        return round_bits(Fraction(v), dtype)
    if dtype in (F16, BF16):  # c10::Half / BFloat16 from an integer: via float, two roundings
        return round_bits(rnd(Fraction(v), F32), dtype)
    return v & ((1 << INT_WIDTH[dtype]) - 1)


@functools.lru_cache(maxsize=256)  # the same for every element of a fill
def _uniform_bounds(low, high, dtype, variant, acc):
    """(lo_t bits, lo_a, hi_a, range_a) of _uniform_one: the bounds as the kernel casts them."""
    if dtype in (F16, BF16) and variant == "pytorch":
        # scalar_t from = static_cast<Half>(double) (through float), range = float(to - from)
        # where Half - Half is computed in float and rounded to Half.
        lo_t = round_bits(rnd(Fraction(low), F32), dtype)
        hi_t = round_bits(rnd(Fraction(high), F32), dtype)
        lo_a, hi_a = value(lo_t, dtype), value(hi_t, dtype)
        range_a = rnd(rnd(hi_a - lo_a, F32), dtype)
    else:
        lo_a, hi_a = rnd(Fraction(low), acc), rnd(Fraction(high), acc)
        range_a = rnd(hi_a - lo_a, acc)
        lo_t = round_bits(lo_a, dtype)
    return lo_t, lo_a, hi_a, range_a


def _uniform_one(words, low, high, dtype, variant, fused, flip=True):
    if dtype == F64:
        u, acc = u53(words[0], words[1]), F64
    else:
        u, acc = u32(words[0]), F32
    lo_t, lo_a, hi_a, range_a = _uniform_bounds(low, high, dtype, variant, acc)
    uval = value(u, acc)
    t = rnd(uval * range_a + lo_a, acc) if fused else rnd(rnd(uval * range_a, acc) + lo_a, acc)
    t_bits = round_bits(t, dtype)
    if not flip:
        return t_bits
    if dtype in (F16, BF16) and variant == "pytorch":
        return lo_t if value(t_bits, dtype) == hi_a else t_bits
    if dtype in (F16, BF16):  # SPEC text: t rounded to the output type, compared with H (a float)
        return round_bits(lo_a, dtype) if value(t_bits, dtype) == hi_a else t_bits
    return round_bits(lo_a, dtype) if t == hi_a else t_bits


def uniform_flip_interval(low, high, dtype):
    """The words x whose one-word uniform element is H (and flips to L), as
    (first, end): the element before the flip never decreases as x grows, so
    they are consecutive; found by bisection on this model's own values."""
    if dtype in (F16, BF16):
        h = value(round_bits(rnd(Fraction(high), F32), dtype), dtype)
    else:
        h = rnd(Fraction(high), F32)

    def elem(x):
        return value(_uniform_one([x], low, high, dtype, "pytorch", True, False), dtype)

    def first(past):
        lo, hi = 0, 1 << 32
        while lo < hi:
            mid = (lo + hi) // 2
            if past(elem(mid)):
                hi = mid
            else:
                lo = mid + 1
        return lo
    return first(lambda v: v >= h), first(lambda v: v > h)


def normal_detail(state, k, n, mean, std, dtype):
    """For normal(mean, std): per element (z_exact mpf, z bits rounded, output bits)."""
    from philox_stream import stream_words
    acc = F64 if dtype == F64 else F32
    mean_b, std_b = param_bits(mean, acc), param_bits(std, acc)
    out = []
    cache = {}
    for i in range(k, k + n):
        p = i // 2
        if p not in cache:
            if acc == F32:
                x, y = stream_words(state, 2 * p, 2)
                zs = box_muller_f(x, y)
                zb = box_muller_f_bits(x, y)
            else:
                ws = stream_words(state, 4 * p, 4)
                zs = box_muller_d(*ws)
                zb = box_muller_d_bits(*ws)
            cache = {p: (zs, zb)}
        zs, zb = cache[p]
        z_exact, z_bits = zs[i % 2], zb[i % 2]
        o = fma_bits(z_bits, std_b, mean_b, acc)
        if dtype != acc:
            o = convert(o, acc, dtype)
        out.append((z_exact, z_bits, o))
    return out


def fill(state, k, n, dist, params, dtype, variant="pytorch", fused=True):
    """Elements k .. k+n-1 of a fill: (list of output bit patterns, output state).

    dist: "bits" (dtype uint32), "uniform" (low, high), "normal" (mean, std),
    "bernoulli" (p,), "integers" (low, high), "exponential" (lambda,), "cauchy"
    (median, sigma), "log_normal" (mean, std), "geometric" (p,). The output state is
    C + ceil((k + n) * w / 4) (SPEC.md section 8)."""
    from philox_stream import advance, stream_words
    w = word_count(dist, dtype, params, variant)
    end_blocks = -(-((k + n) * w) // 4)
    out_state = advance(state, end_blocks)
    if dist == "normal":
        return [d[2] for d in normal_detail(state, k, n, params[0], params[1], dtype)], out_state
    if dist == "log_normal":
        return [t[1] for t in log_normal_detail(state, k, n, params[0], params[1], dtype)], out_state
    words = stream_words(state, w * k, w * n)
    return fill_words(words, dist, params, dtype, variant, fused)[0], out_state


def fill_words(words, dist, params, dtype, variant="pytorch", fused=True):
    """The elements that the given stream words become (w words each), as in
    fill(); for edge words no seed reaches on purpose. Returns (values, w)."""
    w = word_count(dist, dtype, params, variant)
    n = len(words) // w
    vals = []
    for e in range(n):
        ws = words[w * e:w * e + w]
        if dist == "bits":
            vals.append(ws[0])
        elif dist == "uniform":
            vals.append(_uniform_one(ws, params[0], params[1], dtype, variant, fused))
        elif dist == "bernoulli":
            p = params[0]
            if dtype == F64:
                hit = value(u53(ws[0], ws[1]), F64) < rnd(Fraction(p), F64)
            else:
                hit = value(u32(ws[0]), F32) < rnd(Fraction(p), F32)
            vals.append(_one_bits(dtype) if hit else 0)
        elif dist == "integers":
            low, high = params
            r = high - low
            x = ((ws[0] << 32) | ws[1]) if w == 2 else ws[0]
            vals.append(_int_out(low + x % r, dtype))
        elif dist in ("exponential", "cauchy", "geometric"):
            vals.append(transform(dist, ws, params, dtype)[1])
        else:
            raise ValueError(dist)
    return vals, w


# ------------------------------------- exponential, Cauchy, log-normal, geometric ---
# docs/SPEC.md section 8.1: PyTorch CUDA's transforms (ATen/core/TransformationHelper.h,
# the CUDA branch, torch 2.11) of u in the accumulation type (float for float32, float16,
# bfloat16 and the integer types, double for float64). The IEEE steps on u (the clip, t,
# a, q) are rounded as PyTorch rounds them; log, tan, exp, the division and m + s tan a
# are exact (mpmath at MP_PREC bits); the result is rounded once to the output type.
TRANSFORMS = ("exponential", "cauchy", "log_normal", "geometric")
INT_TYPES = ("uint8", "int32", "int64")


def _acc(dtype):
    return F64 if dtype == F64 else F32


def pi_of(fmt):
    """c10::pi<T>: pi rounded to float or double."""
    with mpmath.workprec(MP_PREC):
        return rnd(mpf_to_fraction(+mpmath.pi), fmt)


def unit(words, acc):
    """cuRAND's u in (0, 1]: u32 of one word (float) or u53 of two (double), exact."""
    return value(u32(words[0]), F32) if acc == F32 else value(u53(words[0], words[1]), F64)


def geometric_q(p, acc):
    """q = 1 - p in the accumulation type, p cast to it first (PyTorch's log(1 - p)).
    q may round to 0 (log q = -inf: every value a zero, IEEE); SPEC.md 8.1 refuses a
    q that rounds to 1 (log q = 0: -inf and NaN): ValueError."""
    q = rnd(1 - rnd(Fraction(p), acc), acc)
    if q == 1:
        raise ValueError(f"geometric p = {p!r}: q = 1 - p rounds to 1 in {acc}")
    return q


def geometric_ceiling(u, q):
    """ceil(log u / log q) exactly: mpmath's ratio, except where it is within 2^-150 of
    an integer k, where u == q^k (exact rationals) decides."""
    if u == 1:
        return 0
    with mpmath.workprec(MP_PREC):
        r = mpmath.log(_mpf(u)) / mpmath.log(_mpf(q))
        k = int(mpmath.nint(r))
        if abs(r - k) < mpmath.mpf(2) ** -150:
            if u == q ** k:
                return k
            return k + 1 if r > k else k
        return int(mpmath.ceil(r))


def _out_bits(exact, dtype):
    """The exact value (mpf or Fraction) rounded once to the output type."""
    fr = mpf_to_fraction(exact)
    return round_bits(fr, dtype, negative_zero=False)


def transform(dist, words, params, dtype):
    """(exact value as an mpf or int, output bits) of one exponential, Cauchy or
    geometric element from its stream words (1 word, 2 for float64)."""
    acc = _acc(dtype)
    u = unit(words, acc)
    if dist == "exponential":
        half_eps = Fraction(1, 2**24) if acc == F32 else Fraction(1, 2**53)
        lam = rnd(Fraction(params[0]), acc)
        with mpmath.workprec(MP_PREC):
            log = -_mpf(half_eps) if u >= 1 - half_eps else mpmath.log(_mpf(u))
            exact = -log / _mpf(lam)
        return exact, _out_bits(exact, dtype)
    if dist == "cauchy":
        m, s = rnd(Fraction(params[0]), acc), rnd(Fraction(params[1]), acc)
        if acc == F32:  # torch 2.11 clips float u to [eps, 1 - eps] (eps = 2^-23)
            eps = Fraction(1, 2**23)
            u = min(max(u, eps), 1 - eps)
        t = rnd(u - Fraction(1, 2), acc)
        a = rnd(pi_of(acc) * t, acc)
        with mpmath.workprec(MP_PREC):
            exact = _mpf(m) + _mpf(s) * mpmath.tan(_mpf(a))
        return exact, _out_bits(exact, dtype)
    if dist == "geometric":
        q = geometric_q(params[0], acc)
        if q == 0:  # log u / -inf: +0, or -0 where u = 1 (log u = +0)
            return 0, (0 if dtype in INT_TYPES else round_bits(0, dtype, negative_zero=(u == 1)))
        k = geometric_ceiling(u, q)
        # PyTorch's transform returns ceil in the accumulation type, rounded to it
        # (exact below 2^24 in float), then cast to the output type.
        ka = rnd(Fraction(k), acc)
        if dtype in INT_TYPES:
            return k, int(ka) & ((1 << INT_WIDTH[dtype]) - 1)
        # u = 1: log(u) = +0 over log(q) < 0 is -0, and ceil keeps it (IEEE).
        return k, round_bits(ka, dtype, negative_zero=(u == 1))
    raise ValueError(dist)


def geometric_fits(p, dtype):
    """Whether every geometric(p) value fits an integer output type: the largest comes
    from the smallest u, u32(0) = 2^-33 (as a float: the transform's own type)."""
    if dtype not in INT_TYPES:
        return True
    top = {"uint8": 255, "int32": 2**31 - 1, "int64": 2**63 - 1}[dtype]
    q = geometric_q(p, F32)
    if q == 0:
        return True
    return rnd(Fraction(geometric_ceiling(value(u32(0), F32), q)), F32) <= top


def log_normal_detail(state, k, n, mean, std, dtype):
    """For log_normal(mean, std): per element (x bits in the accumulation type: the
    reference normal(mean, std) before rounding to the output type, output bits of
    exp(x) rounded once)."""
    acc = _acc(dtype)
    out = []
    for _, _, x in normal_detail(state, k, n, mean, std, acc):
        with mpmath.workprec(MP_PREC):
            e = mpmath.exp(_mpf(value(x, acc)))
        out.append((x, _out_bits(e, dtype)))
    return out


def to_float(bits, fmt):
    """A Python float of a bit pattern (exact for every format here)."""
    return float(value(bits, fmt))
