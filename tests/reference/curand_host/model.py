"""Which Philox4x32-10 words cuRAND's HOST API generator CURAND_RNG_PSEUDO_PHILOX4_32_10
puts in each output element (default ordering; measured on an H100 with CUDA 13.0 /
cuRAND 10.4.0, see ORDERING.md and check_curand_host.py). NumPy + the pure-Python
references of this directory's parent (philox_stream.py, distributions.py).

Generator state: the seed, the position P (outputs, as set by curandSetGeneratorOffset)
and a block skew S (0 after curandSetGeneratorOffset; grows only when a call whose
outputs take two words crosses a round boundary, see `advance`).

A call of n outputs at (P, S), W words per output (1: curandGenerate, Uniform, Normal,
LogNormal; 2: UniformDouble, NormalDouble, LogNormalDouble), T = 65536 threads:

    e = P + i                  (global position of output i)
    q = e // 4, sub = e % 4    t = q % T  (subsequence), r = q // T  (round)
    r_first = P // 4 // T  if t >= (P // 4) % T  else  P // 4 // T + 1
    block  = S + r_first + W * (r - r_first) + (sub * W) // 4
    lane   = (sub * W) % 4

Output i is made from Philox block `block` of subsequence t (counter
(block lo, block hi, t lo, t hi), key (seed lo, seed hi)): SPEC.md section 7's
curand_init(seed, t, 4 * block). Values (SPEC.md section 8, distributions.py):

    bits      word[lane]
    unif      u32(word[lane])
    unifd     u53(word[lane], word[lane + 1])             (lane is 0 or 2)
    norm      Box-Muller float of (word[p], word[p + 1]), p = lane & 2: sin if lane is
              even, cos if odd (= curand_normal4's lane `lane`), then fma(z, std, mean)
    normd     double Box-Muller of all four words (= curand_normal2_double):
              lane 0 -> first (sin) output, lane 2 -> second (cos); then z * std + mean
    lognorm*  exp of the normal

After the call: P += n; S += (W - 1) * ((P + n) // 4 // T - P // 4 // T).
"""
import hashlib
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

T = 65536  # threads (subsequences) of the host kernel, whatever n (measured)
WORDS = {"bits": 1, "unif": 1, "norm": 1, "lognorm": 1, "unifd": 2, "normd": 2, "lognormd": 2}
DTYPE = {"bits": "<u4", "unif": "<f4", "norm": "<f4", "lognorm": "<f4",
         "unifd": "<f8", "normd": "<f8", "lognormd": "<f8"}
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_MASK = 0xFFFFFFFF


# ------------------------------------------------------------------ Philox ---
def philox_blocks(seed, subsequence, block, chunk=1 << 16):
    """Philox4x32-10 of counter (block lo, block hi, subsequence lo, subsequence hi) and
    key (seed lo, seed hi), for arrays subsequence, block (uint64): shape (N, 4) uint32."""
    s = np.asarray(subsequence, dtype=np.uint64)
    b = np.asarray(block, dtype=np.uint64)
    s, b = np.broadcast_arrays(s, b)
    shape = s.shape
    s, b = s.ravel(), b.ravel()
    out = np.empty((s.size, 4), dtype=np.uint32)
    mask, sh = np.uint64(_MASK), np.uint64(32)
    # The words live in uint64 arrays (32-bit products fit: no casts in the rounds),
    # updated in place, a cache-sized chunk at a time.
    bufs = [np.empty(min(chunk, s.size), dtype=np.uint64) for _ in range(6)]
    for lo in range(0, s.size, chunk):
        hi = min(lo + chunk, s.size)
        x0, x1, x2, x3, p0, p1 = (a[:hi - lo] for a in bufs)
        np.bitwise_and(b[lo:hi], mask, out=x0)
        np.right_shift(b[lo:hi], sh, out=x1)
        np.bitwise_and(s[lo:hi], mask, out=x2)
        np.right_shift(s[lo:hi], sh, out=x3)
        k0, k1 = seed & _MASK, (seed >> 32) & _MASK
        for _ in range(10):
            np.multiply(x0, _M0, out=p0)
            np.multiply(x2, _M1, out=p1)
            # x0, x1, x2, x3 = hi(p1) ^ x1 ^ k0, lo(p1), hi(p0) ^ x3 ^ k1, lo(p0)
            np.right_shift(p1, sh, out=x0)
            x0 ^= x1
            x0 ^= np.uint64(k0)
            np.bitwise_and(p1, mask, out=x1)
            np.right_shift(p0, sh, out=x2)
            x2 ^= x3
            x2 ^= np.uint64(k1)
            np.bitwise_and(p0, mask, out=x3)
            k0 = (k0 + 0x9E3779B9) & _MASK
            k1 = (k1 + 0xBB67AE85) & _MASK
        for i, x in enumerate((x0, x1, x2, x3)):
            out[lo:hi, i] = x
    return out.reshape(shape + (4,))


# ------------------------------------------------------------------ order ---
def positions(P, S, n, W, start=0, threads=T, idx=None):
    """(subsequence, block, lane) of outputs start .. start+n-1 (or of the outputs idx)
    of a call at (P, S)."""
    if idx is None:
        idx = np.arange(start, start + n, dtype=np.uint64)
    e = np.asarray(idx, dtype=np.uint64) + np.uint64(P)
    q = e >> np.uint64(2)
    sub = e & np.uint64(3)
    if threads > 0 and threads & (threads - 1) == 0:  # a power of two: mask and shift (faster)
        t = q & np.uint64(threads - 1)
        r = q >> np.uint64(int(threads).bit_length() - 1)
    else:
        t = q % np.uint64(threads)
        r = q // np.uint64(threads)
    q0 = P // 4
    r0, t0 = q0 // threads, q0 % threads
    r_first = np.where(t >= np.uint64(t0), np.uint64(r0), np.uint64(r0 + 1))
    sw = sub * np.uint64(W)
    block = np.uint64(S) + r_first + np.uint64(W) * (r - r_first) + (sw >> np.uint64(2))
    lane = (sw & np.uint64(3)).astype(np.int64)
    return t, block, lane


def position_of(P, S, i, W, threads=T):
    """Python ints (subsequence, block, lane) of output i (scalar version of positions)."""
    e = P + i
    q, sub = e // 4, e % 4
    t, r = q % threads, q // threads
    q0 = P // 4
    r_first = q0 // threads + (0 if t >= q0 % threads else 1)
    return t, S + r_first + W * (r - r_first) + (sub * W) // 4, (sub * W) % 4


def advance(P, S, n, W, threads=T):
    """The generator's (P, S) after a call of n outputs of W words."""
    S += (W - 1) * ((P + n) // 4 // threads - P // 4 // threads)
    return P + n, S


# ----------------------------------------------------------------- values ---
def u32_np(x):
    """fma(float(x), 2^-32, 2^-33) in float32: the product is exact, so one float add."""
    return (x.astype(np.float32) * np.float32(2.0**-32) + np.float32(2.0**-33)).astype("<f4")


def u53_np(a, b):
    """fma(double(a ^ (b << 21)), 2^-53, 2^-54): z < 2^53 is exact, the product too."""
    z = a.astype(np.uint64) ^ (b.astype(np.uint64) << np.uint64(21))
    return (z.astype(np.float64) * 2.0**-53 + 2.0**-54).astype("<f8")


def _box_muller_f_np(x, y):
    """Float Box-Muller in long double (an approximation of cuRAND's float code)."""
    L = np.longdouble
    u = u32_np(x).astype(L)
    v = (y.astype(np.float32) * np.float32(2.0**-32 * 6.2831855) +
         np.float32(2.0**-33 * 6.2831855)).astype(L)
    s = np.sqrt(L(-2) * np.log(u))
    return s * np.sin(v), s * np.cos(v)


def _box_muller_d_np(a, b, c, d):
    L = np.longdouble
    u = u53_np(a, b).astype(L)
    z = (c.astype(np.uint64) ^ (d.astype(np.uint64) << np.uint64(21))).astype(np.float64)
    v = (z * 2.0**-52 + 2.0**-53).astype(L)   # v53: fma(z, 2^-52, 2^-53), exact
    s = np.sqrt(L(-2) * np.log(u))
    pi = L("3.14159265358979323846264338327950288")
    return s * np.sin(pi * v), s * np.cos(pi * v)


def _range_words(seed, P, S, W, start, count, threads, chunk=1 << 16):
    """The words of outputs start .. start+count-1, W per output, in output order (flat
    uint32): output i takes words W * i .. W * i + W - 1. Positions e with the same
    e // (4 // W) share one block (same q, hence t and r; same (sub * W) // 4) and take
    its words in order (lane = (sub * W) % 4), so each block is computed once."""
    per = 4 // W
    e0 = P + start
    g0, g1 = e0 // per, (e0 + count - 1) // per
    out = np.empty((g1 + 1 - g0, 4), dtype=np.uint32)
    for c0 in range(g0, g1 + 1, chunk):  # a cache-sized chunk of groups at a time
        c1 = min(c0 + chunk, g1 + 1)
        # one output per group (its first one in the range) locates the group's block
        rep = np.maximum(np.arange(c0, c1, dtype=np.uint64) * np.uint64(per), np.uint64(e0)) - np.uint64(P)
        t, block, _ = positions(P, S, 0, W, threads=threads, idx=rep)
        out[c0 - g0:c1 - g0] = philox_blocks(seed, t, block)
    first = W * (e0 - g0 * per)
    return out.reshape(-1)[first:first + W * count]


def generate(seed, P, S, func, n, mean=0.0, std=1.0, start=0, count=None, threads=T, idx=None):
    """Outputs start .. start+count-1 (or the outputs idx) of a call of n outputs at
    (P, S). bits, unif and unifd are exact (cuRAND's bit patterns); normals are
    long-double approximations (float64 array; exact_value_bits for the exact ones)."""
    count = (n - start if count is None else count) if idx is None else len(idx)
    W = WORDS[func]
    if count <= 0:
        return np.zeros(0, dtype=DTYPE[func] if func in ("bits", "unif", "unifd") else np.float64)
    plain = all(isinstance(x, int) for x in (P, start, count, threads))
    if func in ("bits", "unif", "unifd") and idx is None and plain and P >= 0 and start >= 0 \
            and P + start + count <= 1 << 64 and threads > 0:
        # a range (no uint64 wrap): the same words, each block computed once
        ws = _range_words(seed, P, S, W, start, count, threads)
        if func == "bits":
            return ws.astype("<u4")
        if func == "unif":
            return u32_np(ws)
        return u53_np(ws[0::2], ws[1::2])
    t, block, lane = positions(P, S, count, W, start, threads, idx)
    w = philox_blocks(seed, t, block)
    ar = np.arange(count)
    if func == "bits":
        return w[ar, lane].astype("<u4")
    if func == "unif":
        return u32_np(w[ar, lane])
    if func == "unifd":
        return u53_np(w[ar, lane], w[ar, lane + 1])
    if func in ("norm", "lognorm"):
        p = lane & 2
        z0, z1 = _box_muller_f_np(w[ar, p], w[ar, p + 1])
        z = np.where(lane % 2 == 0, z0, z1)
    else:
        z0, z1 = _box_muller_d_np(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        z = np.where(lane == 0, z0, z1)
    z = z * np.longdouble(std) + np.longdouble(mean)
    if func.startswith("log"):
        z = np.exp(z)
    return z.astype(np.float64)


def exact_value_bits(seed, P, S, func, n, i, mean=0.0, std=1.0):
    """Output i's value as a bit pattern per distributions.py (SPEC.md section 8): exact
    for bits / unif / unifd; for normals the Box-Muller evaluated exactly, rounded once,
    then fma(z, std, mean) (cuRAND's own normal is within a few ulp of this)."""
    import distributions as D
    t, block, lane = position_of(P, S, i, WORDS[func])
    w = [int(x) for x in philox_blocks(seed, [t], [block])[0]]
    if func == "bits":
        return w[lane]
    if func == "unif":
        return D.u32(w[lane])
    if func == "unifd":
        return D.u53(w[lane], w[lane + 1])
    if func == "norm":
        p = lane & 2
        z = D.box_muller_f_bits(w[p], w[p + 1])[lane % 2]
        return D.fma_bits(z, D.param_bits(std, D.F32), D.param_bits(mean, D.F32), D.F32)
    if func == "normd":
        z = D.box_muller_d_bits(*w)[lane // 2]
        return D.fma_bits(z, D.param_bits(std, D.F64), D.param_bits(mean, D.F64), D.F64)
    raise ValueError(func)


class HostPhilox:
    """The generator as a state machine: set_seed / set_offset / generate."""

    def __init__(self, seed=0):
        self.seed, self.P, self.S = seed, 0, 0

    def set_seed(self, seed):
        # Measured: setting the seed before any generation leaves the offset as set.
        # Setting it AFTER a generation was seen once to move P unexpectedly (ORDERING.md
        # section 5); not modelled.
        self.seed = seed

    def set_offset(self, offset):
        self.P, self.S = offset, 0

    def generate(self, func, n, mean=0.0, std=1.0):
        out = generate(self.seed, self.P, self.S, func, n, mean, std)
        self.P, self.S = advance(self.P, self.S, n, WORDS[func])
        return out


def sha256(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()
