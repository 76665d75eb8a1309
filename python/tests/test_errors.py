"""Bad arrays and bad arguments: the right exception, a message naming the
problem, and not one byte written."""

import os
import subprocess
import sys

import numpy as np
import pytest

import randtensor

as_strided = np.lib.stride_tricks.as_strided
SENTINEL = 0x5EE5A11


def sentinel_buffer(count=64):
    return np.full(count, SENTINEL, np.uint32)


def read_only():
    array = sentinel_buffer(8)
    array.flags.writeable = False
    return array, array


def frombuffer_bytes():
    array = np.frombuffer(bytes(32), np.uint32)  # read-only memory
    return array, array


def broadcast():
    base = sentinel_buffer(4)
    return base, np.broadcast_to(base, (3, 4))  # zero strides; NumPy makes it read-only


def zero_stride_writable():
    base = sentinel_buffer(4)
    return base, as_strided(base, shape=(3, 4), strides=(0, 4))


def overlapping_rows():
    base = sentinel_buffer(16)
    return base, as_strided(base, shape=(3, 4), strides=(8, 4))  # rows overlap by two


def overlapping_diagonal():
    base = sentinel_buffer(16)
    return base, as_strided(base, shape=(4, 4), strides=(12, 4))  # (0, 3) is (1, 0)


def with_dtype(dtype):
    def make():
        array = np.full(8, 7, dtype)
        return array, array
    return make


def unaligned_data():
    raw = np.full(41, 0xAB, np.uint8)
    return raw, raw[1:41].view(np.uint32)


def odd_strides():
    raw = np.full(64, 0xAB, np.uint8)
    return raw, np.ndarray(shape=(5,), dtype=np.uint32, buffer=raw, strides=(6,))


def nine_dimensions():
    array = np.full((1, 2) * 4 + (2,), SENTINEL, np.uint32)
    return array, array


BAD_ARRAYS = [
    pytest.param(read_only, ValueError, r"^array is read-only$", id="read-only"),
    pytest.param(frombuffer_bytes, ValueError, r"read-only", id="frombuffer-bytes"),
    pytest.param(broadcast, ValueError, r"read-only", id="broadcast_to"),
    pytest.param(zero_stride_writable, ValueError, r"strides\[0\] = 0", id="zero-stride"),
    pytest.param(overlapping_rows, ValueError, r"strides = \{2,1\}.*share an address",
                 id="overlap-rows"),
    pytest.param(overlapping_diagonal, ValueError, r"strides = \{3,1\}.*share an address",
                 id="overlap-diagonal"),
    pytest.param(with_dtype(np.int32), ValueError, r"dtype = int32 cannot hold distribution bits",
                 id="int32"),
    pytest.param(with_dtype(np.float32), ValueError,
                 r"dtype = float32 cannot hold distribution bits", id="float32"),
    pytest.param(with_dtype(np.uint64), TypeError, r"dtype is uint64", id="uint64"),
    pytest.param(with_dtype(np.uint16), TypeError, r"dtype is uint16", id="uint16"),
    pytest.param(with_dtype(">u4"), TypeError, r"dtype is >u4", id="big-endian"),
    pytest.param(unaligned_data, ValueError, r"not aligned", id="unaligned-data"),
    pytest.param(odd_strides, ValueError, r"strides\[0\] = 6 bytes.*multiple", id="odd-strides"),
    pytest.param(nine_dimensions, ValueError, r"rank = 9", id="nine-dims"),
]


@pytest.mark.parametrize("make,error,pattern", BAD_ARRAYS)
def test_bad_array_is_rejected_untouched(make, error, pattern):
    memory, array = make()
    before = memory.tobytes()
    with pytest.raises(error, match=pattern):
        randtensor.fill(array, seed=1)
    assert memory.tobytes() == before


def test_overflowing_offset_is_rejected_untouched():
    array = sentinel_buffer(8)
    with pytest.raises(ValueError, match=r"element_offset.*overflows"):
        randtensor.fill(array, offset=(1 << 64) - 4)
    assert (array == SENTINEL).all()


@pytest.mark.parametrize("thing", [[1, 2, 3], 5, "abc", bytearray(16), None])
def test_not_an_array(thing):
    with pytest.raises(TypeError, match=r"numpy.ndarray or an object with __dlpack__"):
        randtensor.fill(thing)


BAD_ARGUMENTS = [
    # (keyword arguments, exception, message pattern)
    pytest.param({"state": [0] * 6, "seed": 1}, ValueError, r"state or seed, not both",
                 id="state-and-seed"),
    pytest.param({"state": [0] * 5}, ValueError, r"state has 5 words; it needs 6", id="five"),
    pytest.param({"state": [0] * 7}, ValueError, r"state has 7 words", id="seven"),
    pytest.param({"state": np.zeros((1, 1, 1, 6), np.uint32)}, ValueError, r"state has 1 word",
                 id="directml-shape"),
    pytest.param({"state": [0, 0, 0, 0, 0, 1 << 32]}, ValueError,
                 r"state\[5\] = 4294967296 is outside", id="word-too-big"),
    pytest.param({"state": [0, -1, 0, 0, 0, 0]}, ValueError, r"state\[1\] = -1", id="negative"),
    pytest.param({"state": [0, 0, 1.5, 0, 0, 0]}, TypeError, r"state\[2\] must be an integer",
                 id="float-word"),
    pytest.param({"state": "abcdef"}, TypeError, r"state must be a sequence", id="string"),
    pytest.param({"state": 7}, TypeError, r"state must be a sequence", id="int"),
    pytest.param({"state": np.uint32(7)}, TypeError, r"state must be a sequence", id="scalar"),
    pytest.param({"seed": -1}, ValueError, r"seed = -1 is outside the uint64 range",
                 id="negative-seed"),
    pytest.param({"seed": 1 << 64}, ValueError, r"seed = 18446744073709551616", id="big-seed"),
    pytest.param({"seed": 2.0}, TypeError, r"seed must be an integer", id="float-seed"),
    pytest.param({"offset": -1}, ValueError, r"offset = -1", id="negative-offset"),
    pytest.param({"threads": -1}, ValueError, r"threads = -1", id="negative-threads"),
    pytest.param({"threads": 1 << 32}, ValueError, r"threads = 4294967296", id="big-threads"),
]


@pytest.mark.parametrize("kwargs,error,pattern", BAD_ARGUMENTS)
def test_bad_arguments_are_rejected_untouched(kwargs, error, pattern):
    array = sentinel_buffer(8)
    with pytest.raises(error, match=pattern):
        randtensor.fill(array, **kwargs)
    assert (array == SENTINEL).all()
    with pytest.raises(error, match=pattern):
        randtensor.generate(8, **kwargs)


def test_generate_rejects_bad_shapes():
    with pytest.raises(ValueError, match=r"negative"):
        randtensor.generate((3, -1))
    with pytest.raises(ValueError, match=r"rank = 9"):
        randtensor.generate((1,) * 9)


@pytest.mark.parametrize("counter,key,pattern", [
    ([0, 0, 0], [0, 0], r"counter has 3 words"),
    ([0, 0, 0, 0], [0], r"key has 1 words"),
    ([0, 0, 0, 1 << 32], [0, 0], r"counter\[3\]"),
])
def test_philox_block_rejects_bad_words(counter, key, pattern):
    with pytest.raises(ValueError, match=pattern):
        randtensor.philox_block(counter, key)


def test_unknown_target_is_a_value_error_and_changes_nothing():
    active = randtensor.active_target()
    with pytest.raises(ValueError, match=r"NEON9000"):
        randtensor.set_target("NEON9000")
    assert randtensor.active_target() == active


def test_unsupported_target_is_a_value_error():
    unsupported = [t["name"] for t in randtensor.targets() if not t["supported"]]
    if not unsupported:
        pytest.skip("this CPU runs every compiled target")
    with pytest.raises(ValueError, match=unsupported[0]):
        randtensor.set_target(unsupported[0])


def test_bad_environment_target_is_a_runtime_error():
    """RANDTENSOR_TARGET is read on first use; a bad one breaks the process's
    fills (RuntimeError, nothing written) until set_target() picks a target."""
    script = "\n".join([
        "import numpy as np, randtensor",
        "a = np.full(4, 7, np.uint32)",
        "for call in (lambda: randtensor.fill(a), randtensor.active_target):",
        "    try:",
        "        call()",
        "    except RuntimeError as e:",
        "        print('RuntimeError', e)",
        "print(a.tolist())",
        "randtensor.set_target('auto')",
        "randtensor.fill(a)",
        "print(a.tolist() != [7] * 4)",
    ])
    env = dict(os.environ, RANDTENSOR_TARGET="NEON9000")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, timeout=60, check=True)
    lines = result.stdout.splitlines()
    assert len(lines) == 4, result.stdout
    assert all(line.startswith("RuntimeError") and "NEON9000" in line for line in lines[:2])
    assert lines[2:] == ["[7, 7, 7, 7]", "True"]
