"""Tests of the reference model itself, against facts that do not come from it:
SPEC.md section 6's known answers, the C++26 standard's required value, NumPy's
and struct's float16 conversions, an integer bfloat16 rounding, and values recorded
on an H100 with cuRAND's device API and PyTorch's CUDA transforms
(gpu/recorded/, written by gpu/compare.py record).

    python3 -m pytest tests/reference -q
"""
import math
import os
import random
import struct
from fractions import Fraction

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("mpmath")  # Debian: python3-mpmath

import distributions as d  # noqa: E402
import philox_stream as ps  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "gpu", "recorded")


def h(text):
    return [int(w, 16) for w in text.split()]


# ------------------------------------------------------- SPEC.md section 6 ---
RANDOM123 = [
    ("00000000 00000000 00000000 00000000", "00000000 00000000", "6627e8d5 e169c58d bc57ac4c 9b00dbd8"),
    ("ffffffff ffffffff ffffffff ffffffff", "ffffffff ffffffff", "408f276d 41c83b0e a20bc7c6 6d5451fd"),
    ("243f6a88 85a308d3 13198a2e 03707344", "a4093822 299f31d0", "d16cfe09 94fdcceb 5001e420 24126ea1"),
]
WHOLE = [
    ("0 0 0 0 0 0", 10, "6627e8d5 e169c58d bc57ac4c 9b00dbd8 f8e4cca4 5cb200db b1a574eb 097eff67 04faa329 51c732a6",
     "00000003 0 0 0 0 0"),
    ("ffffffff ffffffff ffffffff 0 deadbeef cafef00d", 9,
     "736195ed 3864aecc 1c9d2fdd b42e9d22 c2a06461 f2e1c844 176e2ad9 c1c2ec0e 81cf5829",
     "00000002 0 0 00000001 deadbeef cafef00d"),
    ("ffffffff ffffffff ffffffff ffffffff 1 2", 5, "cc4caf1a 6bc5454e 4182e819 d0af8a46 0598de3a", "00000001 0 0 0 1 2"),
]


@pytest.mark.parametrize("ctr,key,out", RANDOM123)
def test_random123_vectors(ctr, key, out):
    assert ps.philox4x32_10(h(ctr), h(key)) == h(out)


@pytest.mark.parametrize("state,n,values,out_state", WHOLE)
def test_whole_operator_cases(state, n, values, out_state):
    vals, st = ps.bits_fill(h(state), n)
    assert vals == h(values)
    assert st == h(out_state)
    # the same through the distribution layer (bits, w = 1, k = 0)
    vals2, st2 = d.fill(h(state), 0, n, "bits", (), "uint32")
    assert (vals2, st2) == (vals, st)


def test_seed_erratum_counter():
    c = 0x48656C6C6F46726F6D53656174746C65
    st = ps.make_state(c, (0, 0))
    n = 3 * 3 * 20 * 7219
    assert (n + 3) // 4 == 324855
    assert ps.counter_of(ps.advance(st, (n + 3) // 4)) == 0x48656C6C6F46726F6D5365617479615C


def test_std_philox4x32_10000th_call():
    # C++26 [rand.predef]: the 10000th invocation of a default-constructed philox4x32
    # produces 1955073260; SPEC.md section 7 maps it to element 9999 of (0,0,0,0,20111115,0).
    assert ps.word(ps.std_philox4x32_state(), 9999) == 1955073260


def test_curand_init_mapping():
    st, skip = ps.curand_init_position(0x0123456789ABCDEF, 0xFEDCBA9876543210, 4 * ((1 << 32) + 5) + 3)
    assert st == [5, 1, 0x76543210, 0xFEDCBA98, 0x89ABCDEF, 0x01234567] and skip == 3
    with pytest.raises(ValueError):
        ps.curand_init_state(1, 2, 6)


def test_stream_crosses_blocks_and_carries():
    st = [0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0, 7, 9]
    w = ps.stream_words(st, 2, 7)
    assert w == ps.block(st, 0)[2:] + ps.block(st, 1) + ps.block(st, 2)[:1]
    assert ps.block(st, 1) == ps.philox4x32_10([0, 0, 0, 1], [7, 9])


# ------------------------------------------------------------ rounding -------
def _f16_numpy(f32_bits):
    with np.errstate(over="ignore"):
        return int(np.array([f32_bits], dtype=np.uint32).view(np.float32).astype(np.float16).view(np.uint16)[0])


def _f16_struct(f32_bits):
    x = struct.unpack("<f", struct.pack("<I", f32_bits))[0]
    try:
        return struct.unpack("<H", struct.pack("<e", x))[0]
    except OverflowError:  # struct refuses values that overflow; IEEE gives infinity
        return 0xFC00 if x < 0 else 0x7C00


def _bf16_int(b):
    """float32 -> bfloat16, round to nearest even, by the usual integer trick (finite inputs)."""
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def _interesting_f32():
    rng = random.Random(7)
    out = [rng.getrandbits(32) for _ in range(20000)]
    # exact ties and neighbours for float16 (13 dropped bits) and bfloat16 (16 dropped bits)
    for e in list(range(0x67, 0x71)) + list(range(0x70, 0x90)) + [0x8E, 0x8F, 0x01, 0x00, 0xFE]:
        for m in (0, 1, 0x7FFFFF, 0x1000, 0x3000, 0x0FFF, 0x1001, 0x2FFF, 0x8000, 0x18000, 0x7FFF, 0x8001, 0x7FF000):
            for s in (0, 1):
                out.append((s << 31) | (e << 23) | m)
    for m in range(0, 1 << 14, 1 << 12):  # around the float16 subnormal threshold
        out.append((0x66 << 23) | m)
    out += [0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FF001]  # 65504 and the overflow tie (65520)
    return [b for b in out if (b >> 23) & 0xFF != 0xFF]


def test_float32_to_float16_matches_numpy_and_struct():
    for b in _interesting_f32():
        got = d.convert(b, "float32", "float16")
        assert got == _f16_numpy(b), hex(b)
        assert got == _f16_struct(b), hex(b)


def test_float32_to_bfloat16_ties_to_even():
    for b in _interesting_f32():
        if (b >> 23) & 0xFF == 0xFE and (b & 0x7FFFFF) > 0x7F7FFF:
            continue  # the integer trick's carry into the exponent of the largest binade gives inf too
        assert d.convert(b, "float32", "bfloat16") == _bf16_int(b), hex(b)
    assert d.convert(0x3F808000, "float32", "bfloat16") == 0x3F80  # tie, even stays
    assert d.convert(0x3F818000, "float32", "bfloat16") == 0x3F82  # tie, odd rounds up
    assert d.convert(0x7F7FFFFF, "float32", "bfloat16") == 0x7F80  # overflow to infinity


def test_double_to_float32_matches_numpy():
    rng = random.Random(3)
    xs = [rng.uniform(-1, 1) * 2.0 ** rng.randint(-160, 130) for _ in range(5000)]
    xs += [2.0 ** -149, 2.0 ** -150, 3 * 2.0 ** -151, 2.0 ** -150 * 1.0000001, 3.4028235677973366e38,
           3.4028235677973366e38 * (1 + 2 ** -25), 1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24]
    for x in xs:
        with np.errstate(over="ignore"):
            want = int(np.array([x]).astype(np.float32).view(np.uint32)[0])
        assert d.round_bits(Fraction(x), "float32") == want, x


def test_rational_to_double_matches_python():
    rng = random.Random(4)
    for _ in range(3000):
        q = Fraction(rng.getrandbits(90) + 1, rng.getrandbits(70) + 1) * Fraction(2) ** rng.randint(-1100, 1000)
        try:
            want = struct.unpack("<Q", struct.pack("<d", float(q)))[0]
        except OverflowError:
            want = 0x7FF0000000000000
        assert d.round_bits(q, "float64") == want


def test_fma_single_rounding():
    a = d.round_bits(1 + Fraction(1, 2**23), "float32")
    b = d.round_bits(1 - Fraction(1, 2**23), "float32")
    c = d.round_bits(-1, "float32")
    assert d.value(d.fma_bits(a, b, c, "float32"), "float32") == -Fraction(1, 2**46)  # unfused: 0
    z = d.fma_bits(d.round_bits(0, "float32", True), d.round_bits(1, "float32"), d.round_bits(0, "float32"),
                   "float32")
    assert z == 0  # -0 * 1 + 0 = +0


# ----------------------------------------------------- base conversions ------
def test_u32_edges():
    assert d.u32(0) == d.round_bits(Fraction(1, 2**33), "float32") == 0x2F000000
    ones = [x for x in range(2**32 - 1024, 2**32) if d.u32(x) == 0x3F800000]
    # 128, not SPEC.md's "129": float(2^32 - 129) = 2^32 - 256 (nearer), and
    # fma(2^32 - 256, 2^-32, 2^-33) = 1 - 2^-24 + 2^-33 rounds to 1 - 2^-24.
    assert len(ones) == 128 and ones[0] == 2**32 - 128
    assert d.u32(2**32 - 129) == 0x3F7FFFFF
    assert all(0 < d.to_float(d.u32(x), "float32") <= 1 for x in range(0, 2**32, 2**20 + 12345))


def test_u53_edges():
    assert d.value(d.u53(0, 0), "float64") == Fraction(1, 2**54)
    assert d.u53(0x1FFFFF, 0xFFFFFFFF) == 0x3FF0000000000000  # z = 2^53 - 1: tie to even -> 1.0
    # z = 2^53 - 2: (2z + 1) * 2^-54 = 1 - 3 * 2^-54 is a tie between 1 - 2^-52 and 1 - 2^-53: even wins
    assert d.value(d.u53(0x1FFFFE, 0xFFFFFFFF), "float64") == 1 - Fraction(1, 2**52)
    assert d.value(d.u53(0x1FFFFD, 0xFFFFFFFF), "float64") == 1 - Fraction(1, 2**52)


def test_box_muller_constants_and_values():
    assert d.TWO_PI_F == 0x40C90FDB and d.value(d.P32_2PI_F, "float32") == d.value(0x40C90FDB, "float32") / 2**32
    s, c = d.box_muller_f(0, 0)  # u = 2^-33, v = P32_2PI / 2
    u = 2.0 ** -33
    v = float(d.value(d.v32(0), "float32"))
    r = math.sqrt(-2 * math.log(u))
    assert abs(float(s) - r * math.sin(v)) < 1e-12 and abs(float(c) - r * math.cos(v)) < 1e-12
    # u = 1 (x >= 2^32 - 128) gives exact zeros with the sign of sin / cos
    assert d.value(d.v32(0xFFFFFFFF), "float32") == d.value(d.TWO_PI_F, "float32")  # 6.2831855 > 2 pi
    assert d.box_muller_f_bits(0xFFFFFFFF, 0xFFFFFFFF) == (0, 0)  # sin(6.2831855f) > 0, cos > 0
    assert d.box_muller_f_bits(0xFFFFFFFF, 0xC0000000)[0] == 0x80000000  # v ~ 3 pi / 2: sin < 0, -0


# ------------------------------------------------------------ distributions --
def test_output_state_rule():
    st = [5, 0, 0, 0, 1, 2]
    assert d.fill(st, 3, 6, "uniform", (0.0, 1.0), "float32")[1][0] == 5 + 3          # ceil(9/4)
    assert d.fill(st, 3, 6, "uniform", (0.0, 1.0), "float64")[1][0] == 5 + 5          # ceil(18/4)
    assert d.fill(st, 0, 3, "normal", (0.0, 1.0), "float64")[1][0] == 5 + 2           # ceil(6/4)
    assert d.fill(st, 1, 2, "integers", (0, 2**40), "int64")[1][0] == 5 + 2           # ceil(6/4)


def test_element_offset_is_a_window():
    st = [1, 2, 3, 4, 5, 6]
    for dist, params, dt in (("uniform", (-2.0, 3.0), "bfloat16"), ("bernoulli", (0.25,), "float64"),
                             ("integers", (-9, 2**33), "int64"), ("normal", (1.0, 2.0), "float32")):
        whole = d.fill(st, 0, 9, dist, params, dt)[0]
        assert d.fill(st, 3, 5, dist, params, dt)[0] == whole[3:8]


def test_bernoulli_extremes_and_types():
    st = [9, 8, 7, 6, 5, 4]
    for dt, one in (("uint8", 1), ("bool", 1), ("int32", 1), ("float32", 0x3F800000), ("float16", 0x3C00),
                    ("bfloat16", 0x3F80), ("float64", 0x3FF0000000000000)):
        assert set(d.fill(st, 0, 40, "bernoulli", (1.0,), dt)[0]) == {one}
        assert set(d.fill(st, 0, 40, "bernoulli", (0.0,), dt)[0]) == {0}


def test_uniform_stays_in_range():
    st = [3, 1, 4, 1, 5, 9]
    for dt in ("float32", "float16", "bfloat16", "float64"):
        for lo, hi in ((0.0, 1.0), (-3.7, 11.3), (0.1, 0.2)):
            for b in d.fill(st, 0, 200, "uniform", (lo, hi), dt)[0]:
                x = d.value(b, dt)
                lo_t = d.rnd(d.rnd(Fraction(lo), "float32"), dt)
                hi_t = d.rnd(d.rnd(Fraction(hi), "float32"), dt)
                assert lo_t <= x < hi_t  # [low, high) in the output type, after the flip


def test_integer_paths():
    st = [0, 0, 0, 0, 0, 0]
    w = ps.stream_words(st, 0, 8)
    assert d.fill(st, 0, 2, "integers", (0, 2**28 - 1), "int64")[0] == [w[0] % (2**28 - 1), w[1] % (2**28 - 1)]
    # torch 2.11: range >= 2^28 takes two words, high word first
    assert d.fill(st, 0, 2, "integers", (0, 2**31), "int64")[0] == [w[1] % 2**31, w[3] % 2**31]
    # SPEC.md's text (variant "spec"): one word below 2^32
    assert d.fill(st, 0, 2, "integers", (0, 2**31), "int64", variant="spec")[0] == [w[0] % 2**31, w[1] % 2**31]
    big = ((w[0] << 32) | w[1]) % (2**40 + 5) - 5
    assert d.fill(st, 0, 1, "integers", (-5, 2**40), "int64")[0] == [big & (2**64 - 1)]


# ----------------------------------------------------- recorded GPU values ---
def _records(name):
    rows = []
    with open(os.path.join(RECORDED, name)) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rows.append(line.split())
    return rows


def test_recorded_curand_all_uniform_count():
    rows = [r for r in _records("curand.txt") if r[0] == "all_uniform_ones"]
    assert int(rows[0][5], 16) == len([x for x in range(2**32 - 1024, 2**32) if d.u32(x) == 0x3F800000]) == 128


def test_recorded_curand_device_api():
    counts = {}
    for fn, seed, sub, off, idx, bits in _records("curand.txt"):
        if fn == "all_uniform_ones":
            continue
        st = ps.curand_init_state(int(seed), int(sub), int(off))
        i, g = int(idx), int(bits, 16)
        counts[fn] = counts.get(fn, 0) + 1
        if fn == "bits":
            assert ps.word(st, i) == g
        elif fn == "uniform4":
            assert d.u32(ps.word(st, i)) == g
        elif fn == "uniform2d":
            a, b = ps.stream_words(st, 2 * i, 2)
            assert d.u53(a, b) == g
        elif fn == "normal4":
            x, y = ps.stream_words(st, 2 * (i // 2), 2)
            z = d.box_muller_f(x, y)[i % 2]
            # cuRAND uses __sincosf / logf: measured |error| <= 3.1e-6 over 2^24 values
            assert d.abs_diff(d.value(g, "float32"), z) <= Fraction(1, 2**17), (seed, i)
        elif fn == "normal2d":
            z = d.box_muller_d(*ps.stream_words(st, 4 * (i // 2), 4))[i % 2]
            assert d.within_normal_tolerance(d.value(g, "float64"), z, "float64"), (seed, i)
    assert min(counts.values()) >= 20 and len(counts) == 5


def test_recorded_torch_transforms():
    seed = None
    with open(os.path.join(RECORDED, "torch.txt")) as f:
        for line in f:
            if "seed " in line:
                seed = int(line.split("seed ")[1].split()[0])
                break
    kinds = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "u8": "uint8",
             "bool": "bool", "i32": "int32", "i64": "int64"}
    checked = 0
    for key, li, bits in _records("torch.txt"):
        kind, rest = key.split("_", 1)
        *params, dt = rest.split("_")
        dtype, g = kinds[dt], int(bits, 16)
        st = ps.curand_init_state(seed, int(li), 0)
        if kind == "integers":
            params = tuple(int(p) for p in params)
        else:
            params = tuple(float(p.replace("m", "-")) for p in params)
        if kind == "normal":
            z_exact, _, _ = d.normal_detail(st, 0, 1, params[0], params[1], dtype)[0]
            acc = "float64" if dtype == "float64" else "float32"
            std = d.value(d.param_bits(params[1], acc), acc)
            exact = d.mpf_to_fraction(z_exact) * std + d.value(d.param_bits(params[0], acc), acc)
            zerr = Fraction(1, 2**17) if acc == "float32" else 4 * d.ulp(z_exact, "float64") + Fraction(1, 2**50)
            assert d.abs_diff(d.value(g, dtype), exact) <= zerr * std + d.ulp(exact, dtype), (key, li)
        else:
            assert d.fill(st, 0, 1, kind, params, dtype)[0][0] == g, (key, li)
        checked += 1
    assert checked >= 40 * 4


# ------------------------------ SPEC.md 8.1: exponential, Cauchy, log-normal, geometric ---
def _u32_float(x):
    # float(x) 2^-32 + 2^-33 is exact in double (at most 33 bits), so one rounding
    return float(np.float32(float(np.float32(x)) * 2.0**-32 + 2.0**-33))


def test_transforms_against_pythons_math():
    """The exact values against Python's own double log/tan/exp (within 1e-15
    relative), at words from 0 to the 128 that give u = 1."""
    for x in (0, 1, 12345, 2**31, 0xDEADBEEF, 2**32 - 200, 2**32 - 1):
        u = _u32_float(x)
        ex, _ = d.transform("exponential", [x], (1.5,), "float32")
        want = (2.0**-24 if u >= 1 - 2.0**-24 else -math.log(u)) / 1.5
        assert abs(float(ex) - want) <= 1e-15 * want
        ex, _ = d.transform("cauchy", [x], (0.5, 2.0), "float32")
        uc = min(max(u, 2.0**-23), 1 - 2.0**-23)
        a = float(np.float32(np.float32(math.pi) * np.float32(uc - 0.5)))
        want = 0.5 + 2.0 * math.tan(a)
        assert abs(float(ex) - want) <= 1e-15 * abs(2.0 * math.tan(a)) + 1e-300
        k, bits = d.transform("geometric", [x], (0.2,), "float32")
        q = float(np.float32(1 - np.float32(0.2)))
        assert k == math.ceil(math.log(u) / math.log(q))
        assert bits == (0x80000000 if u == 1 else d.round_bits(Fraction(k), "float32"))


def test_geometric_integer_ratios_and_domain():
    # p = 1/2: q = 1/2 and u = 2^-k gives log u / log q = k exactly, whose ceiling is k
    x = 2**31 - 1  # u32 = 0.5 exactly (float(x) = 2^31)
    assert d.value(d.u32(x), "float32") == Fraction(1, 2)
    assert d.transform("geometric", [x], (0.5,), "int32") == (1, 1)
    assert d.transform("geometric", [2**30 - 1], (0.5,), "int64")[0] == 2
    assert d.transform("geometric", [2**30 - 1], (0.75,), "int64")[0] == 1  # 2 / 2
    # u = u32(0) = 2^-33 gives the largest value: 33 for p = 1/2
    assert d.transform("geometric", [0], (0.5,), "uint8")[0] == 33
    assert d.geometric_fits(0.09, "uint8") and not d.geometric_fits(0.08, "uint8")
    # q rounds to 1 in float (not in double): refused; to 0: zeros (-0 where u = 1)
    for dtype in ("float32", "int64"):
        with pytest.raises(ValueError):
            d.transform("geometric", [5], (1e-12,), dtype)
    assert d.transform("geometric", [5, 6], (1e-12,), "float64")[0] > 2**30
    assert d.transform("geometric", [5], (1 - 1e-12,), "float32")[1] == 0
    assert d.transform("geometric", [2**32 - 1], (1 - 1e-12,), "bfloat16")[1] == 0x8000
    assert d.geometric_fits(1 - 1e-12, "uint8")
    # integer types take the float ceiling: past 2^24 it is rounded to float
    k, bits = d.transform("geometric", [0], (1e-7,), "int64")
    assert k > 2**24 and bits == int(d.rnd(Fraction(k), "float32")) and bits % 16 == 0


def test_transform_word_counts_and_states():
    st = [0, 0, 0, 0, 7, 9]
    for dist, params in (("exponential", (1.0,)), ("cauchy", (0.0, 1.0)),
                         ("log_normal", (0.0, 1.0)), ("geometric", (0.5,))):
        assert d.fill(st, 0, 5, dist, params, "float32")[1][0] == 2          # ceil(5/4)
        assert d.fill(st, 0, 5, dist, params, "float64")[1][0] == 3          # ceil(10/4)
        # an element offset is a window of the same elements
        whole = d.fill(st, 0, 7, dist, params, "float32")[0]
        assert d.fill(st, 3, 4, dist, params, "float32")[0] == whole[3:]


def test_log_normal_is_exp_of_the_normal():
    st = [1, 2, 3, 4, 5, 6]
    for dtype in ("float32", "float64", "float16"):
        acc = "float64" if dtype == "float64" else "float32"
        normal = d.fill(st, 0, 9, "normal", (0.25, 0.5), acc)[0]
        got = d.fill(st, 0, 9, "log_normal", (0.25, 0.5), dtype)[0]
        for n, g in zip(normal, got):
            assert g == d.round_bits(Fraction(math.exp(d.to_float(n, acc))), dtype) or \
                abs(d.to_float(g, dtype) / math.exp(d.to_float(n, acc)) - 1) < 2e-16


def _recorded_h100_cases():
    import json
    folder = os.path.join(HERE, "torch_backend", "recorded")
    with open(os.path.join(folder, "distributions.json")) as f:
        data = json.load(f)
    return data, np.load(os.path.join(folder, "distributions.npz"))


def test_transforms_match_the_recorded_h100():
    """tests/reference/torch_backend/recorded (record_distributions.py, torch 2.11 on an
    H100), the first 300 elements of each case in the GPU's element order
    (torch_cuda/order.py): geometric exactly, in every type; exponential, Cauchy and
    log-normal within CUDA's fast log/tan/exp (absolute 2^-19 on log u, on the angle,
    on the normal; after one rounding for float16 and bfloat16)."""
    import sys
    sys.path.insert(0, os.path.join(HERE, "torch_cuda"))
    import order as o
    data, arrays = _recorded_h100_cases()
    env = data["env"]
    params = {"exponential_": (1.5,), "cauchy_": (0.5, 2.0), "log_normal_": (0.25, 0.5),
              "geometric_": (0.2,)}
    tol = {"float32": 2.0**-19, "float64": 1e-13, "float16": 2.0**-10, "bfloat16": 2.0**-7}
    checked = 0
    for case in data["cases"]:
        op, dtype = case["op"], case["dtype"]
        if op not in params:
            continue
        dist, acc = op[:-1], ("float64" if dtype == "float64" else "float32")
        got = arrays[f"c{case['id']}"]
        for e in range(300):
            kind = "normal" if dist == "log_normal" else "uniform"
            t, blk, lane = o.word_address(kind, e, case["n"], env["sm_count"],
                                          env["threads_per_sm"], dtype=acc)
            w = o.philox_block(case["seed"], 0, t, blk)
            if dist == "log_normal":
                z = (d.box_muller_f(*(w[0:2] if lane < 2 else w[2:4]))[lane % 2] if acc == "float32"
                     else d.box_muller_d(*w)[lane])
                want = 0.25 + 0.5 * float(z)
                assert abs(math.log(d.to_float(int(got[e]), dtype)) - want) <= \
                    tol[dtype] * max(1.0, abs(want)), (op, dtype, e)
                checked += 1
                continue
            ws = [w[lane]] if acc == "float32" else [w[2 * lane], w[2 * lane + 1]]
            exact, bits = d.transform(dist, ws, params[op], dtype)
            if dist == "geometric":
                assert int(got[e]) == bits, (op, dtype, e)
            else:
                g = d.to_float(int(got[e]), dtype)
                if dist == "exponential":  # compare -log u
                    mine, gpu = float(exact) * 1.5, g * 1.5
                else:  # compare the angle
                    mine, gpu = math.atan((float(exact) - 0.5) / 2), math.atan((g - 0.5) / 2)
                assert abs(mine - gpu) <= tol[dtype] * max(1.0, abs(mine)), (op, dtype, e)
            checked += 1
    assert checked == 19 * 300
