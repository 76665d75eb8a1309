"""randtensor.dask: a global tensor as a dask array, one region fill per chunk,
equal bit for bit to the single-process NumPy result (randtensor.generate,
uniform, normal, bernoulli, integers) for any chunking and any scheduler.

The expected values are the eager functions' (checked elsewhere against the
independent reference); every comparison is of the bits (floats viewed as
unsigned integers), so NaN, -0.0 or a dtype slip cannot hide a difference."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

# scripts/test.sh sets RANDTENSOR_REQUIRE_DASK: there (and in CI) a missing
# dask is a failure, not a skip; elsewhere dask stays optional.
if os.environ.get("RANDTENSOR_REQUIRE_DASK"):
    import dask
    import dask.array as da
else:
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")

import randtensor  # noqa: E402
import randtensor.dask as rd  # noqa: E402

# Counter words 0-1 about to carry into word 2: a chunk that recomputed the
# counter of its first element in 32 or 64 bits would go wrong.
STATE = [0xFFFFFFF0, 0xFFFFFFFF, 3, 0, 11, 12]


def bits_of(array):
    """The array's elements as unsigned integers of the same size (bool: uint8)."""
    array = np.ascontiguousarray(array)
    return array.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[array.itemsize])


def assert_same_bits(got, want):
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    assert np.array_equal(bits_of(got), bits_of(want))


# (distributed function name, parameters, dtype); the eager function has the same name,
# except bits (randtensor.generate).
DISTRIBUTIONS = [
    ("bits", {}, None),
    ("uniform", {}, "float32"),
    ("uniform", {"low": -2.0, "high": 3.5}, "float64"),
    ("uniform", {"low": -1.0, "high": 1.0}, "float16"),
    ("uniform", {}, "bfloat16"),
    ("normal", {}, "float32"),
    ("normal", {"mean": 1.5, "std": 0.25}, "float64"),
    ("normal", {"mean": -3.0, "std": 2.0}, "float16"),
    ("normal", {}, "bfloat16"),
    ("bernoulli", {"p": 0.3}, "bool"),
    ("bernoulli", {}, "uint8"),
    ("bernoulli", {"p": 0.9}, "int32"),
    ("bernoulli", {"p": 0.5}, "float64"),
    ("integers", {"low": -5, "high": 2 ** 40}, "int64"),
    ("integers", {"low": 0, "high": 1000}, "int32"),
    ("integers", {"low": 7, "high": 2 ** 32}, "uint32"),
    ("integers", {"low": -100, "high": 100}, "float64"),
]

# (shape, chunks): regular, irregular, size-1 chunks along an axis, "auto".
CHUNKINGS = [
    ((1000,), "auto"),
    ((1000,), 333),
    ((1000,), ((1, 998, 1),)),
    ((257,), 1),
    ((13, 17), (5, 4)),
    ((13, 17), ((1,) * 13, 17)),
    ((13, 17), ((3, 10), (1, 5, 11))),
    ((6, 7, 5), (1, 3, 2)),
    ((6, 7, 5), ((2, 4), (7,), (1, 1, 3))),
    ((6, 7, 5), "auto"),
]


def both(name, params, dtype, shape, chunks, **common):
    """(dask result computed, eager result) of the same call."""
    kwargs = dict(params, **common)
    if dtype is not None:
        kwargs["dtype"] = dtype
    eager = randtensor.generate if name == "bits" else getattr(randtensor, name)
    lazy = getattr(rd, name)(shape, chunks=chunks, **kwargs)
    assert isinstance(lazy, da.Array)
    return lazy, eager(shape, **kwargs)


@pytest.mark.parametrize("shape,chunks", CHUNKINGS)
@pytest.mark.parametrize("name,params,dtype", DISTRIBUTIONS)
def test_any_chunking_equals_the_eager_result(name, params, dtype, shape, chunks):
    # One offset that is odd (normals split pairs, float64 reads word pairs)
    # with a state near a counter carry; and a seed with an offset past 2^32.
    for common in ({"state": STATE, "offset": 5}, {"seed": 2 ** 40 + 3, "offset": 2 ** 33 + 1}):
        lazy, want = both(name, params, dtype, shape, chunks, **common)
        assert lazy.dtype == want.dtype
        assert lazy.shape == want.shape
        assert_same_bits(lazy.compute(), want)


def test_defaults_are_the_eager_defaults():
    assert_same_bits(rd.bits(100).compute(), randtensor.generate(100))
    assert_same_bits(rd.uniform(100).compute(), randtensor.uniform(100))
    assert_same_bits(rd.normal(100).compute(), randtensor.normal(100))
    assert_same_bits(rd.bernoulli(100).compute(), randtensor.bernoulli(100))
    assert_same_bits(rd.integers(100, 9).compute(), randtensor.integers(100, 9))  # [0, 9)
    assert_same_bits(rd.integers(100, 3, 9).compute(), randtensor.integers(100, 3, 9))


def test_scalars_and_empty_tensors():
    assert_same_bits(rd.normal((), seed=4, dtype="float64").compute(),
                     randtensor.normal((), seed=4, dtype="float64"))
    empty = rd.uniform((0, 5), seed=4, chunks=2)
    assert empty.compute().shape == (0, 5)
    # An empty axis in the middle; the other blocks still have the right shapes.
    assert rd.bits((3, 0, 4), chunks=1).compute().shape == (3, 0, 4)


def test_chunkings_agree_with_each_other_across_schedulers():
    shape = (40, 30)
    want = randtensor.normal(shape, seed=9, dtype="float64")
    for chunks, scheduler in [((7, 30), "threads"), (((1, 39), (29, 1)), "sync"),
                              ((40, 1), "threads")]:
        got = rd.normal(shape, seed=9, dtype="float64", chunks=chunks).compute(scheduler=scheduler)
        assert_same_bits(got, want)
    # Rechunking and slicing keep the values where they are.
    x = rd.normal(shape, seed=9, dtype="float64", chunks=(3, 4))
    assert_same_bits(x.rechunk((11, 13)).compute(), want)
    assert_same_bits(x[5:17, ::-3].compute(), want[5:17, ::-3])


def test_threads_default_to_one_per_task_and_values_do_not_depend_on_them(monkeypatch):
    calls = []
    real_fill = randtensor.fill

    def recording_fill(array, **kwargs):
        calls.append(kwargs["threads"])
        return real_fill(array, **kwargs)

    want = randtensor.uniform((50, 60), seed=1)
    x = rd.uniform((50, 60), seed=1, chunks=(25, 60))
    y = rd.uniform((50, 60), seed=1, chunks=(25, 60), threads=0)
    z = rd.uniform((50, 60), seed=1, chunks=(25, 60), threads=3)
    monkeypatch.setattr(randtensor, "fill", recording_fill)
    assert_same_bits(x.compute(), want)
    assert calls == [1, 1]
    calls.clear()
    assert_same_bits(y.compute(), want)
    assert calls == [0, 0]
    calls.clear()
    assert_same_bits(z.compute(), want)
    assert calls == [3, 3]


def test_a_task_fills_only_its_own_chunk(monkeypatch):
    """A chunk of a tensor of 2^40 (or 2^41) elements computes in
    milliseconds: only its own task runs, and it fills exactly its block. The
    neighbouring chunk alone would be terabytes."""
    n = 2 ** 40
    x = rd.uniform((n,), seed=5, offset=3, chunks=((n - 5, 5),))
    y = rd.normal((2 ** 20, 2 ** 21), seed=5, dtype="float64",
                  chunks=((2 ** 20 - 2, 2), (2 ** 21 - 3, 3)))
    calls = []
    real_fill = randtensor.fill

    def recording_fill(array, **kwargs):
        calls.append((array.shape, kwargs["region"]))
        return real_fill(array, **kwargs)

    monkeypatch.setattr(randtensor, "fill", recording_fill)
    with dask.config.set(scheduler="sync"):
        last = x[-5:].compute()
        block = x.blocks[1].compute()
        corner = y[-2:, -3:].compute()
    # Element e of the global tensor is stream element offset + e (w words each).
    want = randtensor.uniform((5,), seed=5, offset=3 + n - 5)
    assert_same_bits(last, want)
    assert_same_bits(block, want)
    rows = [randtensor.normal((3,), seed=5, dtype="float64", offset=r * 2 ** 21 + 2 ** 21 - 3)
            for r in (2 ** 20 - 2, 2 ** 20 - 1)]
    assert_same_bits(corner, np.stack(rows))
    assert calls == [((5,), ((n,), (n - 5,))), ((5,), ((n,), (n - 5,))),
                     ((2, 3), ((2 ** 20, 2 ** 21), (2 ** 20 - 2, 2 ** 21 - 3)))]


def test_every_chunk_is_one_fill_of_its_own_shape(monkeypatch):
    calls = []
    real_fill = randtensor.fill

    def recording_fill(array, **kwargs):
        calls.append((array.shape, tuple(kwargs["region"][1])))
        return real_fill(array, **kwargs)

    x = rd.bernoulli((9, 10), p=0.25, dtype="uint8", seed=2, chunks=((2, 7), (3, 3, 4)))
    monkeypatch.setattr(randtensor, "fill", recording_fill)
    assert_same_bits(x.compute(scheduler="sync"),
                     randtensor.bernoulli((9, 10), p=0.25, dtype="uint8", seed=2))
    assert sorted(calls) == sorted([
        ((2, 3), (0, 0)), ((2, 3), (0, 3)), ((2, 4), (0, 6)),
        ((7, 3), (2, 0)), ((7, 3), (2, 3)), ((7, 4), (2, 6))])


@pytest.mark.parametrize("make,error,match", [
    (lambda: rd.uniform(10, low=1.0, high=0.0), ValueError, r"low = 1 .*high = 0"),
    (lambda: rd.uniform(10, high=float("inf")), ValueError, r"high = inf"),
    (lambda: rd.normal(10, std=-1.0), ValueError, r"std = -1"),
    (lambda: rd.bernoulli(10, p=1.5), ValueError, r"p = 1.5"),
    (lambda: rd.integers(10, 5, 5), ValueError, r"int_low = 5"),
    (lambda: rd.integers(10, 0, 2 ** 40, dtype="int32"), ValueError, r"int32"),
    (lambda: rd.bernoulli(10, dtype="int64"), ValueError, r"dtype = int64"),
    (lambda: rd.uniform(10, dtype="int32"), ValueError, r"dtype = int32"),
    (lambda: rd.uniform(10, dtype="int8"), TypeError, r"dtype = 'int8'"),
    (lambda: rd.bits(10, state=[1, 2, 3]), ValueError, r"state has 3 words"),
    (lambda: rd.bits(10, state=[0, 0, 0, 0, 0, 2 ** 32]), ValueError, r"state\[5\]"),
    (lambda: rd.bits(10, seed=-1), ValueError, r"seed = -1"),
    (lambda: rd.bits(10, seed=1, state=STATE), ValueError, r"state or seed"),
    (lambda: rd.normal(10, offset=-1), ValueError, r"offset = -1"),
    (lambda: rd.normal(10, threads=-1), ValueError, r"threads = -1"),
    # Checks that need the global shape: the eager call on an empty array
    # cannot see them, the region fill can.
    (lambda: rd.bits((2 ** 40,), offset=2 ** 64 - 10), ValueError, r"offset"),
    (lambda: rd.normal((2 ** 40,), offset=2 ** 63, dtype="float64"), ValueError, r"offset"),
    (lambda: rd.bits((2 ** 40, 2 ** 40)), ValueError, r"global_sizes\[0\]"),
    (lambda: rd.bits((1,) * 9), ValueError, r"rank = 9"),
    (lambda: rd.bits((3, -1)), ValueError, r"shape\[1\] = -1"),
    (lambda: rd.bits((3, 1.5)), TypeError, r"shape\[1\]"),
    (lambda: rd.bits(10, chunks=(3, 3)), ValueError, r"[Cc]hunks"),
])
def test_bad_parameters_raise_when_the_array_is_made(make, error, match, monkeypatch):
    # Nothing may be generated on the way: the checks run on empty arrays.
    sizes = []
    real_fill = randtensor.fill

    def recording_fill(array, **kwargs):
        sizes.append(array.size)
        return real_fill(array, **kwargs)

    monkeypatch.setattr(randtensor, "fill", recording_fill)
    with pytest.raises(error, match=match):
        make()
    assert all(size == 0 for size in sizes)


def test_distinct_calls_have_distinct_graph_keys():
    # Keys are derived from every parameter: two different tensors in one
    # graph must not be taken for the same one (nor the same one for two).
    arrays = [rd.uniform(8, seed=1, chunks=4), rd.uniform(8, seed=2, chunks=4),
              rd.uniform(8, seed=1, chunks=4, offset=1), rd.uniform(8, seed=1, chunks=4, low=0.5),
              rd.uniform(8, seed=1, chunks=4, dtype="float64"), rd.normal(8, seed=1, chunks=4),
              rd.uniform(8, seed=1, chunks=(4, 4, 0)), rd.uniform(8, state=[0, 0, 0, 0, 1, 1])]
    assert len({a.name for a in arrays}) == len(arrays)
    assert rd.uniform(8, seed=1, chunks=4).name == arrays[0].name
    both_seeds = da.stack(arrays[:2]).compute()
    assert_same_bits(both_seeds[0], randtensor.uniform(8, seed=1))
    assert_same_bits(both_seeds[1], randtensor.uniform(8, seed=2))


def test_the_graph_pickles_with_plain_pickle():
    state = randtensor.fill(np.empty(3, np.uint32), seed=11)  # a NumPy array of words
    x = rd.integers((5, 6), -3, 2 ** 35, state=state, offset=2, chunks=(2, 4))
    graph = pickle.loads(pickle.dumps(dict(x.__dask_graph__())))
    blocks = dask.get(graph, x.__dask_keys__())  # nested tuples of NumPy blocks
    got = np.block([list(row) for row in blocks])
    assert_same_bits(got, randtensor.integers((5, 6), -3, 2 ** 35, state=state, offset=2))
    assert len(pickle.dumps(dict(x.__dask_graph__()))) < 2000  # tasks hold only a few numbers


def test_importing_randtensor_does_not_import_dask():
    code = "import sys, randtensor; assert 'dask' not in sys.modules, 'dask was imported'"
    subprocess.run([sys.executable, "-c", code], check=True, env=os.environ.copy())


# distributed 2022.12 with bookworm's tornado 6.2.
@pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")
def test_a_distributed_cluster_of_processes_computes_the_same_bits():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        pids = set(client.run(os.getpid).values())
        assert len(pids) == 2 and os.getpid() not in pids
        arrays = [rd.normal((30, 41), seed=3, offset=7, dtype="float64", chunks=((1, 29), 10)),
                  rd.uniform((30, 41), state=STATE, dtype="bfloat16", chunks=(7, (40, 1))),
                  rd.integers((1001,), -9, 2 ** 33, seed=8, chunks=100),
                  rd.bernoulli((5, 6, 7), p=0.7, dtype="bool", chunks=1)]
        got = client.gather(client.compute(arrays))
    want = [randtensor.normal((30, 41), seed=3, offset=7, dtype="float64"),
            randtensor.uniform((30, 41), state=STATE, dtype="bfloat16"),
            randtensor.integers((1001,), -9, 2 ** 33, seed=8),
            randtensor.bernoulli((5, 6, 7), p=0.7, dtype="bool")]
    for g, w in zip(got, want):
        assert_same_bits(g, w)
