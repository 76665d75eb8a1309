"""randtensor.dask: one global random tensor as a dask.array.Array.

Every chunk is one region fill (SPEC.md section 10): the task of the chunk at
`start` with shape `shape` allocates exactly that block and fills it with the
values the whole tensor has there, so the result equals the single-process
NumPy result (randtensor.generate, uniform, normal, bernoulli, integers) bit
for bit whatever the chunking, the scheduler or the number of workers, and a
chunk costs what its own elements cost, however large the whole tensor.

    >>> import randtensor.dask
    >>> x = randtensor.dask.normal((100_000, 1_000), seed=7, chunks=(10_000, 1_000))
    >>> m = x.mean().compute()

The parameters and their defaults are the NumPy-returning functions', with two
differences: `chunks=` (keyword only: anything dask.array.core.normalize_chunks
takes, "auto" by default), and `threads=1` by default. Dask already runs one
task per chunk on every core (its threads or its workers), and the fill
releases the GIL, so one thread per task uses the machine without
oversubscribing it. Pass threads=0 (randtensor.default_threads()) or a count
when there are fewer chunks than cores. Values never depend on it.

Parameters are checked when the array is made, by the eager functions
themselves, so a bad one raises the same ValueError or TypeError (naming the
parameter) before any graph runs. Tasks hold only plain Python values and call
randtensor on the worker, so the graph pickles for dask.distributed.

This module needs dask (dask.array); the core module does not.
"""

import functools
import itertools
import operator

import numpy as np

import dask.array as da
from dask.array.core import normalize_chunks
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

import randtensor

__all__ = ["bernoulli", "bits", "integers", "normal", "uniform"]


def _fill_block(dist, dtype, params, state, offset, threads, global_shape, shape, start):
    """The task: block `start` .. `start + shape` of the global tensor."""
    array = np.empty(shape, dtype=randtensor._DTYPES[dtype])
    randtensor.fill(array, state=list(state), offset=offset, threads=threads, dist=dist,
                    bfloat16=dtype == "bfloat16", region=(global_shape, start), **params)
    return array


def _shape(shape):
    """`shape` (an int or a sequence of ints) as a tuple of Python ints >= 0."""
    try:
        sizes = (operator.index(shape),)
    except TypeError:
        try:
            sizes = tuple(shape)
        except TypeError:
            raise TypeError(f"shape must be an int or a sequence of ints, "
                            f"not {type(shape).__name__}") from None
    result = []
    for d, size in enumerate(sizes):
        try:
            size = operator.index(size)
        except TypeError:
            raise TypeError(f"shape[{d}] must be an integer, not {type(size).__name__}") from None
        if size < 0:
            raise ValueError(f"shape[{d}] = {size} is negative")
        result.append(size)
    return tuple(result)


def _array(eager, dist, dtype, params, shape, chunks, state, seed, offset, threads):
    """The dask array of the global tensor that `eager` (the NumPy-returning
    function, called with `shape`) would return; `params()` gives the
    distribution's parameters as plain Python numbers."""
    shape = _shape(shape)
    zeros = (0,) * len(shape)
    # The eager function validates everything but the global shape (dtype,
    # distribution parameters, state or seed, offset, threads) on an empty
    # array: its own checks and messages, nothing generated.
    eager(zeros)
    params = params()
    state_words = tuple(int(w) for w in randtensor._state_words(state, seed))
    offset, threads = operator.index(offset), operator.index(threads)
    # An empty region of the global tensor checks the global shape (rank,
    # element count, offset + count within the stream) the way every task's
    # fill will.
    numpy_dtype = np.dtype(randtensor._DTYPES[dtype])
    randtensor.fill(np.empty(zeros, numpy_dtype), state=list(state_words), offset=offset,
                    threads=threads, dist=dist, bfloat16=dtype == "bfloat16",
                    region=(shape, zeros), **params)

    chunks = normalize_chunks(chunks, shape, dtype=numpy_dtype)
    fill = functools.partial(_fill_block, dist, dtype, params, state_words, offset, threads,
                             shape)
    name = "randtensor-{}-{}".format(
        dist, tokenize(dist, dtype, sorted(params.items()), state_words, offset, threads, shape,
                       chunks))
    starts = [tuple(itertools.accumulate(sizes[:-1], initial=0)) for sizes in chunks]
    graph = {}
    for index in itertools.product(*(range(len(sizes)) for sizes in chunks)):
        block_shape = tuple(chunks[d][i] for d, i in enumerate(index))
        block_start = tuple(starts[d][i] for d, i in enumerate(index))
        graph[(name,) + index] = (fill, block_shape, block_start)
    layer = HighLevelGraph.from_collections(name, graph, dependencies=())
    return da.Array(layer, name, chunks, meta=np.empty(zeros, numpy_dtype))


def bits(shape, state=None, seed=None, offset=0, threads=1, *, chunks="auto"):
    """randtensor.generate(shape, ...) as a dask array of uint32 chunks."""
    eager = functools.partial(randtensor.generate, state=state, seed=seed, offset=offset,
                              threads=threads)
    return _array(eager, "bits", "uint32", dict, shape, chunks, state, seed, offset, threads)


def uniform(shape, low=0.0, high=1.0, dtype="float32", state=None, seed=None, offset=0,
            threads=1, *, chunks="auto"):
    """randtensor.uniform(shape, ...) as a dask array (bfloat16: uint16 bits)."""
    eager = functools.partial(randtensor.uniform, low=low, high=high, dtype=dtype, state=state,
                              seed=seed, offset=offset, threads=threads)
    return _array(eager, "uniform", dtype, lambda: {"low": float(low), "high": float(high)}, shape,
                  chunks, state, seed, offset, threads)


def normal(shape, mean=0.0, std=1.0, dtype="float32", state=None, seed=None, offset=0,
           threads=1, *, chunks="auto"):
    """randtensor.normal(shape, ...) as a dask array (bfloat16: uint16 bits)."""
    eager = functools.partial(randtensor.normal, mean=mean, std=std, dtype=dtype, state=state,
                              seed=seed, offset=offset, threads=threads)
    return _array(eager, "normal", dtype, lambda: {"mean": float(mean), "std": float(std)}, shape,
                  chunks, state, seed, offset, threads)


def bernoulli(shape, p=0.5, dtype="float32", state=None, seed=None, offset=0, threads=1, *,
              chunks="auto"):
    """randtensor.bernoulli(shape, ...) as a dask array (bfloat16: uint16 bits)."""
    eager = functools.partial(randtensor.bernoulli, p=p, dtype=dtype, state=state, seed=seed,
                              offset=offset, threads=threads)
    return _array(eager, "bernoulli", dtype, lambda: {"p": float(p)}, shape, chunks, state, seed,
                  offset, threads)


def integers(shape, low, high=None, dtype="int64", state=None, seed=None, offset=0, threads=1,
             *, chunks="auto"):
    """randtensor.integers(shape, ...) as a dask array; integers(shape, high)
    means [0, high), as there."""
    if high is None:
        low, high = 0, low
    eager = functools.partial(randtensor.integers, low=low, high=high, dtype=dtype, state=state,
                              seed=seed, offset=offset, threads=threads)
    return _array(eager, "integers", dtype,
                  lambda: {"low": operator.index(low), "high": operator.index(high)}, shape, chunks,
                  state, seed, offset, threads)
