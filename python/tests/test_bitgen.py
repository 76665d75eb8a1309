"""randtensor.Philox4x32, the NumPy bit generator (docs/numpy.md).

Every expected value comes from the independent model (philox_reference.py)
or from NumPy's documented conversions applied to the model's words, never
from the generator under test."""

import copy
import ctypes
import pathlib
import pickle
import re
import sys
import threading

import numpy as np
import pytest

import philox_reference as ref
import randtensor
from randtensor import Philox4x32

BUFFER = 4096  # bitgen.cc's refill size: sizes around it take every path
MASK32 = (1 << 32) - 1
DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "numpy.md"


def words(state, count, offset=0):
    """The model's stream as a list of ints."""
    return [int(w) for w in ref.stream(state, count, offset)]


def pairs(stream):
    """next_uint64 values from consecutive words: the first in the low half."""
    return [stream[i] | stream[i + 1] << 32 for i in range(0, len(stream) - 1, 2)]


def counter_state(bg):
    """(six state words, offset) from the generator's state dict."""
    s = bg.state
    return [int(w) for w in s["state"]["counter"]] + [int(k) for k in s["state"]["key"]], \
        s["offset"]


STATE = [0xFFFFFFF0, 0xFFFFFFFF, 7, 0, 0x12345678, 0x9ABCDEF0]


# ---------------------------------------------------------------------------
# random_raw: the stream itself


@pytest.mark.parametrize("sizes", [
    [1, 2, 3, 4, 5],
    [BUFFER - 1, 1, 2, BUFFER + 3, 7, 3 * BUFFER, 1],
    [(2, 3), 0, (5, 0), (BUFFER, 2), 9, 1],
    [None, None, 6, None, BUFFER + 1, None],
], ids=["small", "around-buffer", "shapes", "scalars"])
def test_random_raw_is_the_stream_across_mixed_calls(sizes):
    bg = Philox4x32(state=STATE)  # counter near 2^64 words: carries into word 2
    got = []
    for size in sizes:
        out = bg.random_raw(size)
        if size is None:
            assert isinstance(out, int)
            got.append(out)
        else:
            assert out.dtype == np.uint32
            assert out.shape == (np.empty(size).shape)
            got.extend(int(w) for w in out.ravel())
    assert got == words(STATE, len(got))
    assert got == randtensor.generate(len(got), state=STATE).tolist()
    state, offset = counter_state(bg)
    assert state == ref.advanced(STATE, len(got) - len(got) % 4) and offset == len(got) % 4


def test_state_continues_with_fill():
    bg = Philox4x32(seed=5)
    bg.random_raw(BUFFER + 6)
    s = bg.state
    nxt = randtensor.generate(10, state=np.r_[s["state"]["counter"], s["state"]["key"]],
                              offset=s["offset"])
    assert bg.random_raw(10).tolist() == nxt.tolist()


def test_counter_wraps_at_2_to_128():
    state = [MASK32] * 4 + [1, 2]  # the last block before the counter wraps to 0
    bg = Philox4x32(state=state)
    got = bg.random_raw(3).tolist() + bg.random_raw(2 * BUFFER).tolist()
    assert got == words(state, len(got))
    assert counter_state(bg)[0][:4] == ref.advanced(state, len(got) - 3)[:4]


def test_random_raw_output_false_skips():
    bg = Philox4x32(state=STATE)
    assert bg.random_raw(3, output=False) is None
    assert bg.random_raw((2, 5), output=False) is None
    assert bg.random_raw(output=False) is None
    assert bg.random_raw(4).tolist() == words(STATE, 4, offset=14)


# ---------------------------------------------------------------------------
# numpy.random.Generator on it


def test_generator_conversions_follow_numpy_from_the_words():
    seed = 0x0123456789ABCDEF
    key = [seed & MASK32, seed >> 32]
    expected = words([0, 0, 0, 0] + key, 2000)
    g = np.random.Generator(Philox4x32(seed))

    f32 = g.random(5, dtype=np.float32)  # next_uint32 >> 8, times 2^-24
    assert f32.tolist() == [(w >> 8) * 2.0 ** -24 for w in expected[:5]]
    f64 = g.random(4)  # next_uint64 >> 11, times 2^-53; pairs start at word 5
    assert f64.tolist() == [(u >> 11) * 2.0 ** -53 for u in pairs(expected[5:13])]
    u32 = g.integers(0, 2 ** 32, size=3, dtype=np.uint32)  # the words themselves
    assert u32.tolist() == expected[13:16]
    u64 = g.integers(0, 2 ** 64, size=3, dtype=np.uint64)  # whole next_uint64 values
    assert u64.tolist() == pairs(expected[16:22])
    assert g.bytes(8) == np.array(expected[22:24], "<u4").tobytes()


def lemire(stream, high, count):
    """NumPy's integers(0, high) for high <= 2^32: Lemire's method on next_uint32."""
    out, i = [], 0
    while len(out) < count:
        m = stream[i] * high
        i += 1
        if m & MASK32 < high:
            threshold = (2 ** 32 - high) % high
            while m & MASK32 < threshold:
                m = stream[i] * high
                i += 1
        out.append(m >> 32)
    return out


def test_generator_integers_and_choice():
    g = np.random.Generator(Philox4x32(seed=11))
    expected = words([0, 0, 0, 0, 11, 0], 1000)
    assert g.integers(0, 10, size=200).tolist() == lemire(expected, 10, 200)
    population = np.arange(100, 137)
    g1 = np.random.Generator(Philox4x32(seed=12))
    g2 = np.random.Generator(Philox4x32(seed=12))
    assert g1.choice(population, 50).tolist() == population[g2.integers(0, 37, 50)].tolist()


def test_generator_distributions_run_and_are_reproducible():
    g1 = np.random.Generator(Philox4x32(seed=3))
    g2 = np.random.Generator(Philox4x32(state=[0, 0, 0, 0, 3, 0]))
    a = g1.standard_normal(200_000)
    assert a.tolist() == g2.standard_normal(200_000).tolist()
    assert abs(a.mean()) < 0.01 and abs(a.std() - 1) < 0.01
    u = g1.random(200_000, dtype=np.float32)
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.003
    g1.shuffle(np.arange(10))
    assert g1.permutation(5).tolist() != [] and g1.exponential(size=3).min() > 0


# ---------------------------------------------------------------------------
# The C interface: capsule, struct layout, lock


class BitGenT(ctypes.Structure):  # numpy/random/bitgen.h
    _fields_ = [("state", ctypes.c_void_p),
                ("next_uint64", ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)),
                ("next_uint32", ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p)),
                ("next_double", ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_void_p)),
                ("next_raw", ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p))]


def test_capsule_is_numpys_bitgen_t_and_keeps_the_generator_alive():
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    capsule = Philox4x32(state=STATE).capsule  # the generator's last reference
    bitgen = BitGenT.from_address(get(capsule, b"BitGenerator"))
    s = bitgen.state
    expected = words(STATE, 7)
    assert bitgen.next_uint32(s) == expected[0]
    assert bitgen.next_uint64(s) == expected[1] | expected[2] << 32
    assert bitgen.next_raw(s) == expected[3]
    assert bitgen.next_double(s) == (pairs(expected[4:6])[0] >> 11) * 2.0 ** -53


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="GCC/Clang builds only")
def test_hot_paths_start_on_64_byte_lines():
    # bitgen.cc's BITGEN_HOT: a hot path across two lines cost about a cycle
    # per value (docs/numpy.md, Speed); nothing else would notice losing it.
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    bg = Philox4x32(1)
    table = (ctypes.c_void_p * 5).from_address(get(bg.capsule, b"BitGenerator"))
    assert [table[i] % 64 for i in range(1, 5)] == [0, 0, 0, 0]


def test_lock():
    bg = Philox4x32(1)
    assert isinstance(bg.lock, type(threading.Lock()))
    assert np.random.Generator(bg).bit_generator is bg


# ---------------------------------------------------------------------------
# advance, jumped


@pytest.mark.parametrize("delta", [0, 1, 3, 4, 5, BUFFER + 2, 2 ** 64 + 1, 2 ** 100 + 7])
def test_advance_equals_drawing(delta):
    bg = Philox4x32(state=STATE)
    bg.random_raw(3)
    assert bg.advance(delta) is bg
    start = ref.counter_value(STATE) * 4 + 3 + delta  # absolute word number
    state = ref.state_words(start // 4, STATE[4:])
    assert bg.random_raw(9).tolist() == words(state, 9, start % 4)


def test_advance_back_and_around_the_period():
    bg = Philox4x32(state=STATE)
    first = bg.random_raw(10).tolist()
    bg.advance(-10)
    assert bg.random_raw(10).tolist() == first
    bg.advance(2 ** 130 - 10)  # the whole period: back where it was
    assert bg.random_raw(10).tolist() == first


def test_jumped_moves_the_subsequence():
    bg = Philox4x32(state=STATE)
    bg.random_raw(6)
    before = bg.state
    jumped = bg.jumped(3)
    assert bg.state["state"]["counter"].tolist() == before["state"]["counter"].tolist()
    state, offset = counter_state(jumped)
    expected = ref.state_words(ref.counter_value(STATE) + 1 + 3 * 2 ** 64, STATE[4:])
    assert (state, offset) == (expected, 2)
    assert jumped.random_raw(5).tolist() == words(expected, 5, 2)
    assert Philox4x32(state=STATE).jumped().state["state"]["counter"].tolist() == \
        ref.state_words(ref.counter_value(STATE) + 2 ** 64, STATE[4:])[:4]


# ---------------------------------------------------------------------------
# Seeds, state, pickling


def test_int_seed_is_randtensors_seed():
    seed = 2 ** 40 + 5
    bg = Philox4x32(seed)
    assert bg.seed_seq is None
    assert bg.random_raw(6).tolist() == words([0, 0, 0, 0, 5, 2 ** 8], 6)
    assert Philox4x32(seed=7).random_raw(5).tolist() == randtensor.generate(5, seed=7).tolist()


def test_seed_sequence_key_is_generate_state():
    seq = np.random.SeedSequence(1234)
    key = [int(k) for k in np.random.SeedSequence(1234).generate_state(2, np.uint32)]
    bg = Philox4x32(seq)
    assert bg.seed_seq is seq
    assert bg.random_raw(8).tolist() == words([0, 0, 0, 0] + key, 8)


def test_no_seed_draws_fresh_entropy():
    a, b = Philox4x32(), Philox4x32()
    assert isinstance(a.seed_seq, np.random.SeedSequence)
    assert a.state["state"]["key"].tolist() != b.state["state"]["key"].tolist()


def test_state_round_trip():
    bg = Philox4x32(seed=9)
    bg.random_raw(BUFFER + 5)
    state = bg.state
    assert state["bit_generator"] == "Philox4x32" and state["offset"] == 1
    assert state["state"]["counter"].dtype == np.uint32
    other = Philox4x32(seed=1)
    other.state = state
    assert other.random_raw(20).tolist() == bg.random_raw(20).tolist()
    other.state = {"bit_generator": "Philox4x32", "offset": 3,
                   "state": {"counter": [1, 2, 3, 4], "key": (5, 6)}}
    assert other.random_raw(3).tolist() == words([1, 2, 3, 4, 5, 6], 3, 3)


@pytest.mark.parametrize("position", [0, 1, 6, BUFFER + 3])
def test_pickle_round_trip(position):
    bg = Philox4x32(np.random.SeedSequence(5))
    bg.random_raw(position)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        clone = pickle.loads(pickle.dumps(bg, protocol))
        assert clone.seed_seq.entropy == 5
        assert clone.random_raw(7).tolist() == words(counter_state(bg)[0], 7, counter_state(bg)[1])
    assert copy.deepcopy(bg).random_raw(3).tolist() == bg.random_raw(3).tolist()


# NumPy 2's Generator.__reduce__ pickles its bit generator itself, and its
# unpickler then accepts only numpy.random.BitGenerator instances or names.
@pytest.mark.skipif(int(np.__version__.split(".")[0]) >= 2,
                    reason="NumPy >= 2 pickles only Generators over BitGenerator subclasses")
def test_generator_pickles():
    g = np.random.Generator(Philox4x32(seed=21))
    g.random(3)
    clone = pickle.loads(pickle.dumps(g))
    assert clone.random(5).tolist() == g.random(5).tolist()
    assert type(clone.bit_generator) is Philox4x32


# ---------------------------------------------------------------------------
# Errors name the argument and its value


@pytest.mark.parametrize("kwargs,error,text", [
    ({"seed": -1}, ValueError, "seed = -1"),
    ({"seed": 2 ** 64}, ValueError, "seed = 18446744073709551616"),
    ({"seed": 1.5}, TypeError, "seed must be an integer"),
    ({"seed": [1, 2]}, TypeError, "seed must be an integer, None or a numpy.random.SeedSequence"),
    ({"seed": 1, "state": [0] * 6}, ValueError, "state or seed, not both"),
    ({"state": [0] * 5}, ValueError, "state has 5 words"),
    ({"state": [0] * 5 + [2 ** 32]}, ValueError, r"state\[5\] = 4294967296"),
    ({"state": "abcdef"}, TypeError, "state must be a sequence"),
])
def test_bad_construction(kwargs, error, text):
    with pytest.raises(error, match=text):
        Philox4x32(**kwargs)


GOOD = {"bit_generator": "Philox4x32", "offset": 0, "state": {"counter": [0] * 4, "key": [0] * 2}}


def changed(path, value):
    state = copy.deepcopy(GOOD)
    target = state
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return state


@pytest.mark.parametrize("state,error,text", [
    ([1, 2], TypeError, "state must be a dict"),
    (changed(["bit_generator"], "Philox"), ValueError, r"state\['bit_generator'\] = 'Philox'"),
    (changed(["offset"], 4), ValueError, r"state\['offset'\] = 4 is outside 0..3"),
    (changed(["offset"], KeyError), ValueError, r"state\['offset'\] is missing"),
    (changed(["state"], 5), TypeError, r"state\['state'\] must be a dict"),
    (changed(["state", "counter"], [0] * 3), ValueError,
     r"state\['state'\]\['counter'\] has 3 words"),
    (changed(["state", "key"], [0, -2]), ValueError, r"state\['state'\]\['key'\]\[1\] = -2"),
    (changed(["state", "key"], KeyError), ValueError, r"state\['state'\]\['key'\] is missing"),
])
def test_bad_state(state, error, text):
    bg = Philox4x32(state=STATE)
    with pytest.raises(error, match=text):
        bg.state = state
    assert bg.random_raw(2).tolist() == words(STATE, 2)  # unchanged


@pytest.mark.parametrize("call,error,text", [
    (lambda bg: bg.random_raw(-1), ValueError, "size = -1"),
    (lambda bg: bg.random_raw((2, -3)), ValueError, r"size = \(2, -3\)"),
    (lambda bg: bg.random_raw(1.5), TypeError, "size must be"),
    (lambda bg: bg.advance(1.5), TypeError, "delta must be an integer"),
    (lambda bg: bg.jumped(-1), ValueError, "jumps = -1"),
])
def test_bad_arguments(call, error, text):
    with pytest.raises(error, match=text):
        call(Philox4x32(1))


# ---------------------------------------------------------------------------
# docs/numpy.md's examples run as written


def test_docs_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, str(DOCS), "exec"), {})
