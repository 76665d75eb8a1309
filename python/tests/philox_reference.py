"""An independent Philox4x32-10 for the tests, and SPEC.md section 6's known answers.

Written from SPEC.md alone, in NumPy and vectorized over blocks (so tests can
check whole arrays of a million elements), sharing no code with the library
or the module under test. test_reference.py checks it against SPEC.md's
Random123 vectors and whole-operator cases before anything else relies on it.
"""

import numpy as np

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


# SPEC.md section 6, as printed there.
_RANDOM123_TEXT = """
00000000 00000000 00000000 00000000 | 00000000 00000000 -> 6627e8d5 e169c58d bc57ac4c 9b00dbd8
ffffffff ffffffff ffffffff ffffffff | ffffffff ffffffff -> 408f276d 41c83b0e a20bc7c6 6d5451fd
243f6a88 85a308d3 13198a2e 03707344 | a4093822 299f31d0 -> d16cfe09 94fdcceb 5001e420 24126ea1
"""

# One case per paragraph: state ; N (decimal) ; values ; output state.
_WHOLE_OPERATOR_TEXT = """
0 0 0 0 0 0 ; 10 ;
    6627e8d5 e169c58d bc57ac4c 9b00dbd8 f8e4cca4 5cb200db b1a574eb 097eff67 04faa329 51c732a6 ;
    00000003 0 0 0 0 0

ffffffff ffffffff ffffffff 0 deadbeef cafef00d ; 9 ;
    736195ed 3864aecc 1c9d2fdd b42e9d22 c2a06461 f2e1c844 176e2ad9 c1c2ec0e 81cf5829 ;
    00000002 0 0 00000001 deadbeef cafef00d

ffffffff ffffffff ffffffff ffffffff 1 2 ; 5 ;
    cc4caf1a 6bc5454e 4182e819 d0af8a46 0598de3a ;
    00000001 0 0 0 1 2
"""


def _hex_words(text):
    return [int(w, 16) for w in text.split()]


def random123_vectors():
    """[(counter words, key words, block)] from SPEC.md section 6."""
    vectors = []
    for line in _RANDOM123_TEXT.strip().splitlines():
        inputs, block = line.split("->")
        counter, key = inputs.split("|")
        vectors.append((_hex_words(counter), _hex_words(key), _hex_words(block)))
    return vectors


def whole_operator_cases():
    """[(state, N, values, output state)] from SPEC.md section 6."""
    cases = []
    for record in _WHOLE_OPERATOR_TEXT.strip().split("\n\n"):
        state, n, values, out_state = record.split(";")
        cases.append((_hex_words(state), int(n), _hex_words(values), _hex_words(out_state)))
    return cases
