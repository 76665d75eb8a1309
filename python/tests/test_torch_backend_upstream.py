"""PyTorch's own random-operator tests, run with randtensor's backend installed.

Ported from PyTorch's test suite (pytorch/pytorch: test/test_torch.py TestTorch and
TestTorchDeviceType -- in newer trees TestRandom --, test/test_tensor_creation_ops.py
TestRandomTensorCreation / TestTensorCreation, test/nn/test_dropout.py (test_nn.py
before), test/test_cuda.py's RNG-state tests in their CPU form and
test/distributions/test_distributions.py), adapted to plain pytest and torch 1.13:
every test below names the upstream test it comes from. The device is always "cpu"
(the backend serves torch's CPU operators); where an upstream test is onlyCUDA or
lists more dtypes under dtypesIfCUDA, it is run here because the backend computes
PyTorch CUDA's formulas, and the comment says so.

SciPy is not installed here, so the *_kstest tests use the two-sided
Kolmogorov-Smirnov statistic computed below (the D that scipy.stats.kstest returns,
from the same sorted-sample formula) and test_geometric_kstest computes the
chi-square p-value with torch.special.gammaincc (chi2.sf(x, k) = Q(k / 2, x / 2)),
keeping upstream's thresholds.

Error paths assert the exception type and message stock PyTorch raises: the same call
is run again with the backend uninstalled (assert_raises_as_stock).

A module-scope fixture installs the backend (order="stream") for the whole module and
uninstalls it afterwards, restoring the default generator's state from before, so that
later modules see a stock generator. Each test starts from torch.manual_seed(0), as
PyTorch's TestCase.setUp seeds every test.
"""
import io
import itertools
import math
import os
import pickle
import re
import warnings
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest

# scripts/test.sh sets RANDTENSOR_REQUIRE_TORCH: there a missing torch is a failure.
if os.environ.get("RANDTENSOR_REQUIRE_TORCH"):
    import torch
else:
    torch = pytest.importorskip("torch")

import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import randtensor.torch as rt  # noqa: E402

# torch 1.13 warns once that complex32 (test_randn, test_rand) is experimental.
pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
# common_dtype.all_types_and(torch.bfloat16, torch.half)
ALL_TYPES_AND_HALF_BF16 = INTS + FLOATS
INT64_MIN = torch.iinfo(torch.int64).min
INT64_MAX = torch.iinfo(torch.int64).max


def dtype_id(value):
    return str(value).replace("torch.", "") if isinstance(value, torch.dtype) else None


def dtypes(*values):
    """common_device_type.dtypes: the test runs once per dtype."""
    return pytest.mark.parametrize("dtype", values, ids=dtype_id)


@pytest.fixture(scope="module", autouse=True)
def backend():
    stock_state = torch.get_rng_state()
    rt.install()
    yield
    rt.uninstall()
    torch.set_rng_state(stock_state)


@pytest.fixture(autouse=True)
def seeded():
    # common_utils.TestCase.setUp: set_rng_seed(SEED) before every test.
    torch.manual_seed(0)
    yield


# ---------------------------------------------------------------------------
# helpers

def stock_outcome(fn):
    """What stock PyTorch does with fn(): its exception, or None. The backend is
    uninstalled for the call and installed again afterwards."""
    rt.uninstall()
    try:
        fn()
    except Exception as error:  # noqa: BLE001 - any exception is an outcome
        return error
    finally:
        rt.install()
    return None


def assert_raises_as_stock(fn, match=None):
    """fn() raises under the backend, with the exception type and message that stock
    PyTorch raises for the same call (and, if given, a message matching `match`, the
    regex upstream's assertRaisesRegex uses)."""
    try:
        fn()
    except Exception as error:  # noqa: BLE001
        ours = error
    else:
        ours = None
    theirs = stock_outcome(fn)
    assert theirs is not None, f"stock PyTorch does not raise here; the backend gave {ours!r}"
    assert ours is not None, f"the backend does not raise; stock PyTorch raises {theirs!r}"
    assert (type(ours), str(ours)) == (type(theirs), str(theirs))
    if match is not None:
        assert re.search(match, str(ours)), str(ours)


def assert_equal(actual, expected):
    """Exact equality, NaN equal to NaN (TestCase.assertEqual with atol=0, rtol=0)."""
    torch.testing.assert_close(actual, expected, rtol=0, atol=0, equal_nan=True)


def is_binary(t):
    return torch.ne(t, 0).mul_(torch.ne(t, 1)).sum().item() == 0


def ks_statistic(t, cdf):
    """scipy.stats.kstest's two-sided statistic D of the sample t against cdf."""
    x = t.detach().to(torch.float64).flatten().sort().values
    n = x.numel()
    f = cdf(x)
    i = torch.arange(1, n + 1, dtype=torch.float64)
    return max((i / n - f).max().item(), (f - (i - 1) / n).max().item())


def normal_cdf(mean, std):
    return lambda x: 0.5 * (1 + torch.erf((x - mean) / (std * math.sqrt(2))))


# ---------------------------------------------------------------------------
# test_torch.py: TestTorchDeviceType / TestRandom

# test_torch.py::test_log_normal (dtypes: floating_types_and(half, bfloat16)).
# Upstream checks dtype and size; the sample must also be a log-normal value (> 0).
@dtypes(*FLOATS)
def test_log_normal(dtype):
    a = torch.tensor([10], dtype=dtype).log_normal_()
    assert a.dtype == dtype
    assert a.size() == torch.Size([1])
    assert torch.isfinite(a).all() and (a > 0).all() and a.item() != 10


# test_torch.py::test_geometric (dtypes: all_types_and(half, bfloat16)). Added: the
# value is a whole number >= 1.
@dtypes(*ALL_TYPES_AND_HALF_BF16)
def test_geometric(dtype):
    a = torch.tensor([10], dtype=dtype).geometric_(0.5)
    assert a.dtype == dtype
    assert a.size() == torch.Size([1])
    value = a.double().item()
    assert value >= 1 and value == math.floor(value)
    big = torch.empty(1000, dtype=dtype).geometric_(0.5).double()
    assert big.min().item() >= 1 and (big == big.floor()).all()


# test_torch.py::test_bernoulli_p (dtypesIfCPU: floating_types_and(bfloat16, half)
# in PyTorch >= 2.1; the backend fills half as torch.cuda does).
@dtypes(*FLOATS)
def test_bernoulli_p(dtype):
    for trivial_p in ([0, 1], [1, 0, 1, 1, 0, 1]):
        x = torch.tensor(trivial_p, dtype=dtype)
        assert x.bernoulli().tolist() == trivial_p

    p = torch.rand(5, 5, dtype=dtype)
    assert is_binary(p.bernoulli())

    p = torch.rand(5, dtype=dtype).expand(5, 5)
    assert is_binary(p.bernoulli())

    p = torch.rand(5, 5, dtype=dtype)
    torch.bernoulli(torch.rand_like(p), out=p)
    assert is_binary(p)


# test_torch.py::test_bernoulli_self (dtypesIfCPU: all_types_and(bool, half)).
@dtypes(*INTS, torch.float32, torch.float64, torch.bool, torch.float16)
def test_bernoulli_self(dtype):
    t = torch.empty(10, 10, dtype=dtype)

    t.fill_(2)
    t.bernoulli_(0.5)
    assert is_binary(t)

    for p_dtype in (torch.float32, torch.float64):
        p = torch.rand(10, dtype=p_dtype).expand(10, 10)
        t.fill_(2)
        t.bernoulli_(p)
        assert is_binary(t)

        t.fill_(2)
        torch.bernoulli(torch.rand_like(t, dtype=p_dtype), out=t)
        assert is_binary(t)

        t.fill_(2)
        t.bernoulli_(torch.rand_like(t, dtype=p_dtype))
        assert is_binary(t)


# test_torch.py::test_bernoulli_edge_cases (@slowTest; 10000 x 10000 samples). Here
# 2^25 float32 samples (a u == 0 or u == 1 slip at float32 resolution, 2^-24 each,
# shows up with probability > 86%) and 2^22 for float64 and half (half: dtypesIfCUDA,
# and CPU in PyTorch >= 2.1), to keep the file's runtime small.
@pytest.mark.parametrize("dtype,n", [(torch.float32, 1 << 25), (torch.float64, 1 << 22),
                                     (torch.float16, 1 << 22)], ids=["float32", "float64",
                                                                     "float16"])
def test_bernoulli_edge_cases(dtype, n):
    a = torch.zeros(n, dtype=dtype)  # probability of drawing "1" is 0
    assert (torch.bernoulli(a) == 1).sum().item() == 0
    del a
    b = torch.ones(n, dtype=dtype)  # probability of drawing "1" is 1
    assert (torch.bernoulli(b) == 0).sum().item() == 0


# test_torch.py::test_bernoulli_mem_overlap (listed in pytorch/xla's skip list):
# in-place fills of a tensor whose elements share memory are refused.
def test_bernoulli_mem_overlap():
    x = torch.rand((1,)).expand((6,))
    assert_raises_as_stock(lambda: x.bernoulli_(), "unsupported operation")
    assert_raises_as_stock(lambda: x.bernoulli_(p=0.1), "unsupported operation")
    p = torch.rand(6)
    assert_raises_as_stock(lambda: x.bernoulli_(p=p), "unsupported operation")
    assert_raises_as_stock(lambda: torch.bernoulli(torch.rand_like(x), out=x),
                           "unsupported operation")


# The same memory-overlap refusal for the other in-place random operators (stock
# PyTorch checks it in TensorIterator for all of them).
@pytest.mark.parametrize("op", [
    pytest.param(lambda x: x.uniform_(), id="uniform_"),
    pytest.param(lambda x: x.random_(), id="random_"),
    pytest.param(lambda x: x.random_(0, 10), id="random_from_to"),
    pytest.param(lambda x: x.exponential_(), id="exponential_"),
    pytest.param(lambda x: x.geometric_(0.5), id="geometric_"),
    pytest.param(lambda x: x.cauchy_(), id="cauchy_"),
    pytest.param(lambda x: x.log_normal_(), id="log_normal_"),
    pytest.param(lambda x: x.normal_(), id="normal_"),
])
def test_random_ops_mem_overlap(op):
    x = torch.rand((1,)).expand((6,))
    assert_raises_as_stock(lambda: op(x), "unsupported operation")


# test_torch.py::test_exponential (dtypes: floating_types_and(half, bfloat16)).
@dtypes(*FLOATS)
def test_exponential(dtype):
    a = torch.tensor([10], dtype=dtype).exponential_(0.5)
    assert a.dtype == dtype
    assert a.size() == torch.Size([1])

    # Tests extremal behavior
    t = torch.empty((1,), dtype=dtype).exponential_(float("inf"))
    assert t.item() == 0

    # Tests that negative lambda fails ("lambda >= 0.0" in torch 1.x, "> 0.0" in 2.x)
    assert_raises_as_stock(lambda: torch.empty((1,), dtype=dtype).exponential_(-0.5),
                           "exponential_ expects lambda >")


# test_torch.py::test_exponential_no_zero (@onlyCUDA, dtypes half and float: 5e7
# samples, "naively, 0 in exponential can be generated with probability 2^-24"). Run
# here because the backend computes torch.cuda's exponential transform.
@dtypes(torch.float16, torch.float32)
def test_exponential_no_zero(dtype):
    x = torch.empty(50000000, dtype=dtype).exponential_()
    assert x.min().item() > 0


# test_torch.py's test_uniform_kstest, test_normal_kstest, test_lognormal_kstest,
# test_exponential_kstest and test_cauchy_kstest (dtypes: floating_types_and(half,
# bfloat16); test_normal_kstest's bfloat16 is CUDA's, which the backend fills as CUDA
# does): 1000 samples per parameter pair, scipy's KS statistic against the CDF below
# 0.1 (0.3 for float16 log-normals). Each case: fill, the CDF, the parameter pairs.
KS_CASES = {
    "uniform": (lambda t, a, b: t.uniform_(a, b),
                lambda a, b: lambda x: ((x - a) / (b - a)).clamp(0, 1),
                [(a, b) for a in [-42, 0, 4.2] for b in [-4.2, 0, 42] if b > a]),
    "normal": (lambda t, a, b: t.normal_(mean=a, std=b),
               normal_cdf,
               [(a, b) for a in [-10, 0, 50] for b in [1, 5, 10]]),
    "log_normal": (lambda t, a, b: t.log_normal_(mean=a, std=b),  # lognorm(s=std, scale=e^mean)
                   lambda a, b: lambda x: normal_cdf(a, b)(torch.log(x)),
                   [(a, b) for a in [-3, 0, 7] for b in [1, 5, 7]]),
    "exponential": (lambda t, a, _: t.exponential_(lambd=a),
                    lambda a, _: lambda x: (1 - torch.exp(-a * x)).clamp(min=0),
                    [(a, None) for a in [0.5, 1.0, 5.0]]),
    "cauchy": (lambda t, a, b: t.cauchy_(median=a, sigma=b),
               lambda a, b: lambda x: 0.5 + torch.atan((x - a) / b) / math.pi,
               [(a, b) for a in [-10, 0, 50] for b in [0.5, 1.0, 10.0]]),
}


@pytest.mark.parametrize("name", sorted(KS_CASES))
@dtypes(*FLOATS)
def test_kstest(name, dtype):
    fill, cdf, pairs = KS_CASES[name]
    limit = 0.3 if (name, dtype) == ("log_normal", torch.float16) else 0.1
    for a, b in pairs:
        t = fill(torch.empty(1000, dtype=dtype), a, b)
        d = ks_statistic(t, cdf(a, b))
        assert d < limit, (name, a, b, d)


# test_torch.py::test_cauchy (dtypes: floating_types_and(half, bfloat16)). Upstream
# (PyTorch >= 2.1) also asserts cauchy_(0.0, 0.0) raises; torch 1.13 accepts it
# (every value the median): below, whatever the torch in use does.
@dtypes(*FLOATS)
def test_cauchy(dtype):
    a = torch.tensor([10], dtype=dtype).cauchy_(0.0, 0.5)
    assert a.dtype == dtype
    assert a.size() == torch.Size([1])

    # Tests extremal behavior
    t = torch.empty((1,), dtype=dtype).cauchy_(float("inf"), 0.5)
    assert t.item() == float("inf")

    # sigma = 0: torch 1.x accepts it (all zeros), torch 2.x refuses it; the
    # backend does what the torch it serves does
    zero_sigma = lambda: torch.empty((100,), dtype=dtype).cauchy_(0.0, 0.0)  # noqa: E731
    if stock_outcome(zero_sigma) is None:
        assert (zero_sigma() == 0).all()
    else:
        assert_raises_as_stock(zero_sigma, "cauchy_ expects sigma > 0.0")


# test_torch.py::test_cauchy_no_inf (@slowTest @onlyCUDA, bfloat16 and float32: 2^33
# samples; run here as the backend computes CUDA's transform): a float32/bfloat16
# Cauchy sample is never inf. Here 2^24 samples each.
@dtypes(torch.bfloat16, torch.float32)
def test_cauchy_no_inf(dtype):
    x = torch.empty(1 << 24, dtype=dtype).cauchy_()
    assert not x.isinf().any()


# test_torch.py::test_geometric_kstest (dtypes: all_types_and(half, bfloat16)):
# chi-square of the histogram over 1..98; upstream asserts p-value 1.0 +- 0.1.
@dtypes(*ALL_TYPES_AND_HALF_BF16)
def test_geometric_kstest(dtype):
    size = 1000
    for p in [0.2, 0.5, 0.8]:
        t = torch.empty(size, dtype=dtype).geometric_(p=p)
        actual = np.histogram(t.to(torch.double).numpy(), np.arange(1, 100))[0]
        k = np.arange(1, 99)
        expected = (1 - p) ** (k - 1) * p * size
        statistic = float(((actual - expected) ** 2 / expected).sum())
        pvalue = torch.special.gammaincc(torch.tensor((len(k) - 1) / 2, dtype=torch.float64),
                                         torch.tensor(statistic / 2, dtype=torch.float64))
        assert abs(pvalue.item() - 1.0) <= 0.1, (p, statistic, pvalue.item())


# test_torch.py::test_generator_cpu (its first check, default_generator equal to
# itself, is dropped: it cannot fail). Upstream also compares q.normal_() with
# q.normal_(generator=g2), the same tensor q twice (always equal); here the first
# result is cloned so the two draws are really compared.
def test_generator_cpu():
    g1 = torch.Generator()
    g2 = torch.Generator()
    g1.manual_seed(12345)
    g2.manual_seed(12345)
    assert g1.initial_seed() == g2.initial_seed()
    assert_equal(torch.rand(10, generator=g1), torch.rand(10, generator=g2))

    g1.seed()
    g2.seed()
    assert g1.initial_seed() != g2.initial_seed()

    g1 = torch.Generator()
    g2_state = g2.get_state()
    g2_randn = torch.randn(1, generator=g2)
    g1.set_state(g2_state)
    g1_randn = torch.randn(1, generator=g1)
    assert_equal(g1_randn, g2_randn)

    default_state = torch.default_generator.get_state()
    q = torch.empty(100)
    g1_normal = q.normal_().clone()
    g2 = torch.Generator()
    g2.set_state(default_state)
    g2_normal = q.normal_(generator=g2)
    assert_equal(g1_normal, g2_normal)
    # and the default generator moved on while g2 replayed it
    assert not torch.equal(torch.empty(100).normal_(), g2_normal)


# test_torch.py::test_RNGState. Added: the backend's stream offset is restored too.
def test_RNGState():
    state = torch.get_rng_state()
    state_cloned = state.clone()
    offset = rt.get_offset()
    before = torch.rand(1000)

    assert state.ne(state_cloned).long().sum().item() == 0
    assert rt.get_offset() > offset

    torch.set_rng_state(state)
    assert rt.get_offset() == offset
    after = torch.rand(1000)
    assert_equal(before, after)


# test_torch.py::test_RNGStateAliasing
def test_RNGStateAliasing():
    # Fork the random number stream at this point
    gen = torch.Generator()
    gen.set_state(torch.get_rng_state())
    assert_equal(gen.get_state(), torch.get_rng_state())

    target_value = torch.rand(1000)
    # Dramatically alter the internal state of the main generator
    _ = torch.rand(100000)
    forked_value = torch.rand(1000, generator=gen)
    assert_equal(target_value, forked_value)


# test_torch.py::test_RNG_after_pickle
def test_RNG_after_pickle():
    torch.random.manual_seed(100)
    before = torch.rand(10)

    torch.random.manual_seed(100)
    buf = io.BytesIO()
    tensor = torch.tensor([1, 2, 3])
    ForkingPickler(buf, pickle.HIGHEST_PROTOCOL).dump(tensor)
    after = torch.rand(10)

    assert_equal(before, after)


# test_torch.py::test_boxMullerState (odd_number = 101). Added: 5, a size for which
# stock CPU normal_ goes through the generator's cached second Box-Muller normal.
@pytest.mark.parametrize("odd_number", [101, 5])
def test_boxMullerState(odd_number):
    torch.manual_seed(123)
    seeded = torch.randn(odd_number)
    state = torch.get_rng_state()
    midstream = torch.randn(odd_number)
    torch.set_rng_state(state)
    repeat_midstream = torch.randn(odd_number)
    torch.manual_seed(123)
    reseeded = torch.randn(odd_number)
    assert_equal(midstream, repeat_midstream)
    assert_equal(seeded, reseeded)
    assert not torch.equal(seeded, midstream)


# test_torch.py::test_boxMullerState's cached Box-Muller normal, across
# rt.uninstall(): stock CPU normal_ of fewer than 16 elements takes the generator's
# cached second normal first, the slot in which the backend keeps its offset, so
# uninstall() must empty it.
def test_boxMullerState_across_uninstall():
    torch.manual_seed(123)
    torch.randn(5)
    assert rt.get_offset() > 0
    rt.uninstall()
    try:
        assert torch.isfinite(torch.randn(5)).all()
    finally:
        rt.install()


# test_torch.py::test_manual_seed
def test_manual_seed():
    rng_state = torch.get_rng_state()
    torch.manual_seed(2)
    x = torch.randn(100)
    assert torch.initial_seed() == 2
    torch.manual_seed(2)
    y = torch.randn(100)
    assert_equal(x, y)

    max_int64 = 0x7FFF_FFFF_FFFF_FFFF
    min_int64 = -max_int64 - 1
    max_uint64 = 0xFFFF_FFFF_FFFF_FFFF
    # Check all boundary cases of valid seed value inputs
    test_cases = [
        # (seed, expected_initial_seed)
        # Positive seeds should be unchanged
        (max_int64, max_int64),
        (max_int64 + 1, max_int64 + 1),
        (max_uint64, max_uint64),
        (0, 0),
        # Negative seeds wrap around starting from the largest seed value
        (-1, max_uint64),
        (min_int64, max_int64 + 1),
    ]
    for seed, expected_initial_seed in test_cases:
        torch.manual_seed(seed)
        assert torch.initial_seed() == expected_initial_seed
        # and a seeded generator starts at the stream's beginning
        assert rt.get_offset() == 0
        first = torch.rand(8)
        torch.manual_seed(seed)
        assert_equal(torch.rand(8), first)
    for invalid_seed in [min_int64 - 1, max_uint64 + 1]:
        # RuntimeError in torch 1.x, ValueError in 2.x: whatever stock raises
        assert_raises_as_stock(lambda: torch.manual_seed(invalid_seed), r"Overflow")

    torch.set_rng_state(rng_state)


# test_cuda.py::test_manual_seed (CUDA generator; here the CPU one the backend
# serves as torch.cuda's): reseeding replays uniform_ and bernoulli.
def test_manual_seed_replays_uniform_and_bernoulli():
    x = torch.zeros(4, 4).float()
    torch.manual_seed(2)
    assert torch.initial_seed() == 2
    x.uniform_()
    a = torch.bernoulli(torch.full_like(x, 0.5))
    torch.manual_seed(2)
    y = x.clone().uniform_()
    b = torch.bernoulli(torch.full_like(x, 0.5))
    assert_equal(x, y)
    assert_equal(a, b)
    assert torch.initial_seed() == 2


# test_cuda.py::test_get_set_rng_state_all, for CPU generators: the default one and
# a torch.Generator, saved and restored together.
def test_get_set_rng_state_all():
    gen = torch.Generator().manual_seed(7)
    states = [torch.get_rng_state(), gen.get_state()]
    before0 = torch.FloatTensor(100).normal_()
    before1 = torch.FloatTensor(100).normal_(generator=gen)
    torch.set_rng_state(states[0])
    gen.set_state(states[1])
    after0 = torch.FloatTensor(100).normal_()
    after1 = torch.FloatTensor(100).normal_(generator=gen)
    assert_equal(before0, after0)
    assert_equal(before1, after1)
    assert not torch.equal(before0, before1)


# test_cuda.py::test_rng_state_offset (torch.cuda._set_rng_state_offset /
# _get_rng_state_offset), with the backend's rt.set_offset / rt.get_offset.
def test_rng_state_offset():
    before = torch.get_rng_state()
    rt.set_offset(100)
    offset = rt.get_offset()
    torch.set_rng_state(before)
    assert offset == 100
    assert rt.get_offset() == 0


# torch.random.fork_rng, as TestRandomTensorCreation.test_randperm uses it
# (test_tensor_creation_ops.py): draws inside the fork leave the outer stream where
# it was, so the same call outside gives the same values.
@pytest.mark.parametrize("op,philox", [
    pytest.param(lambda: torch.randperm(100), False, id="randperm"),  # torch's own mt19937
    pytest.param(lambda: torch.rand(1000), True, id="rand"),
    pytest.param(lambda: torch.randn(999, dtype=torch.float64), True, id="randn"),
    pytest.param(lambda: torch.randint(0, 1 << 40, (500,)), True, id="randint"),
    pytest.param(lambda: torch.bernoulli(torch.full((300,), 0.3)), True, id="bernoulli"),
    pytest.param(lambda: F.dropout(torch.ones(300), 0.4), True, id="dropout"),
])
def test_fork_rng(op, philox):
    offset = rt.get_offset()
    with torch.random.fork_rng(devices=[]):
        res1 = op()
        assert (rt.get_offset() > offset) == philox
    assert rt.get_offset() == offset
    res2 = op()
    assert_equal(res1, res2)
    assert not torch.equal(op(), res2)


# ---------------------------------------------------------------------------
# test_tensor_creation_ops.py: TestRandomTensorCreation / TestTensorCreation

# test_tensor_creation_ops.py::test_random (dtypes: float, double, int8, int16,
# int32, int64): "This test is flaky with p<=(2/(ub-lb))^200=6e-36".
@dtypes(torch.float32, torch.float64, torch.int8, torch.int16, torch.int32, torch.int64)
def test_random(dtype):
    t = torch.empty(200, dtype=dtype)
    lb = 1
    ub = 4

    t.fill_(-1)
    t.random_(lb, ub)
    assert t.min().item() == lb
    assert t.max().item() == ub - 1

    t.fill_(-1)
    t.random_(ub)
    assert t.min().item() == 0
    assert t.max().item() == ub - 1


# test_tensor_creation_ops.py::test_random_bool
def test_random_bool():
    size = 2000
    t = torch.empty(size, dtype=torch.bool)

    t.fill_(False)
    t.random_()
    assert t.min().item() is False
    assert t.max().item() is True
    assert 0.4 < t.eq(True).to(torch.int).sum().item() / size < 0.6

    t.fill_(True)
    t.random_()
    assert t.min().item() is False
    assert t.max().item() is True
    assert 0.4 < t.eq(True).to(torch.int).sum().item() / size < 0.6


def assert_spans(t, from_, to_, alpha):
    """t's values lie in [from_, to_) and reach within alpha * range of both ends
    (test_random_from_to / test_random_to; bfloat16 rounds, so its top may be to_)."""
    delta = max(1, alpha * (to_ - from_))
    lo = t.to(torch.double).min().item()
    hi = t.to(torch.double).max().item()
    assert from_ <= lo < (from_ + delta)
    if t.dtype == torch.bfloat16:
        assert (to_ - delta) < hi <= to_
    else:
        assert (to_ - delta) <= hi < to_


def assert_from_not_below_to(t, from_, to_):
    assert_raises_as_stock(
        lambda: t.random_(from_, to_),
        re.escape(f"random_ expects 'from' to be less than 'to', but got "
                  f"from={from_} >= to={to_}"))


# test_tensor_creation_ops.py::test_random_from_to_bool: test_random_from_to's checks
# with bool's bounds (random_bounds).
def test_random_from_to_bool():
    test_random_from_to(torch.bool)


def _fp_limit(dtype):
    return {torch.float64: 2**53, torch.float32: 2**24, torch.float16: 2**11,
            torch.bfloat16: 2**8}.get(dtype, 0)


# test_tensor_creation_ops.py::test_random_full_range (dtypes: all_types_and(bfloat16,
# half)).
@dtypes(*ALL_TYPES_AND_HALF_BF16)
def test_random_full_range(dtype):
    size = 2000
    alpha = 0.1
    fp_limit = _fp_limit(dtype)

    t = torch.empty(size, dtype=dtype)

    if dtype.is_floating_point:
        from_ = int(max(-fp_limit, INT64_MIN))
        to_inc_ = int(min(fp_limit, INT64_MAX))
    else:
        from_ = int(max(torch.iinfo(dtype).min, INT64_MIN))
        to_inc_ = int(min(torch.iinfo(dtype).max, INT64_MAX))
    range_ = to_inc_ - from_ + 1

    t.random_(from_, None)
    delta = max(1, alpha * range_)
    assert from_ <= t.to(torch.double).min().item() < (from_ + delta)
    assert (to_inc_ - delta) < t.to(torch.double).max().item() <= to_inc_


# random_(int64 min, None): random_from_to_impl's range = 2^64 branch (all 64 bits),
# which test_random_full_range reaches for int64 only; here also for double, float and
# bfloat16, the other types stock CPU's random_full_64_bits_range_kernel takes.
@dtypes(torch.int64, torch.float64, torch.float32, torch.bfloat16)
def test_random_full_64_bits_range(dtype):
    t = torch.empty(2000, dtype=dtype).random_(INT64_MIN, None).to(torch.double)
    assert t.min().item() < 0.8 * INT64_MIN
    assert t.max().item() > 0.8 * INT64_MAX
    assert (t < 0).sum().item() > 800 and (t > 0).sum().item() > 800


def random_bounds(dtype):
    """test_random_from_to / test_random_to: the dtype's value range and the
    from and to values they try (float64 past 2^53 included: stock warns and
    draws, so must the backend)."""
    if dtype == torch.bool:
        return (0, 1, [INT64_MIN, -42, -1, 0, 1, 2, 42], [-42, -1, 0, 1, 2, 42, INT64_MAX])
    if dtype.is_floating_point:
        if dtype == torch.bfloat16:
            min_val, max_val = INT64_MIN, INT64_MAX
        else:
            min_val = int(max(torch.finfo(dtype).min, INT64_MIN))
            max_val = int(min(torch.finfo(dtype).max, INT64_MAX))
        return min_val, max_val, [min_val, -42, 0, 42], [-42, 0, 42, max_val >> 1]
    if dtype == torch.int64:
        return INT64_MIN, INT64_MAX, [INT64_MIN, -42, 0, 42], [-42, 0, 42, INT64_MAX]
    min_val, max_val = torch.iinfo(dtype).min, torch.iinfo(dtype).max
    if dtype == torch.uint8:
        return (min_val, max_val,
                [INT64_MIN, -42, min_val - 1, min_val, 42, max_val, max_val + 1],
                [-42, min_val - 1, min_val, 42, max_val, max_val + 1, INT64_MAX])
    return (min_val, max_val,
            [INT64_MIN, min_val - 1, min_val, -42, 0, 42, max_val, max_val + 1],
            [min_val - 1, min_val, -42, 0, 42, max_val, max_val + 1, INT64_MAX])


# test_tensor_creation_ops.py::test_random_from_to (dtypes: all_types_and(bfloat16,
# half)). Out-of-range bounds of floating types warn instead of drawing checks.
@dtypes(*ALL_TYPES_AND_HALF_BF16)
def test_random_from_to(dtype):
    size = 2000
    alpha = 0.1
    min_val, max_val, froms, tos = random_bounds(dtype)

    fp_limit = _fp_limit(dtype)

    for from_ in froms:
        for to_ in tos:
            t = torch.empty(size, dtype=dtype)
            if to_ > from_:
                if not (min_val <= from_ <= max_val):
                    assert_raises_as_stock(lambda: t.random_(from_, to_), "from is out of bounds")
                elif not (min_val <= (to_ - 1) <= max_val):
                    assert_raises_as_stock(lambda: t.random_(from_, to_),
                                           "to - 1 is out of bounds")
                else:
                    if dtype.is_floating_point and (
                            not (-fp_limit <= from_ <= fp_limit)
                            or not (-fp_limit <= (to_ - 1) <= fp_limit)):
                        if not (-fp_limit <= from_ <= fp_limit):
                            with pytest.warns(UserWarning, match="from is out of bounds"):
                                t.random_(from_, to_)
                        if not (-fp_limit <= (to_ - 1) <= fp_limit):
                            with pytest.warns(UserWarning, match="to - 1 is out of bounds"):
                                t.random_(from_, to_)
                    else:
                        t.random_(from_, to_)
                        assert_spans(t, from_, to_, alpha)
            else:
                assert_from_not_below_to(t, from_, to_)


# test_tensor_creation_ops.py::test_random_to (dtypes: all_types_and(bfloat16, half)).
@dtypes(*ALL_TYPES_AND_HALF_BF16)
def test_random_to(dtype):
    size = 2000
    alpha = 0.1
    min_val, max_val, _, tos = random_bounds(dtype)

    from_ = 0
    for to_ in tos:
        t = torch.empty(size, dtype=dtype)
        if to_ > from_:
            if not (min_val <= (to_ - 1) <= max_val):
                assert_raises_as_stock(lambda: t.random_(from_, to_), "to - 1 is out of bounds")
            else:
                with warnings.catch_warnings():
                    # to - 1 past 2^digits of a floating type warns (test_random_from_to)
                    warnings.simplefilter("ignore", UserWarning)
                    t.random_(to_)
                assert_spans(t, from_, to_, alpha)
        else:
            assert_from_not_below_to(t, from_, to_)


# The float64 case of test_random_from_to / test_random_to on its own: past 2^53
# stock warns and draws.
def test_random_float64_past_2_53():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # stock's "to - 1 is out of bounds"
        assert stock_outcome(
            lambda: torch.empty(10, dtype=torch.float64).random_(0, 2**53 + 2)) is None
    t = torch.empty(2000, dtype=torch.float64)
    with pytest.warns(UserWarning, match="to - 1 is out of bounds"):
        t.random_(0, 2**53 + 2)
    assert t.min().item() >= 0 and t.max().item() <= 2**53 + 2
    assert t.max().item() > 0.9 * 2**53


# test_tensor_creation_ops.py::test_random_default (dtypes: all_types_and(bfloat16,
# half)).
@dtypes(*ALL_TYPES_AND_HALF_BF16)
def test_random_default(dtype):
    size = 2000
    alpha = 0.1

    if dtype == torch.float32:
        to_inc = 1 << 24
    elif dtype == torch.float64:
        to_inc = 1 << 53
    elif dtype == torch.float16:
        to_inc = 1 << 11
    elif dtype == torch.bfloat16:
        to_inc = 1 << 8
    else:
        to_inc = torch.iinfo(dtype).max

    t = torch.empty(size, dtype=dtype)
    t.random_()
    assert 0 <= t.to(torch.double).min().item() < alpha * to_inc
    assert (to_inc - alpha * to_inc) < t.to(torch.double).max().item() <= to_inc


# test_tensor_creation_ops.py::test_random_neg_values. Upstream asserts max <= 9 (a
# bound that could not catch a wrong sign); here the bound is the range's: -10 <= x < -1.
def test_random_neg_values():
    size = 10
    signed_dtypes = [torch.double, torch.float, torch.long, torch.int, torch.short]
    for dtype in signed_dtypes:
        res = torch.rand(size, size).to(dtype=dtype)
        res.random_(-10, -1)
        assert res.max().item() <= -2
        assert res.min().item() >= -10


# test_tensor_creation_ops.py::test_normal (dtypes: float, double; "TODO: add
# torch.complex64, torch.complex128"). q is filled with a sentinel (upstream compares
# uninitialised memory) to check that normal_ of a row leaves the other rows alone.
@dtypes(torch.float32, torch.float64)
def test_normal(dtype):
    def close(actual, expected, atol):
        assert abs(float(actual) - float(expected)) <= atol, (float(actual), expected, atol)

    def helper(ptype, t_transform, std_transform):
        q = torch.empty(100, 100, dtype=dtype)

        q.normal_()
        close(t_transform(q).mean(), 0, 0.2)
        close(t_transform(q).std(), std_transform(1), 0.2)

        q.normal_(2, 3)
        close(t_transform(q).mean(), 2, 0.3)
        close(t_transform(q).std(), std_transform(3), 0.3)

        q = torch.full((100, 100), 42, dtype=dtype)
        q_row1 = q[0:1].clone()
        q[99:100].normal_()
        close(t_transform(q[99:100]).mean(), 0, 0.2)
        close(t_transform(q[99:100]).std(), std_transform(1), 0.2)
        assert_equal(t_transform(q[0:99]), t_transform(torch.full((99, 100), 42, dtype=dtype)))
        assert_equal(t_transform(q[0:1]).clone(), t_transform(q_row1))

        mean = torch.empty(100, 100, dtype=dtype)
        mean[:50].fill_(ptype(0))
        mean[50:].fill_(ptype(1))

        std = torch.empty(100, 100, dtype=torch.float)
        std[:, :50] = 4
        std[:, 50:] = 1

        r = torch.normal(mean)
        assert r.dtype == dtype
        assert str(r.device) == "cpu"
        close(t_transform(r[:50]).mean(), 0, 0.2)
        close(t_transform(r[50:]).mean(), 1, 0.2)
        close(t_transform(r).std(), std_transform(1), 0.2)

        r.fill_(42)
        r = torch.normal(mean, 3)
        assert r.dtype == dtype
        close(t_transform(r[:50]).mean(), 0, 0.2)
        close(t_transform(r[50:]).mean(), 1, 0.2)
        close(t_transform(r).std(), std_transform(3), 0.2)

        r.fill_(42)
        torch.normal(mean, 3, out=r)
        assert r.dtype == dtype
        close(t_transform(r[:50]).mean(), 0, 0.2)
        close(t_transform(r[50:]).mean(), 1, 0.2)
        close(t_transform(r).std(), std_transform(3), 0.2)

        r.fill_(42)
        r = torch.normal(2, std)
        assert not r.dtype.is_complex
        close(r.mean(), 2, 0.2)
        close(r[:, :50].std(), 4, 0.3)
        close(r[:, 50:].std(), 1, 0.2)

        r.fill_(42)
        torch.normal(2, std, out=r)
        assert not r.dtype.is_complex
        close(r.mean(), 2, 0.2)
        close(r[:, :50].std(), 4, 0.3)
        close(r[:, 50:].std(), 1, 0.2)

        r.fill_(42)
        r = torch.normal(mean, std)
        assert r.dtype == dtype
        close(t_transform(r[:50]).mean(), 0, 0.2)
        close(t_transform(r[50:]).mean(), 1, 0.2)
        close(t_transform(r[:, :50]).std(), std_transform(4), 0.3)
        close(t_transform(r[:, 50:]).std(), std_transform(1), 0.2)

        r.fill_(42)
        torch.normal(mean, std, out=r)
        assert r.dtype == dtype
        close(t_transform(r[:50]).mean(), 0, 0.2)
        close(t_transform(r[50:]).mean(), 1, 0.2)
        close(t_transform(r[:, :50]).std(), std_transform(4), 0.3)
        close(t_transform(r[:, 50:]).std(), std_transform(1), 0.2)

        # test empty mean/std
        out = torch.normal(mean=torch.empty((0, 2)), std=torch.empty((0, 1)))
        assert out.size() == torch.Size([0, 2])

        r.fill_(42)
        r = torch.normal(2, 3, (100, 100), dtype=dtype)
        assert r.dtype == dtype
        close(t_transform(r).mean(), 2, 0.3)
        close(t_transform(r).std(), std_transform(3), 0.3)

        r.fill_(42)
        torch.normal(2, 3, (100, 100), dtype=dtype, out=r)
        assert r.dtype == dtype
        close(t_transform(r).mean(), 2, 0.3)
        close(t_transform(r).std(), std_transform(3), 0.3)

        # float std 0 with float mean
        r.fill_(42)
        torch.normal(2, 0, (10, 10), dtype=dtype, out=r)
        assert r.dtype == dtype
        assert r.eq(2).all()

        # float std 0 with tensor mean
        r.fill_(42)
        mean_rand = torch.randn(10, 10, dtype=dtype)
        torch.normal(mean_rand, 0, out=r)
        assert r.dtype == dtype
        assert_equal(mean_rand, r)

        # tensor std 0 with float mean
        r.fill_(42)
        std_zeros = torch.zeros(10, 10, dtype=dtype)
        torch.normal(2, std_zeros, out=r)
        assert r.dtype == dtype
        assert r.eq(2).all()

        # tensor std 0 with tensor mean
        r.fill_(42)
        torch.normal(mean_rand, std_zeros, out=r)
        assert r.dtype == dtype
        assert_equal(mean_rand, r)

    # upstream's complex branch (complex dtypes are a TODO there) is not ported
    helper(lambda x: x, lambda t: t, lambda mean: mean)


# test_tensor_creation_ops.py::test_normal's "test empty mean/std" broadcast, with
# non-empty operands: mean and std broadcast against each other (and against out=).
def test_normal_broadcast():
    mean = torch.tensor([[0.0], [100.0], [-100.0]])
    std = torch.tensor([[1.0, 2.0, 4.0, 8.0]])
    r = torch.normal(mean.expand(3, 2000).contiguous(), std.repeat(1, 500))
    assert r.shape == (3, 2000)
    r = torch.normal(mean, std.repeat(1, 1000))
    assert r.shape == (3, 4000)
    for row, m in enumerate([0.0, 100.0, -100.0]):
        for col, s in enumerate([1.0, 2.0, 4.0, 8.0]):
            x = r[row, col::4]
            assert abs(x.mean().item() - m) < 0.2 * s and abs(x.std().item() - s) < 0.1 * s
    out = torch.empty(0)
    torch.normal(mean, std, out=out)
    assert out.shape == (3, 4)
    assert ((out - mean).abs() < 10 * std).all()
    assert_raises_as_stock(lambda: torch.normal(torch.zeros(3), torch.ones(4)))


# test_tensor_creation_ops.py::test_normal_std_error. Added: the tensor-mean/float-std
# and tensor/tensor overloads and normal_.
def test_normal_std_error():
    a = torch.tensor(0, dtype=torch.float32)
    std = torch.tensor(-1, dtype=torch.float32)

    for input in [0, a]:
        assert_raises_as_stock(lambda: torch.normal(input, -1, (10,)),
                               r"normal expects std >= 0.0, but found std")
        assert_raises_as_stock(lambda: torch.normal(input, std),
                               r"normal expects all elements of std >= 0.0")
    assert_raises_as_stock(lambda: torch.normal(torch.zeros(3), -1.0),
                           r"normal expects std >= 0.0, but found std")
    assert_raises_as_stock(lambda: torch.normal(torch.zeros(3), torch.tensor([1.0, -1.0, 1.0])),
                           r"normal expects all elements of std >= 0.0")
    assert_raises_as_stock(lambda: torch.empty(3).normal_(0, -1),
                           r"normal expects std >= 0.0, but found std")


# test_tensor_creation_ops.py::test_uniform_from_to (dtypes: float, double, half;
# dtypesIfCUDA adds bfloat16). Upstream skips the value checks for half on CPU and
# for bfloat16; the backend computes torch.cuda's uniform, so half gets the CUDA
# checks; bfloat16 keeps only the error paths, as upstream.
@dtypes(torch.float32, torch.float64, torch.float16, torch.bfloat16)
def test_uniform_from_to(dtype):
    size = 2000
    alpha = 0.1

    float_min = torch.finfo(torch.float).min
    float_max = torch.finfo(torch.float).max
    double_min = torch.finfo(torch.double).min
    double_max = torch.finfo(torch.double).max

    if dtype == torch.bfloat16:
        min_val = -3.389531389251535e+38
        max_val = 3.389531389251535e+38
    else:
        min_val = torch.finfo(dtype).min
        max_val = torch.finfo(dtype).max

    values = [double_min, float_min, -42, 0, 42, float_max, double_max]
    checked = 0

    for from_ in values:
        for to_ in values:
            t = torch.empty(size, dtype=dtype)
            if not (min_val <= from_ <= max_val) or not (min_val <= to_ <= max_val):
                # upstream passes; the bound check is the template's, as stock's
                assert_raises_as_stock(lambda: t.uniform_(from_, to_), "is out of bounds for")
            elif to_ < from_:
                assert_raises_as_stock(lambda: t.uniform_(from_, to_),
                                       re.escape("uniform_ expects to return a [from, to) range"))
            elif to_ - from_ > max_val:
                assert_raises_as_stock(lambda: t.uniform_(from_, to_), "uniform_ expects to-from")
            else:
                t.uniform_(from_, to_)
                range_ = to_ - from_
                if dtype != torch.bfloat16 and not torch.isnan(t).all():
                    checked += 1
                    delta = alpha * range_
                    double_t = t.to(torch.double)
                    if range_ == 0:
                        assert double_t.min().item() == from_
                        assert double_t.max().item() == to_
                    elif dtype == torch.float16:
                        assert from_ <= double_t.min().item() <= (from_ + delta)
                        assert (to_ - delta) <= double_t.max().item() <= to_
                    else:
                        assert from_ <= double_t.min().item() <= (from_ + delta)
                        assert (to_ - delta) <= double_t.max().item() < to_
    assert checked > 0 or dtype == torch.bfloat16


# test_tensor_creation_ops.py::test_randint_inference (@onlyCPU)
def test_randint_inference():
    size = (2, 1)
    for args in [(3,), (1, 3)]:  # (low,) and (low, high)
        assert torch.randint(*args, size=size).dtype is torch.int64
        assert torch.randint(*args, size=size, layout=torch.strided).dtype is torch.int64
        assert torch.randint(*args, size=size,
                             generator=torch.default_generator).dtype is torch.int64
        assert torch.randint(*args, size=size, dtype=torch.float32).dtype is torch.float32
        out = torch.empty(size, dtype=torch.float32)
        assert torch.randint(*args, size=size, out=out).dtype is torch.float32
        assert torch.randint(*args, size=size, out=out, dtype=torch.float32).dtype \
            is torch.float32
        out = torch.empty(size, dtype=torch.int64)
        assert torch.randint(*args, size=size, out=out).dtype is torch.int64
        assert torch.randint(*args, size=size, out=out, dtype=torch.int64).dtype is torch.int64
        value = torch.randint(*args, size=(1000,))
        assert value.min().item() >= (args[0] if len(args) == 2 else 0)
        assert value.max().item() < args[-1]


# test_tensor_creation_ops.py::test_randint (@onlyCPU)
def test_randint():
    size = 100

    def seed(generator):
        if generator is None:
            torch.manual_seed(123456)
        else:
            generator.manual_seed(123456)
        return generator

    for generator in (None, torch.Generator()):
        generator = seed(generator)
        res1 = torch.randint(0, 6, (size, size), generator=generator)
        res2 = torch.empty((), dtype=torch.int64)
        generator = seed(generator)
        torch.randint(0, 6, (size, size), generator=generator, out=res2)
        generator = seed(generator)
        res3 = torch.randint(6, (size, size), generator=generator)
        res4 = torch.empty((), dtype=torch.int64)
        generator = seed(generator)
        torch.randint(6, (size, size), out=res4, generator=generator)
        assert_equal(res1, res2)
        assert_equal(res1, res3)
        assert_equal(res1, res4)
        assert_equal(res2, res3)
        assert_equal(res2, res4)
        assert_equal(res3, res4)
        assert (res1 < 6).all().item()
        assert (res1 >= 0).all().item()
        assert res1.unique().numel() == 6


# generator= on every operator the backend serves (test_randint's loop over None and a
# torch.Generator, test_generator_cpu): two generators seeded alike give the same
# values, and the default generator does not move.
@pytest.mark.parametrize("op", [
    pytest.param(lambda g: torch.empty(50).uniform_(generator=g), id="uniform_"),
    pytest.param(lambda g: torch.empty(50).normal_(generator=g), id="normal_"),
    pytest.param(lambda g: torch.empty(50).bernoulli_(0.5, generator=g), id="bernoulli_"),
    pytest.param(lambda g: torch.empty(50).bernoulli_(torch.full((50,), 0.5), generator=g),
                 id="bernoulli_tensor"),
    pytest.param(lambda g: torch.bernoulli(torch.full((50,), 0.5), generator=g),
                 id="bernoulli"),
    pytest.param(lambda g: torch.empty(50).random_(generator=g), id="random_"),
    pytest.param(lambda g: torch.empty(50).random_(100, generator=g), id="random_to"),
    pytest.param(lambda g: torch.empty(50).random_(3, 100, generator=g), id="random_from"),
    pytest.param(lambda g: torch.empty(50).exponential_(generator=g), id="exponential_"),
    pytest.param(lambda g: torch.empty(50).geometric_(0.3, generator=g), id="geometric_"),
    pytest.param(lambda g: torch.empty(50).cauchy_(generator=g), id="cauchy_"),
    pytest.param(lambda g: torch.empty(50).log_normal_(generator=g), id="log_normal_"),
    pytest.param(lambda g: torch.rand(50, generator=g), id="rand"),
    pytest.param(lambda g: torch.randn(50, generator=g), id="randn"),
    pytest.param(lambda g: torch.randint(0, 9, (50,), generator=g), id="randint"),
    pytest.param(lambda g: torch.normal(torch.zeros(50), torch.ones(50), generator=g),
                 id="normal_tensor_tensor"),
    pytest.param(lambda g: torch.normal(torch.zeros(50), 1.0, generator=g),
                 id="normal_tensor_float"),
    pytest.param(lambda g: torch.normal(0.0, torch.ones(50), generator=g),
                 id="normal_float_tensor"),
    pytest.param(lambda g: torch.normal(0.0, 1.0, (50,), generator=g), id="normal_size"),
])
def test_generator_argument(op):
    default_offset = rt.get_offset()
    g1 = torch.Generator().manual_seed(5)
    first = op(g1)
    assert rt.get_offset(g1) > 0
    g2 = torch.Generator().manual_seed(5)
    assert_equal(op(g2), first)
    assert not torch.equal(op(g2), first)
    assert rt.get_offset() == default_offset


def factory_with_and_without_out(factory, dtype):
    """test_randn / test_rand: factory(n, n) after a reseed equals factory(n, n,
    out=...) for n = 0 and 100; returns the 100 x 100 values' real parts."""
    for n in [0, 100]:
        torch.manual_seed(123456)
        res1 = factory(n, n, dtype=dtype)
        res2 = torch.tensor([], dtype=dtype)
        torch.manual_seed(123456)
        factory(n, n, out=res2)
        assert_equal(res1, res2)
    return torch.view_as_real(res1) if dtype.is_complex else res1


# test_tensor_creation_ops.py::test_randn (dtypes: half, float, bfloat16, double,
# complex32, complex64, complex128).
@dtypes(torch.float16, torch.float32, torch.bfloat16, torch.float64, torch.complex32,
        torch.complex64, torch.complex128)
def test_randn(dtype):
    parts = factory_with_and_without_out(torch.randn, dtype)
    assert torch.isfinite(parts).all()


# test_tensor_creation_ops.py::test_rand (dtypes: float, double, complex32, complex64,
# complex128). Added: float16 and bfloat16, and the [0, 1) range.
@dtypes(torch.float32, torch.float64, torch.complex32, torch.complex64, torch.complex128,
        torch.float16, torch.bfloat16)
def test_rand(dtype):
    parts = factory_with_and_without_out(torch.rand, dtype)
    assert (parts >= 0).all() and (parts < 1).all()


# test_tensor_creation_ops.py::test_like_fn_stride_proparation_vs_tensoriterator_unary_op:
# randint_like, randn_like and rand_like follow TensorIterator's stride propagation
# (as exp does) on dense, sliced, gapped, 0-strided and overlapping inputs. Added:
# their values are in range.
def test_like_fn_stride_proparation_vs_tensoriterator_unary_op():
    def compare_helper_(like_fn, t):
        te = torch.exp(t)
        tl = like_fn(t)
        assert te.stride() == tl.stride()
        assert te.size() == tl.size()
        return tl

    like_fns = [
        (lambda t, **kwargs: torch.randint_like(t, 10, 100, **kwargs), (10, 99)),
        (lambda t, **kwargs: torch.randint_like(t, 100, **kwargs), (0, 99)),
        (lambda t, **kwargs: torch.randn_like(t, **kwargs), None),
        (lambda t, **kwargs: torch.rand_like(t, **kwargs), (0, 1)),
    ]

    tset = (
        torch.randn(4, 3, 2),
        torch.randn(4, 3, 2)[:, :, ::2],
        torch.empty_strided((4, 3, 2), (10, 3, 1)).fill_(1.0),
        torch.empty_strided((4, 3, 2), (10, 0, 3)).fill_(1.0),
        torch.empty_strided((4, 3, 2), (10, 1, 2)).fill_(1.0),
        torch.empty_strided((4, 3, 2), (4, 2, 1))[:, :, ::2].fill_(1.0),
        torch.empty_strided((4, 3, 2), (10, 1, 1)).fill_(1.0),
        torch.empty_strided((4, 1, 1, 2), (10, 0, 0, 2)).fill_(1.0),
        torch.empty_strided((4, 2, 3), (10, 3, 3)).fill_(1.0))

    for like_fn, bounds in like_fns:
        for t in tset:
            for p in itertools.permutations(range(t.dim())):
                tl = compare_helper_(like_fn, t.permute(p))
                assert torch.isfinite(tl).all()
                if bounds is not None:
                    assert tl.min().item() >= bounds[0] and tl.max().item() <= bounds[1]
                    if bounds == (0, 1):
                        assert tl.max().item() < 1


# test_tensor_creation_ops.py::test_empty_like (@onlyCPU) with the random *_like
# functions: shape and dtype follow the input (or dtype=).
def test_empty_like():
    x = torch.tensor([])
    y = torch.randn(4, 4)
    z = torch.IntTensor([1, 2, 3])
    for a in (x, y, z):
        assert torch.empty_like(a).shape == a.shape
        assert torch.empty_like(a).dtype == a.dtype
        assert torch.randint_like(a, 5).shape == a.shape
        assert torch.randint_like(a, 5).dtype == a.dtype
    for a in (x, y):
        for fn in (torch.rand_like, torch.randn_like):
            assert fn(a).shape == a.shape and fn(a).dtype == a.dtype
    assert torch.rand_like(z, dtype=torch.float64).dtype == torch.float64
    assert_raises_as_stock(lambda: torch.rand_like(z), "not implemented for 'Int'")
    assert_raises_as_stock(lambda: torch.randn_like(z), "not implemented for 'Int'")


# ---------------------------------------------------------------------------
# test/nn/test_dropout.py (test_nn.py in torch 1.13): TestDropoutNN and
# TestDropoutNNDeviceType

def _test_dropout(cls, input, memory_format=torch.contiguous_format):
    p = 0.2
    input = input.fill_(1 - p)

    module = cls(p)
    input_var = input.clone(memory_format=memory_format).requires_grad_()
    output = module(input_var)
    assert output.is_contiguous(memory_format=memory_format)
    assert abs(output.data.mean().item() - (1 - p)) < 0.05
    output.backward(input)
    assert input_var.grad.is_contiguous(memory_format=memory_format)
    assert abs(input_var.grad.data.mean().item() - (1 - p)) < 0.05

    module = cls(p, True)
    input_var = input.clone(memory_format=memory_format).requires_grad_()
    output = module(input_var + 0)
    assert output.is_contiguous(memory_format=memory_format)
    assert abs(output.data.mean().item() - (1 - p)) < 0.05
    output.backward(input)
    assert input_var.grad.is_contiguous(memory_format=memory_format)
    assert abs(input_var.grad.data.mean().item() - (1 - p)) < 0.05

    # check eval mode doesn't change anything
    for inplace in [True, False]:
        module = cls(p, inplace).eval()
        assert_equal(input, module(input))

    # Check that these don't raise errors
    module.__repr__()
    str(module)


def _test_dropout_discontiguous(cls, memory_format=torch.contiguous_format):
    # dropout preserves the layout and data for different memory formats: the same
    # values when the probability of dropout is 0 or very close to 0 (pytorch#47176).
    close_to_zero_p = 1e-10  # almost zero but not zero: for p=0 a different path is taken
    for p in [0, close_to_zero_p]:
        inp = torch.ones(2, 3, 3, 3)
        inp_discontiguous = torch.empty(2, 3, 3, 6, memory_format=memory_format)[..., ::2]
        inp_discontiguous.copy_(inp)
        mod = cls(p=p)
        out = mod(inp_discontiguous)
        if p != 0:  # Zero will keep strides as is based on input.
            assert out.is_contiguous(memory_format=memory_format)
        assert_equal(inp_discontiguous, out)


def _test_dropout_stride_mean_preserve(cls):
    def invert_perm(p):
        d = {x: i for i, x in enumerate(p)}
        return (d[0], d[1], d[2], d[3])

    inp = torch.ones(2, 3, 4, 5)
    shifts = [(0, 0), (1, 0), (0, 1), (1, 1)]
    for perm in itertools.permutations((0, 1, 2, 3), r=4):
        for shift in shifts:
            for p in [1e-10, 0.3, 0.5, 0.7]:
                mod = cls(p=p)
                permuted_inp = inp.permute(perm).contiguous().permute(invert_perm(perm))
                permuted_inp = permuted_inp[shift[0]:, shift[1]:, :, :]
                out = mod(permuted_inp)

                assert out.permute(perm).is_contiguous()
                assert abs(inp.mean().item() - out.mean().item()) <= 0.5 + 0.5 * abs(
                    out.mean().item())
                if p == 1e-10:
                    assert_equal(permuted_inp, out)
                else:
                    assert not torch.equal(permuted_inp, out)


# test_dropout.py::test_Dropout
def test_Dropout():
    input = torch.empty(1000)
    _test_dropout(nn.Dropout, input)

    _test_dropout_discontiguous(nn.Dropout)
    _test_dropout_discontiguous(nn.Dropout, memory_format=torch.channels_last)

    _test_dropout_stride_mean_preserve(nn.Dropout)

    input = input.bfloat16()
    _test_dropout(nn.Dropout, input)


def _test_dropoutNd_no_batch(dropout, input):
    # common_nn.freeze_rng_state: torch.get_rng_state() ... torch.set_rng_state()
    input_clone = input.clone()
    state = torch.get_rng_state()
    res_no_batch = dropout(input)
    torch.set_rng_state(state)
    res_batched = dropout(input_clone.unsqueeze(0)).squeeze(0)
    torch.set_rng_state(state)
    assert_equal(res_no_batch, res_batched)
    assert (res_no_batch == 0).any() and (res_no_batch != 0).any()


def _test_dropoutNd_channel_zero(dropout, input):
    # the number of zeros in a channel is 0 or the number of elements in the channel
    # for a fully positive input tensor
    shape = input.shape
    B, C = shape[0], shape[1]
    channel_numel = torch.tensor(shape[2:]).prod().item()
    result = dropout(input)
    counts = {result[b, c].count_nonzero().item() for b, c in itertools.product(range(B),
                                                                              range(C))}
    assert counts <= {0, channel_numel}
    assert counts == {0, channel_numel}  # 40 channels at p = 0.5: both occur


# test_dropout.py::test_Dropout1d (dtypes: double)
def test_Dropout1d():
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.double)
    try:
        N, C, L = 15, 15, 15  # upstream: random.randint(10, 15) each
        input = torch.empty(N, C, L)
        _test_dropout(nn.Dropout1d, input)

        with pytest.raises(RuntimeError, match="Expected 2D or 3D input, but received a 4D input"):
            nn.Dropout1d(p=0.5)(torch.rand(1, 2, 2, 2))
        with pytest.raises(RuntimeError, match="Expected 2D or 3D input, but received a 1D input"):
            nn.Dropout1d(p=0.5)(torch.rand(2))

        # no batch dims
        input = torch.rand(50, 2)
        _test_dropoutNd_no_batch(nn.Dropout1d(p=0.5), input)
        _test_dropoutNd_no_batch(nn.Dropout1d(p=0.5, inplace=True), input)

        # check that complete channels are dropped
        input = torch.ones(10, 4, 2)
        _test_dropoutNd_channel_zero(nn.Dropout1d(p=0.5), input)
        _test_dropoutNd_channel_zero(nn.Dropout1d(p=0.5, inplace=True), input)
    finally:
        torch.set_default_dtype(default)


# test_dropout.py::test_Dropout2d (the deprecation warnings for 5-D/2-D/3-D inputs
# are Python-side and not ported).
def test_Dropout2d():
    b, w, h = 3, 4, 2
    num_features = 1000
    input = torch.empty(num_features, b, w, h)
    _test_dropout(nn.Dropout2d, input)
    _test_dropout(nn.Dropout2d, input, memory_format=torch.channels_last)

    _test_dropout_discontiguous(nn.Dropout2d)
    _test_dropout_discontiguous(nn.Dropout2d, memory_format=torch.channels_last)

    # check that complete channels are dropped
    input = torch.ones(10, 4, 2, 2)
    _test_dropoutNd_channel_zero(nn.Dropout2d(p=0.5), input)
    _test_dropoutNd_channel_zero(nn.Dropout2d(p=0.5, inplace=True), input)


# test_dropout.py::test_Dropout3d
def test_Dropout3d():
    b, w, h, d = 3, 4, 2, 2
    num_features = 1000
    input = torch.empty(num_features, b, d, w, h)
    _test_dropout(nn.Dropout3d, input)

    _test_dropout_discontiguous(nn.Dropout3d)
    _test_dropout_discontiguous(nn.Dropout3d, memory_format=torch.channels_last)

    # no batch dims
    input = torch.rand(50, 2, 2, 2)
    _test_dropoutNd_no_batch(nn.Dropout3d(p=0.5), input)
    _test_dropoutNd_no_batch(nn.Dropout3d(p=0.5, inplace=True), input)

    # check that complete channels are dropped
    input = torch.ones(10, 4, 2, 2, 2)
    _test_dropoutNd_channel_zero(nn.Dropout3d(p=0.5), input)
    _test_dropoutNd_channel_zero(nn.Dropout3d(p=0.5, inplace=True), input)


# test_dropout.py::test_empty_dropout
def test_empty_dropout():
    x = torch.tensor([])
    out = torch.nn.functional.dropout(x)
    assert out.size() == x.size()
    output, mask = torch.native_dropout(x, 0.5, True)
    assert output.size() == x.size() and mask.size() == x.size()


# test_dropout.py::test_native_dropout_corner_case (upstream loops over the CUDA or
# PrivateUse1 device and "cpu"; here the CPU served by the backend).
def test_native_dropout_corner_case():
    for train in [True, False]:
        for p in [0.0, 1.0]:
            x = torch.randn(5).requires_grad_()
            x_ref = x.detach().requires_grad_()
            o = torch.native_dropout(x, p, train)[0]
            o_ref = torch.dropout(x_ref, p, train)
            o.sum().backward()
            o_ref.sum().backward()
            assert o.equal(o_ref)
            assert x.grad.equal(x_ref.grad)


# Added next to test_native_dropout_corner_case (no upstream test of its own): for
# 0 < p < 1, native_dropout's output is x * mask / (1 - p) and its backward
# (native_dropout_backward) uses the same mask and scale.
@dtypes(*FLOATS)
def test_native_dropout(dtype):
    p = 0.3
    x = torch.ones(4000, dtype=dtype, requires_grad=True)
    output, mask = torch.native_dropout(x, p, True)
    assert mask.dtype == torch.bool and output.dtype == dtype
    scale = torch.tensor(1 / (1 - p), dtype=dtype)
    assert_equal(output, torch.where(mask, scale, torch.zeros((), dtype=dtype)).detach())
    assert abs(mask.float().mean().item() - (1 - p)) < 0.05
    output.sum().backward()
    assert_equal(x.grad, torch.where(mask, scale, torch.zeros((), dtype=dtype)))
    # train=False: identity, all kept
    output, mask = torch.native_dropout(x, p, False)
    assert_equal(output.detach(), x.detach())
    assert mask.all()


# test_dropout.py::test_invalid_dropout_p
def test_invalid_dropout_p():
    v = torch.ones(1)
    with pytest.raises(ValueError):
        nn.Dropout(-0.1)
    with pytest.raises(ValueError):
        nn.Dropout(1.1)
    with pytest.raises(ValueError):
        nn.Dropout1d(-0.1)
    with pytest.raises(ValueError):
        nn.Dropout2d(1.1)
    with pytest.raises(ValueError):
        nn.Dropout3d(-0.1)
    assert_raises_as_stock(lambda: F.dropout(v, -0.1), "dropout probability has to be between")
    assert_raises_as_stock(lambda: F.dropout(v, 1.1), "dropout probability has to be between")


# test_dropout.py::test_AlphaDropout / test_FeatureAlphaDropout (_test_alpha_dropout):
# output mean and std close to the input's.
def _test_alpha_dropout(cls, input):
    mean = input.mean()
    std = input.std()

    for p in [0.2, 0.5, 0.8]:
        module = cls(p)
        input_var = input.detach().clone().requires_grad_()
        output = module(input_var)
        # output mean should be close to input mean
        assert abs(output.data.mean().item() - mean.item()) < 0.1
        # output std should be close to input std
        assert abs(output.data.std().item() - std.item()) < 0.1
        output.backward(input)


def test_AlphaDropout():
    # generate random tensor with zero mean and unit std
    input = torch.randn(5000)
    _test_alpha_dropout(nn.AlphaDropout, input)


def test_FeatureAlphaDropout():
    b, w, h, d = 2, 3, 4, 2
    num_features = 1000
    input = torch.randn(num_features, b, d, w, h)
    _test_alpha_dropout(nn.FeatureAlphaDropout, input)

    # no batch dims
    input = torch.randn(50, 20, 16, 16)
    _test_alpha_dropout(nn.FeatureAlphaDropout, input)


# ---------------------------------------------------------------------------
# test/distributions/test_distributions.py (samplers; upstream compares against
# SciPy's samplers with _check_sampler_sampler: here first and second moments)

# test_distributions.py::test_gamma_sample / test_dirichlet_sample: torch's own
# _standard_gamma and _sample_dirichlet (which read the generator slot where the
# backend keeps its offset) give right samples and leave the offset alone.
def test_gamma_and_dirichlet_sample():
    torch.manual_seed(0)
    torch.rand(7)
    offset = rt.get_offset()
    assert offset > 0
    for alpha in [0.5, 2.0, 8.0]:
        x = torch.distributions.Gamma(torch.full((20000,), alpha), torch.tensor(1.0)).sample()
        assert torch.isfinite(x).all() and (x > 0).all()
        assert abs(x.mean().item() - alpha) < 0.05 * alpha + 0.02
        assert abs(x.var().item() - alpha) < 0.1 * alpha + 0.02
    d = torch.distributions.Dirichlet(torch.tensor([1.0, 2.0, 3.0])).sample((5000,))
    assert torch.isfinite(d).all()
    assert_equal(d.sum(-1).sub(1).abs().lt(1e-5), torch.ones(5000, dtype=torch.bool))
    assert (d.mean(0) - torch.tensor([1 / 6, 2 / 6, 3 / 6])).abs().max().item() < 0.02
    assert rt.get_offset() == offset
    after = torch.rand(3)
    torch.manual_seed(0)
    torch.rand(7)
    assert_equal(torch.rand(3), after)


# test_distributions.py samplers (test_normal_sample, test_uniform, test_bernoulli,
# test_exponential_sample, test_geometric_sample, test_lognormal_sample,
# test_cauchy): torch.distributions draws through normal / uniform_ / bernoulli /
# exponential_ / cauchy_; sample moments (medians for Cauchy) of 20000 draws.
@pytest.mark.parametrize("make,mean,var", [
    pytest.param(lambda: torch.distributions.Normal(torch.tensor(1.5), torch.tensor(2.0)),
                 1.5, 4.0, id="Normal"),
    pytest.param(lambda: torch.distributions.Uniform(torch.tensor(-1.0), torch.tensor(3.0)),
                 1.0, 16 / 12, id="Uniform"),
    pytest.param(lambda: torch.distributions.Bernoulli(torch.tensor(0.3)),
                 0.3, 0.21, id="Bernoulli"),
    pytest.param(lambda: torch.distributions.Exponential(torch.tensor(2.0)),
                 0.5, 0.25, id="Exponential"),
    pytest.param(lambda: torch.distributions.Geometric(torch.tensor(0.25)),
                 3.0, 12.0, id="Geometric"),
    pytest.param(lambda: torch.distributions.LogNormal(torch.tensor(0.0), torch.tensor(0.5)),
                 math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25), id="LogNormal"),
])
def test_distribution_sample_moments(make, mean, var):
    x = make().sample((20000,)).double()
    assert abs(x.mean().item() - mean) < 0.05 * math.sqrt(var) + 0.01
    assert abs(x.var().item() - var) < 0.1 * var


def test_cauchy_distribution_sample():
    x = torch.distributions.Cauchy(torch.tensor(3.0), torch.tensor(2.0)).sample((20000,))
    assert abs(x.median().item() - 3.0) < 0.1
    q = torch.quantile(x, torch.tensor([0.25, 0.75]))
    assert_equal((q - torch.tensor([1.0, 5.0])).abs().lt(0.15), torch.tensor([True, True]))


# ---------------------------------------------------------------------------
# Error paths: the exception type and message of stock PyTorch for the argument
# checks upstream's tests exercise, and for the same checks on other overloads.

ERROR_CASES = [
    # test_uniform_from_to
    ("uniform_ from > to", lambda: torch.empty(3).uniform_(2, 1)),
    ("uniform_ to - from overflows", lambda: torch.empty(3).uniform_(
        torch.finfo(torch.float).min, torch.finfo(torch.float).max)),
    ("uniform_ from out of bounds", lambda: torch.empty(3, dtype=torch.half).uniform_(-1e5, 0)),
    ("uniform_ integer tensor", lambda: torch.empty(3, dtype=torch.int32).uniform_()),
    # test_random_from_to / test_random_to
    ("random_ from >= to", lambda: torch.empty(3).random_(3, 3)),
    ("random_ to <= 0", lambda: torch.empty(3).random_(-5)),
    ("random_ from out of bounds", lambda: torch.empty(3, dtype=torch.uint8).random_(-1, 3)),
    ("random_ to - 1 out of bounds", lambda: torch.empty(3, dtype=torch.int8).random_(0, 200)),
    ("random_ half to - 1 out of bounds",
     lambda: torch.empty(3, dtype=torch.float16).random_(0, 1 << 20)),
    ("randint low >= high", lambda: torch.randint(3, 3, (3,))),
    ("randint uint8 out of bounds", lambda: torch.randint(0, 300, (3,), dtype=torch.uint8)),
    ("random_ complex", lambda: torch.empty(3, dtype=torch.complex64).random_()),
    # bernoulli_ p out of range (TestTorch bernoulli tests; DistributionTemplates check)
    ("bernoulli_ p > 1", lambda: torch.empty(3).bernoulli_(1.5)),
    ("bernoulli_ p < 0", lambda: torch.empty(3).bernoulli_(-0.5)),
    ("bernoulli_ complex", lambda: torch.empty(3, dtype=torch.complex64).bernoulli_(0.5)),
    ("bernoulli integer p", lambda: torch.bernoulli(torch.tensor([1, 0, 1]))),
    ("bernoulli_ integer p tensor", lambda: torch.empty(3).bernoulli_(torch.tensor([1, 0, 1]))),
    # geometric p outside (0, 1)
    ("geometric_ p = 0", lambda: torch.empty(3).geometric_(0)),
    ("geometric_ p = 1", lambda: torch.empty(3).geometric_(1)),
    ("geometric_ p > 1", lambda: torch.empty(3).geometric_(1.5)),
    ("geometric_ bool", lambda: torch.empty(3, dtype=torch.bool).geometric_(0.5)),
    # test_exponential: lambda < 0
    ("exponential_ lambda < 0", lambda: torch.empty(3).exponential_(-0.5)),
    ("exponential_ integer", lambda: torch.empty(3, dtype=torch.int64).exponential_()),
    # test_normal_std_error
    ("normal_ std < 0", lambda: torch.empty(3).normal_(0, -1)),
    ("normal(float, float, size) std < 0", lambda: torch.normal(0.0, -1.0, (3,))),
    ("normal_ integer", lambda: torch.empty(3, dtype=torch.int32).normal_()),
    ("randn int64", lambda: torch.randn(3, dtype=torch.int64)),
    # log_normal_ std <= 0
    ("log_normal_ std = 0", lambda: torch.empty(3).log_normal_(1, 0)),
    ("log_normal_ std < 0", lambda: torch.empty(3).log_normal_(1, -2)),
    ("cauchy_ integer", lambda: torch.empty(3, dtype=torch.int32).cauchy_()),
    # test_invalid_dropout_p (functional: Python's ValueError)
    ("F.dropout p > 1", lambda: F.dropout(torch.ones(3), 1.5)),
    # a leaf that requires grad (TestAutograd's in-place checks)
    ("uniform_ on leaf requiring grad", lambda: torch.ones(3, requires_grad=True).uniform_()),
    ("normal_ on leaf requiring grad", lambda: torch.ones(3, requires_grad=True).normal_()),
    ("bernoulli_ on leaf requiring grad",
     lambda: torch.ones(3, requires_grad=True).bernoulli_(0.5)),
]


@pytest.mark.parametrize("call", [c[1] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES])
def test_error_matches_stock(call):
    assert_raises_as_stock(call)


# Checks stock torch 1.13 makes inside its CPU kernels (not in the shared
# DistributionTemplates.h argument checks), for the operators of test_bernoulli_p /
# test_bernoulli_self (bernoulli with a tensor of probabilities), test_random_full_range
# (random_(from, None)) and test_native_dropout_corner_case (native_dropout): no
# upstream test exercises them; the backend must raise what stock raises.
STOCK_KERNEL_ERROR_CASES = [
    pytest.param(lambda: torch.empty(3).bernoulli_(torch.tensor([1.5, 0.2, 0.3])),
                 id="bernoulli_ p tensor > 1"),
    pytest.param(lambda: torch.bernoulli(torch.tensor([-0.5, 0.2, 0.3])),
                 id="bernoulli p tensor < 0"),
    pytest.param(lambda: torch.bernoulli(torch.tensor([float("nan"), 0.2])),
                 id="bernoulli p tensor nan"),
    pytest.param(lambda: torch.empty(3, dtype=torch.complex64).bernoulli_(torch.rand(3)),
                 id="bernoulli_ complex self, p tensor"),
    pytest.param(lambda: torch.bernoulli(torch.zeros(3, dtype=torch.complex64)),
                 id="bernoulli complex p"),
    pytest.param(lambda: torch.empty(3, dtype=torch.float16).random_(INT64_MIN, None),
                 id="random_ full range half"),
    pytest.param(lambda: torch.native_dropout(torch.ones(3), 1.5, True),
                 id="native_dropout p > 1"),
    pytest.param(lambda: torch.dropout(torch.ones(3, dtype=torch.int32), 0.5, True),
                 id="dropout integer input"),
]


@pytest.mark.parametrize("call", STOCK_KERNEL_ERROR_CASES)
def test_stock_kernel_error_matches(call):
    assert_raises_as_stock(call)


# The operator of test_native_dropout_corner_case with a complex input: it works in
# stock torch 1.13 (CPU native_dropout computes input * bernoulli mask * scale), and
# so under the backend, which leaves what PyTorch CUDA cannot run to PyTorch's CPU kernel.
def test_native_dropout_complex():
    assert stock_outcome(
        lambda: torch.native_dropout(torch.ones(4, dtype=torch.complex64), 0.5, True)) is None
    output, mask = torch.native_dropout(torch.ones(100, dtype=torch.complex64), 0.5, True)
    assert output.dtype == torch.complex64 and mask.dtype == torch.bool
    assert_equal(output, torch.where(mask, 2.0, 0.0).to(torch.complex64))
