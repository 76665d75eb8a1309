"""randtensor.torch: in-place fills of PyTorch CPU tensors and a generator in
torch.cuda's (seed, offset) terms.

Expected values come from the library's NumPy path (randtensor.uniform,
normal, bernoulli, integers with the generator's state), tested elsewhere
against the independent reference; a few are checked against that reference
(philox_reference.py) here too, and dropout is computed independently from
it. Every comparison is of the bits, so NaN, -0.0 or a dtype slip cannot
hide a difference."""
import os
import re
import struct
import sys
import threading

import numpy as np
import pytest

# scripts/test.sh sets RANDTENSOR_REQUIRE_TORCH: there (and in CI) a missing
# torch is a failure, not a skip; elsewhere torch stays optional.
if os.environ.get("RANDTENSOR_REQUIRE_TORCH"):
    import torch
else:
    torch = pytest.importorskip("torch")

import randtensor  # noqa: E402
import randtensor.torch as rt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import philox_reference as ref  # noqa: E402
from digest import sha256_hex  # noqa: E402

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                    "docs", "torch.md")

# Counter words 0-1 about to carry past 2^32: a fill that kept the counter in
# 32 bits would go wrong. (seed, offset) as torch.cuda's state.
SEED, OFFSET = 0x0123456789ABCDEF, 4 * 0xFFFFFFF0

NAMES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
         torch.bfloat16: "bfloat16", torch.bool: "bool", torch.uint8: "uint8",
         torch.int32: "int32", torch.int64: "int64"}
# Signed torch dtypes of each size: torch 1.13 has no uint16/32/64 to view as.
SAME_SIZE_INT = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
NP_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

# (function, distribution, parameters, dtypes)
CASES = [
    (rt.uniform_, "uniform", {"low": -2.0, "high": 3.5},
     [torch.float32, torch.float64, torch.float16, torch.bfloat16]),
    (rt.normal_, "normal", {"mean": 1.5, "std": 0.25},
     [torch.float32, torch.float64, torch.float16, torch.bfloat16]),
    (rt.bernoulli_, "bernoulli", {"p": 0.3},
     [torch.bool, torch.uint8, torch.int32, torch.float32, torch.float64, torch.float16,
      torch.bfloat16]),
    (rt.random_, "integers", {"low": -5, "high": 1000},
     [torch.int32, torch.int64, torch.float32, torch.float64]),
    (rt.random_, "integers", {"low": -(1 << 40), "high": 1 << 40},  # two words
     [torch.int64, torch.float64]),
]
PARAMS = [(fn, dist, params, dtype) for fn, dist, params, dtypes in CASES for dtype in dtypes]
PARAM_IDS = [f"{dist}-{NAMES[dtype]}-{params.get('high', '')}" for _, dist, params, dtype in PARAMS]

# Views of a sentinel-filled base tensor: (name, base shape, view of base).
LAYOUTS = [
    ("contiguous", (5, 7), lambda b: b),
    ("transposed", (7, 5), lambda b: b.t()),
    ("sliced", (9, 12), lambda b: b[2:7, 3:10]),
    ("every-other", (10, 14), lambda b: b[::2, 1::2]),
    ("permuted-3d", (3, 4, 6), lambda b: b.permute(2, 0, 1)[1:, :, ::2]),
    ("scalar", (3,), lambda b: b[1]),
]


def torch_bits(t):
    """A torch tensor's elements as unsigned NumPy integers of the same size."""
    t = t.contiguous()
    size = t.element_size()
    return t.view(SAME_SIZE_INT[size]).numpy().view(NP_UNSIGNED[size])


def np_bits(a):
    a = np.asarray(a).copy(order="C")  # keeps 0-d arrays 0-d
    return a.view(NP_UNSIGNED[a.itemsize])


def expected(dist, dtype, params, shape, state):
    """The library's NumPy fill of the logical tensor (bfloat16: uint16 bits)."""
    call = {"uniform": randtensor.uniform, "normal": randtensor.normal,
            "bernoulli": randtensor.bernoulli, "integers": randtensor.integers}[dist]
    return call(tuple(shape), dtype=NAMES[dtype], state=state, **params)


def words_per_element(dist, dtype, params):
    if dist == "integers":
        return 2 if params["high"] - params["low"] >= 1 << 28 else 1
    return 2 if dtype == torch.float64 else 1


def sentinel(shape, dtype):
    """A base tensor whose every byte is 0xA5 (for bool: 1, a valid bool)."""
    base = torch.empty(shape, dtype=dtype)
    base.view(torch.uint8).fill_(1 if dtype == torch.bool else 0xA5)
    return base


def call(fn, dist, t, params, **kwargs):
    if dist == "integers":
        return fn(t, params["low"], params["high"], **kwargs)
    return fn(t, **params, **kwargs)


# ---------------------------------------------------------------------------
# Values: adapter == library, for every dtype and layout


@pytest.mark.parametrize("layout,base_shape,view_of", LAYOUTS, ids=[x[0] for x in LAYOUTS])
@pytest.mark.parametrize("fn,dist,params,dtype", PARAMS, ids=PARAM_IDS)
def test_fill_equals_the_library_and_writes_only_the_view(fn, dist, params, dtype, layout,
                                                          base_shape, view_of):
    g = rt.Generator(SEED)
    g.set_offset(OFFSET)
    state = g.philox_state()
    base = sentinel(base_shape, dtype)
    untouched = base.clone()
    view = view_of(base)
    assert call(fn, dist, view, params, generator=g) is view
    want = expected(dist, dtype, params, view.shape, state)
    assert np.array_equal(torch_bits(view), np_bits(want))
    # Bytes outside the view keep the sentinel.
    outside = torch.ones(base_shape, dtype=torch.bool)
    view_of(outside).fill_(False)
    assert torch.equal(base[outside], untouched[outside])
    n = view.numel()
    assert g.get_offset() == OFFSET + 4 * -(-n * words_per_element(dist, dtype, params) // 4)


@pytest.mark.parametrize("fn,dist,params,dtype", PARAMS, ids=PARAM_IDS)
def test_threads_do_not_change_values(fn, dist, params, dtype):
    one, many = torch.empty(257, 33, dtype=dtype), torch.empty(257, 33, dtype=dtype)
    call(fn, dist, one, params, generator=rt.Generator(5), threads=1)
    call(fn, dist, many, params, generator=rt.Generator(5), threads=2)
    assert np.array_equal(torch_bits(one), torch_bits(many))


def test_threads_follow_torch_by_default(monkeypatch):
    seen = []
    monkeypatch.setattr(randtensor, "fill",
                        lambda *a, threads=None, **k: seen.append(threads) or [0] * 6)
    monkeypatch.setattr(torch, "get_num_threads", lambda: 3)
    rt.uniform_(torch.empty(4), generator=rt.Generator(1))
    rt.uniform_(torch.empty(4), generator=rt.Generator(1), threads=1)
    assert seen == [3, 1]


def stream_of(g, count):
    """The reference stream at the generator's state."""
    return ref.stream(g.philox_state(), count)


def u32(words):
    """cuRAND's float uniform of uint32 words: fma(float(x), 2^-32, 2^-33),
    exact in double and rounded once to float32."""
    return (words.astype(np.float32).astype(np.float64) * 2.0 ** -32
            + 2.0 ** -33).astype(np.float32)


def test_values_match_the_independent_reference():
    g = rt.Generator(SEED)
    g.set_offset(OFFSET)
    words = stream_of(g, 300)
    x = rt.uniform_(torch.empty(20, 15).t(), generator=g)       # logical 15 x 20
    u = u32(words[:300]).reshape(15, 20)
    assert torch.equal(x, torch.from_numpy(np.where(u == 1.0, np.float32(0), u)))
    words = stream_of(g, 64)
    k = rt.random_(torch.empty(8, 8, dtype=torch.int64)[:, :], 3, 100, generator=g)
    assert torch.equal(k, torch.from_numpy(3 + (words.astype(np.int64) % 97)).reshape(8, 8))
    words = stream_of(g, 50)
    b = rt.bernoulli_(torch.empty(50, dtype=torch.bool), 0.4, generator=g)
    assert torch.equal(b, torch.from_numpy(u32(words) < np.float32(0.4)))


# ---------------------------------------------------------------------------
# Constructors


def test_rand_randn_randint_equal_the_library():
    g = rt.Generator(SEED)
    state = g.philox_state()
    x = rt.rand(3, 4, generator=g)
    assert x.dtype == torch.get_default_dtype() and x.shape == (3, 4)
    assert np.array_equal(x.numpy(), randtensor.uniform((3, 4), state=state))
    state = g.philox_state()
    h = rt.randn((2, 5), dtype=torch.bfloat16, generator=g)
    assert np.array_equal(torch_bits(h), randtensor.normal((2, 5), dtype="bfloat16", state=state))
    state = g.philox_state()
    k = rt.randint(-3, 9, [4], generator=g)
    assert k.dtype == torch.int64
    assert np.array_equal(k.numpy(), randtensor.integers(4, -3, 9, state=state))
    state = g.philox_state()
    k = rt.randint(10, torch.Size([2, 2]), dtype=torch.int32, generator=g)  # randint(high, size)
    assert np.array_equal(k.numpy(), randtensor.integers((2, 2), 10, dtype="int32", state=state))


def test_constructors_take_requires_grad_and_empty_sizes():
    x = rt.randn(3, requires_grad=True, generator=rt.Generator(1))
    assert x.requires_grad and x.is_leaf
    g = rt.Generator(1)
    assert rt.rand(0, 5, generator=g).shape == (0, 5) and g.get_offset() == 0


def test_default_generator_is_torch_cudas_default_and_used_when_none_given():
    assert rt.Generator().initial_seed() == 67280421310721
    assert rt.manual_seed(11) is rt.default_generator
    a = rt.rand(6)
    assert rt.default_generator.get_offset() == 8
    rt.manual_seed(11)
    assert torch.equal(rt.rand(6), a)
    assert torch.equal(rt.rand(6, generator=rt.Generator(11)), a)


# ---------------------------------------------------------------------------
# Generator (after PyTorch's test_RNGState, test_RNGStateAliasing,
# test_manual_seed and the CUDA generator's state layout)


def test_get_state_is_torch_cudas_16_byte_layout():
    g = rt.Generator(SEED)
    g.set_offset(OFFSET)
    state = g.get_state()
    assert state.dtype == torch.uint8 and state.shape == (16,) and state.device.type == "cpu"
    assert struct.unpack("<Qq", bytes(state.tolist())) == (SEED, OFFSET)
    assert g.seed_value == g.initial_seed() == SEED
    counter = OFFSET // 4
    assert g.philox_state() == [counter & 0xFFFFFFFF, counter >> 32, 0, 0,
                                SEED & 0xFFFFFFFF, SEED >> 32]


def test_state_save_restore_replays_the_same_values():
    g = rt.Generator(123)
    rt.rand(7, generator=g)
    saved = g.get_state()
    before = rt.randn(1000, generator=g)
    rt.uniform_(torch.empty(33, dtype=torch.float64), generator=g)
    g.set_state(saved)
    assert torch.equal(rt.randn(1000, generator=g), before)


def test_state_aliasing():
    # get_state returns a copy; a generator set from it runs independently.
    g = rt.Generator(9)
    saved = g.get_state()
    forked = rt.Generator().set_state(saved)
    saved.zero_()
    a = rt.rand(50, generator=g)
    assert torch.equal(rt.rand(50, generator=forked), a)
    assert not torch.equal(rt.rand(50, generator=g), a)


def test_manual_seed():
    g = rt.Generator()
    x = rt.randn(100, generator=g.manual_seed(2024))
    assert g.get_offset() == 100
    assert torch.equal(rt.randn(100, generator=g.manual_seed(2024)), x)
    assert g.initial_seed() == 2024 and g.get_offset() == 100
    assert rt.Generator(2024).get_state().tolist() == rt.Generator().manual_seed(
        2024).get_state().tolist()


def test_seed_range_is_torchs():
    assert rt.Generator(-1).initial_seed() == 2**64 - 1  # two's complement, as torch
    assert rt.Generator(-(2**63)).initial_seed() == 2**63
    assert rt.Generator(2**64 - 1).initial_seed() == 2**64 - 1
    for bad in (2**64, -(2**63) - 1):
        with pytest.raises(ValueError, match="seed"):
            rt.Generator(bad)
    with pytest.raises(TypeError, match="seed"):
        rt.Generator().manual_seed(1.5)


def test_seed_draws_fresh_entropy_and_resets_the_offset():
    g = rt.Generator(1)
    rt.rand(8, generator=g)
    seeds = {g.seed() for _ in range(4)}
    assert len(seeds) == 4 and g.initial_seed() in seeds and g.get_offset() == 0
    assert all(0 <= s < 2**53 for s in seeds)


def test_offsets_advance_by_whole_blocks_and_can_be_set():
    g = rt.Generator(5)
    rt.rand(1, generator=g)
    assert g.get_offset() == 4
    rt.normal_(torch.empty(3, dtype=torch.float64), generator=g)         # 6 words
    assert g.get_offset() == 12
    rt.random_(torch.empty(3, dtype=torch.int64), 0, 2**28, generator=g)  # 2 words each
    assert g.get_offset() == 20
    rt.random_(torch.empty(3, dtype=torch.int64), 0, 2**28 - 1, generator=g)
    assert g.get_offset() == 24
    g.set_offset(1 << 40)
    assert g.get_offset() == 1 << 40 and g.philox_state()[:2] == [0, 1 << 6]
    for bad in (6, -4, 1 << 63):
        with pytest.raises(ValueError, match="offset"):
            g.set_offset(bad)
    assert g.get_offset() == 1 << 40


def test_set_state_checks_its_input_as_torch_does():
    g = rt.Generator(3)
    g.set_state(torch.tensor(list(struct.pack("<Q", 77)), dtype=torch.uint8))  # 8 bytes
    assert (g.initial_seed(), g.get_offset()) == (77, 0)
    before = g.get_state()
    bad_states = [
        (torch.zeros(16, dtype=torch.int8), TypeError, "uint8"),
        ([0] * 16, TypeError, "uint8"),
        (torch.zeros(15, dtype=torch.uint8), ValueError, "15 bytes"),
        (torch.tensor(list(struct.pack("<Qq", 1, 6)), dtype=torch.uint8), ValueError, "4"),
        (torch.tensor(list(struct.pack("<Qq", 1, -4)), dtype=torch.uint8), ValueError, "-4"),
    ]
    for state, error, pattern in bad_states:
        with pytest.raises(error, match=pattern):
            g.set_state(state)
    assert torch.equal(g.get_state(), before)


def test_module_level_state_functions():
    rt.manual_seed(99)
    saved = rt.get_rng_state()
    a = rt.rand(5)
    rt.set_rng_state(saved)
    assert torch.equal(rt.rand(5), a) and rt.initial_seed() == 99
    assert rt.seed() == rt.initial_seed()


def test_draws_from_threads_never_share_words():
    g = rt.Generator(8)
    outs = [torch.empty(1000) for _ in range(8)]
    workers = [threading.Thread(target=rt.uniform_, args=(t,), kwargs={"generator": g})
               for t in outs]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert g.get_offset() == 8000
    # Each thread got one whole 1000-element stretch of the stream, in some order.
    chunks = rt.rand(8, 1000, generator=rt.Generator(8))
    matches = sorted(next(i for i in range(8) if torch.equal(chunks[i], t)) for t in outs)
    assert matches == list(range(8))


# ---------------------------------------------------------------------------
# Dropout, against an independent computation from the reference stream


def reference_dropout(x, p, state):
    """(output, mask) by ORDER.md section 6, from the reference stream."""
    n = x.numel()
    u = u32(ref.stream(state, n)).reshape(x.shape)
    p1m = 1.0 - p
    with np.errstate(invalid="ignore"):  # a dropped inf is inf * 0 = NaN, as on the GPU
        if x.dtype == torch.float64:
            keep = u.astype(np.float64) < p1m
            out = x.numpy() * keep.astype(np.float64) * (1.0 / p1m)
            return torch.from_numpy(out), torch.from_numpy(keep)
        keep = u < np.float32(p1m)
        scale = np.float32(1.0 / np.float64(np.float32(p1m)))
        wide = x.float().numpy()
        out = torch.from_numpy((wide * keep.astype(np.float32)) * scale).to(x.dtype)
    return out, torch.from_numpy(keep)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16,
                                   torch.bfloat16], ids=lambda d: NAMES[d])
@pytest.mark.parametrize("p", [0.1, 0.5, 0.77])
def test_dropout_matches_an_independent_computation(dtype, p):
    x = (torch.randn(40, 30, generator=torch.Generator().manual_seed(1)) * 3).to(dtype).t()
    x[0, :4] = torch.tensor([float("inf"), float("-inf"), float("nan"), -0.0])
    g = rt.Generator(SEED)
    g.set_offset(OFFSET)
    state = g.philox_state()
    out, mask = rt.dropout(x, p, generator=g)
    want_out, want_mask = reference_dropout(x, p, state)
    assert mask.dtype == torch.bool and torch.equal(mask, want_mask)
    assert out.dtype == dtype and np.array_equal(torch_bits(out), torch_bits(want_out))
    assert g.get_offset() == OFFSET + 4 * -(-x.numel() // 4)  # one word per element


def test_float64_dropout_compares_in_double():
    # Pick p so that float32(1 - p) < 1 - p and some element's uniform is
    # exactly float32(1 - p): CUDA keeps it for float64 inputs (double
    # comparison) and drops it for float32 ones.
    state = rt.Generator(4).philox_state()
    u = u32(ref.stream(state, 64))
    i = int(np.argmax(u > 0.5))
    p1m = float(u[i]) + 2.0 ** -40
    p = 1.0 - p1m
    assert 1.0 - p == p1m and float(np.float32(p1m)) == float(u[i])
    _, mask64 = rt.dropout(torch.ones(64, dtype=torch.float64), p, generator=rt.Generator(4))
    _, mask32 = rt.dropout(torch.ones(64), p, generator=rt.Generator(4))
    assert bool(mask64[i]) and not bool(mask32[i])
    assert torch.equal(mask64, torch.from_numpy(u.astype(np.float64) < p1m))


def test_dropout_shortcuts_draw_nothing():
    x = torch.tensor([1.5, -2.0, float("nan")])
    g = rt.Generator(1)
    for kwargs in ({"p": 0.3, "training": False}, {"p": 0.0}):
        out, mask = rt.dropout(x, generator=g, **kwargs)
        assert torch.equal(out.nan_to_num(), x.nan_to_num()) and out.data_ptr() != x.data_ptr()
        assert mask.dtype == torch.bool and bool(mask.all())
    out, mask = rt.dropout(x, 1.0, generator=g)
    assert torch.equal(out, torch.zeros(3)) and not bool(mask.any())
    out, mask = rt.dropout(torch.empty(0, 4), 0.5, generator=g)
    assert out.shape == mask.shape == (0, 4)
    assert g.get_offset() == 0


def test_dropout_is_differentiable():
    x = torch.randn(50, requires_grad=True)
    out, mask = rt.dropout(x, 0.25, generator=rt.Generator(2))
    out.sum().backward()
    assert torch.equal(x.grad, mask.float() * float(np.float32(1 / np.float32(0.75))))


def test_dropout_refuses_bad_input():
    with pytest.raises(ValueError, match="p = 1.5"):
        rt.dropout(torch.ones(3), 1.5)
    with pytest.raises(TypeError, match="torch.int64"):
        rt.dropout(torch.ones(3, dtype=torch.int64))
    with pytest.raises(ValueError, match="meta"):
        rt.dropout(torch.ones(3, device="meta"))


# ---------------------------------------------------------------------------
# Autograd and inference tensors, as torch's in-place ops


def test_a_leaf_that_requires_grad_is_refused_unless_under_no_grad():
    w = torch.full((4,), 7.0, requires_grad=True)
    g = rt.Generator(1)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        rt.uniform_(w, generator=g)
    with pytest.raises(RuntimeError, match="autograd"):
        rt.normal_(w * 2, generator=g)
    assert torch.equal(w.detach(), torch.full((4,), 7.0)) and g.get_offset() == 0
    version = w._version
    with torch.no_grad():
        rt.normal_(w, generator=g)
    assert w.requires_grad and w._version == version + 1 and g.get_offset() == 4
    assert torch.equal(w.detach(), rt.randn(4, generator=rt.Generator(1)))


def test_a_fill_marks_a_saved_tensor_modified():
    x = torch.ones(3)
    w = torch.ones(3, requires_grad=True)
    y = (w * x).sum()  # saves x for the gradient
    rt.uniform_(x)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_inference_tensors_follow_torchs_rule():
    with torch.inference_mode():
        t = torch.zeros(3)
        rt.uniform_(t, generator=rt.Generator(1))  # allowed inside inference mode
    with pytest.raises(RuntimeError, match="inference tensor"):
        rt.uniform_(t)


# ---------------------------------------------------------------------------
# Errors: the right exception, naming the problem; nothing written, the
# generator unchanged


def bad_calls():
    return [
        ("meta device", lambda t: rt.uniform_(torch.empty(3, device="meta")), ValueError,
         "device 'meta'"),
        ("int8", lambda t: rt.normal_(t.to(torch.int8)), TypeError, "torch.int8"),
        ("int16", lambda t: rt.bernoulli_(torch.zeros(3, dtype=torch.int16)), TypeError,
         "torch.int16"),
        ("uint8 uniform", lambda t: rt.uniform_(torch.zeros(3, dtype=torch.uint8)),
         TypeError, "torch.uint8"),
        ("bool random range", lambda t: rt.random_(torch.zeros(3, dtype=torch.bool), 3),
         ValueError, "torch.bool holds"),
        ("uint8 random range", lambda t: rt.random_(torch.zeros(3, dtype=torch.uint8), -1, 5),
         ValueError, "torch.uint8 holds"),
        ("complex randn", lambda t: rt.randn(3, dtype=torch.complex64), TypeError,
         "complex64"),
        ("sparse", lambda t: rt.uniform_(torch.zeros(3, 3).to_sparse()), TypeError, "layout"),
        ("not a tensor", lambda t: rt.uniform_(np.zeros(3, np.float32)), TypeError,
         "torch.Tensor"),
        ("overlap", lambda t: rt.uniform_(t[:3].expand(4, 3)), ValueError, "strides"),
        ("negative view", lambda t: rt.uniform_(torch._neg_view(t)), ValueError, "negated"),
        ("p > 1", lambda t: rt.bernoulli_(t, 1.5), ValueError, "p = 1.5"),
        ("p < 0", lambda t: rt.bernoulli_(t, -0.1), ValueError, "p = -0.1"),
        ("low == high", lambda t: rt.uniform_(t, 1.0, 1.0), ValueError, "low"),
        ("low > high", lambda t: rt.uniform_(t, 2.0, 1.0), ValueError, "low"),
        ("nan", lambda t: rt.uniform_(t, float("nan"), 1.0), ValueError, "nan"),
        ("std < 0", lambda t: rt.normal_(t, 0.0, -1.0), ValueError, "std = -1"),
        ("random low >= high", lambda t: rt.random_(t, 5, 5), ValueError, "5"),
        ("float32 range", lambda t: rt.random_(t, 0, 2**25), ValueError, "float32"),
        ("int32 range", lambda t: rt.random_(torch.zeros(3, dtype=torch.int32), 0, 2**32),
         ValueError, "int_high"),
        ("float bounds", lambda t: rt.random_(t, 0.5, 3), TypeError, "low must be an integer"),
        ("generator", lambda t: rt.uniform_(t, generator=torch.Generator()), TypeError,
         "generator"),
        ("threads", lambda t: rt.uniform_(t, threads=-1), ValueError, "threads"),
    ]


@pytest.mark.parametrize("name,bad,error,pattern", bad_calls(), ids=[c[0] for c in bad_calls()])
def test_errors_name_the_problem_and_write_nothing(name, bad, error, pattern):
    t = torch.full((6,), 7.0)
    rt.manual_seed(5)
    before = rt.get_rng_state()
    with pytest.raises(error, match=pattern):
        bad(t)
    assert torch.equal(t, torch.full((6,), 7.0))
    assert torch.equal(rt.get_rng_state(), before)


def test_an_offset_past_int64_is_refused_before_writing():
    g = rt.Generator(1)
    g.set_offset(2**63 - 8)
    t = torch.full((8,), 7.0)
    with pytest.raises(ValueError, match="2\\*\\*63"):
        rt.uniform_(t, generator=g)
    assert torch.equal(t, torch.full((8,), 7.0)) and g.get_offset() == 2**63 - 8
    rt.uniform_(t[:4], generator=g)  # exactly fits: 2**63 - 4
    assert g.get_offset() == 2**63 - 4


# ---------------------------------------------------------------------------
# docs/torch.md: every Python example runs as written


def doc_examples():
    with open(DOCS) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


@pytest.mark.parametrize("index", range(len(doc_examples())))
def test_docs_examples_run(index):
    exec(compile(doc_examples()[index], f"docs/torch.md example {index}", "exec"), {})


# ---------------------------------------------------------------------------
# order="torch_cuda": the GPU's element order, against the H100 recording
# (tests/reference/torch_cuda/recorded, capture_torch_cuda.py).

def _recorded_calls():
    import json
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                        "reference", "torch_cuda", "recorded", "torch_cuda_order.json")
    with open(path) as f:
        return json.load(f)["calls"]


def _sha(t):
    data = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
    return sha256_hex(data.numpy())


_TORCH_DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
                 "bfloat16": torch.bfloat16, "bool": torch.bool, "uint8": torch.uint8,
                 "int32": torch.int32, "int64": torch.int64}


def test_torch_cuda_order_replays_a_recorded_chain():
    """A Generator(order='torch_cuda') fed the chain's ops gives the GPU's
    tensors and offsets call after call."""
    calls = [c for c in _recorded_calls() if c["chain"] == "A" and c["generator"] == "default"]
    seed, offset = calls[0]["state_before"]
    g = rt.Generator(seed, order="torch_cuda", gpu="h100-sxm")
    g.set_offset(offset)
    done = 0
    for c in calls:
        if [g.initial_seed(), g.get_offset()] != c["state_before"]:
            break
        kind, n, dtype, p = c["kind"], c["n"], _TORCH_DTYPES.get(c["dtype"]), c["params"]
        if dtype is None or (kind, c["dtype"]) in {("bernoulli", "int64")}:
            break
        t = torch.empty(n, dtype=dtype)
        if kind == "uniform":
            rt.uniform_(t, p.get("low", 0.0), p.get("high", 1.0), generator=g)
        elif kind == "normal":
            rt.normal_(t, p.get("mean", 0.0), p.get("std", 1.0), generator=g)
        elif kind == "bernoulli":
            rt.bernoulli_(t, p["p"], generator=g)
        elif kind == "random_from_to" and c["dtype"] in ("int32", "int64", "float32", "float64"):
            rt.random_(t, p["low"], p["high"], generator=g)
        else:
            break
        assert g.get_offset() == c["state_after"][1], c["id"]
        if kind != "normal":
            assert _sha(t) == c["sha256"], c["id"]
        done += 1
    assert done >= 10


def test_torch_cuda_order_dropout_mask_and_output():
    calls = [c for c in _recorded_calls() if c["api"] == "native_dropout"
             and c["dtype"] in ("float32", "bfloat16") and c["n"] <= 3_000_000]
    for c in calls[:6]:
        n = c["n"]
        x = torch.from_numpy(((np.arange(n) * 37) % 255 - 127).astype(np.float32) / 8)
        x = x.to(_TORCH_DTYPES[c["dtype"]])
        g = rt.Generator(c["state_before"][0], order="torch_cuda", gpu="h100-sxm")
        g.set_offset(c["state_before"][1])
        out, mask = rt.dropout(x, c["params"]["p"], generator=g)
        assert g.get_offset() == c["state_after"][1]
        assert _sha(out) == c["sha256"], c["id"]
        assert _sha(mask.view(torch.uint8)) == c["mask_sha256"], c["id"]


def test_torch_cuda_order_refuses_strided_tensors():
    g = rt.Generator(1, order="torch_cuda")
    t = torch.zeros(4, 4)
    with pytest.raises(ValueError, match="contiguous"):
        rt.uniform_(t.T, generator=g)
    assert not t.any() and g.get_offset() == 0
    with pytest.raises(ValueError, match="order = 'cuda'"):
        rt.Generator(1, order="cuda")


def test_types_made_through_another_equal_its_values_converted():
    """random_ into uint8/bool/float16/bfloat16 and bernoulli_ into int64 are
    the int32/float32 fills of the same state, converted as torch converts."""
    g = rt.Generator(11)
    t = torch.empty(2, 500, dtype=torch.uint8).t()  # strided: logical order still
    rt.random_(t, 3, 250, generator=g)
    want = randtensor.integers((500, 2), 3, 250, dtype="int32", seed=11)
    assert torch.equal(t, torch.from_numpy(want).to(torch.uint8))
    assert g.get_offset() == 4 * ((1000 + 3) // 4)
    b = torch.empty(1001, dtype=torch.int64)
    rt.bernoulli_(b, 0.3, generator=rt.Generator(12))
    assert torch.equal(b, torch.from_numpy(randtensor.bernoulli(1001, 0.3, dtype="int32",
                                                                 seed=12)).to(torch.int64))
    for dtype in (torch.float16, torch.bfloat16, torch.bool):
        high = 2 if dtype == torch.bool else 3000
        x = rt.randint(0, high, (777,), dtype=dtype, generator=rt.Generator(13))
        f = randtensor.integers(777, 0, high, dtype="float32", seed=13)
        assert torch.equal(x, torch.from_numpy(f).to(dtype)), dtype
