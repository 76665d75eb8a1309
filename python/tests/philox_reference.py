"""An independent Philox4x32-10 for the tests, and SPEC.md section 6's known answers.

Written from SPEC.md alone, in NumPy and vectorized over blocks (so tests can
check whole arrays of a million elements), sharing no code with the library
or the module under test. test_values.py checks it against SPEC.md's
Random123 vectors and whole-operator cases before anything else relies on it.
The known answers come from the repository's one known-answer file,
tests/data/known_answers.txt, read by tests/known_answers.py (the reader the
C++, C and CLI tests' file format is defined with).
"""

import importlib.util
import os

import numpy as np


def _load_known_answers_module():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                        "tests", "known_answers.py")
    spec = importlib.util.spec_from_file_location("randtensor_known_answers", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


known_answers = _load_known_answers_module()

MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1

_MULTIPLIERS = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_WEYL = (0x9E3779B9, 0xBB67AE85)
_LOW32 = np.uint64(MASK32)
_SHIFT32 = np.uint64(32)


def philox_blocks(counters, key):
    """Philox4x32-10 of many blocks: counters is (n, 4) (words least significant
    first), key is (k0, k1); returns a uint32 array (n, 4)."""
    x0, x1, x2, x3 = (np.asarray(counters, dtype=np.uint64)[:, i] for i in range(4))
    k0, k1 = key
    for _ in range(10):
        # Products of two 32-bit numbers fit in uint64 exactly.
        p0 = x0 * _MULTIPLIERS[0]
        p1 = x2 * _MULTIPLIERS[1]
        x0, x1, x2, x3 = ((p1 >> _SHIFT32) ^ x1 ^ np.uint64(k0), p1 & _LOW32,
                          (p0 >> _SHIFT32) ^ x3 ^ np.uint64(k1), p0 & _LOW32)
        k0 = (k0 + _WEYL[0]) & MASK32
        k1 = (k1 + _WEYL[1]) & MASK32
    return np.stack([x0, x1, x2, x3], axis=1).astype(np.uint32)


def counter_value(state):
    """The 128-bit counter of a six-word state."""
    return sum(int(w) << (32 * i) for i, w in enumerate(state[:4]))


def state_words(counter, key):
    counter &= (1 << 128) - 1
    return [(counter >> (32 * i)) & MASK32 for i in range(4)] + [int(k) for k in key]


def _counter_columns(start, count):
    """Counters start, start + 1, ... (mod 2^128) as a (count, 4) uint64 array."""
    low, high = start & MASK64, (start >> 64) & MASK64
    low_words = np.uint64(low) + np.arange(count, dtype=np.uint64)  # wraps mod 2^64
    carried = low_words < np.uint64(low)
    high_words = np.where(carried, np.uint64((high + 1) & MASK64), np.uint64(high))
    return np.stack([low_words & _LOW32, low_words >> _SHIFT32,
                     high_words & _LOW32, high_words >> _SHIFT32], axis=1)


def stream(state, count, offset=0):
    """Elements offset .. offset + count - 1 of the stream that `state` starts,
    as a flat uint32 array (SPEC.md section 3)."""
    first_block = offset // 4
    end_block = (offset + count + 3) // 4
    counters = _counter_columns(counter_value(state) + first_block, end_block - first_block)
    flat = philox_blocks(counters, state[4:6]).reshape(-1)
    skip = offset - 4 * first_block
    return flat[skip:skip + count]


def logical(state, shape, offset=0):
    """The logical tensor of `shape` (row-major element order)."""
    return stream(state, int(np.prod(shape, dtype=np.int64)), offset).reshape(shape)


def advanced(state, elements):
    """The output state after `elements` elements: counter + ceil(elements / 4)."""
    return state_words(counter_value(state) + (elements + 3) // 4, state[4:6])


def random123_vectors():
    """[(counter words, key words, block)] from SPEC.md section 6."""
    return [(v.counter, v.key, v.block) for v in known_answers.load()["block"].values()]


def whole_operator_cases():
    """[(state, N, values, output state)] from SPEC.md section 6."""
    return [(f.state, f.n, f.values, f.out_state)
            for f in known_answers.load()["fill"].values() if f.values]


def known_fill(name):
    """A named fill of the known-answer file (state, sizes, n, values, out_state)."""
    return known_answers.load()["fill"][name]


def known_element(name):
    """A named stream element of the known-answer file (state, index, value)."""
    return known_answers.load()["element"][name]
