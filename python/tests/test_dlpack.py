"""The DLPack path: objects that are not NumPy arrays but have __dlpack__.

NumPy's own __dlpack__ behind a wrapper exercises the path without PyTorch;
the PyTorch tests run where torch is installed and are skipped elsewhere.
"""

import ctypes
import sys

import numpy as np
import pytest

import philox_reference as ref
import randtensor
from views import sentinel_view

STATE = [0xFFFFFFFF, 0xFFFFFFFF, 2, 0, 0x1357, 0x2468]
SENTINEL = 0xC0FFEE


class DLPackOnly:
    """Exposes only the DLPack protocol of a NumPy array, so fill() cannot see
    the ndarray. Keeps the capsules it hands out for inspection."""

    def __init__(self, array):
        self._array = array
        self.capsules = []

    def __dlpack__(self, stream=None):
        self.capsules.append(self._array.__dlpack__(stream=stream))
        return self.capsules[-1]

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class OldProducer(DLPackOnly):
    """A producer from before the `stream` keyword."""

    def __dlpack__(self):  # pylint: disable=arguments-differ
        return super().__dlpack__()


def capsule_name_is(capsule, name):
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return bool(is_valid(capsule, name))


VIEWS = {
    "contiguous": ((5, 9), lambda b: b),
    "transposed": ((9, 5), lambda b: b.T),
    "step_2_padded": ((12, 10), lambda b: b[1:11:2, :9]),
    "negative_strides": ((5, 9), lambda b: b[::-1, ::-1]),
    "zero_d": ((), lambda b: b),
    "empty": ((0, 4), lambda b: b),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_dlpack_view_holds_the_logical_tensor(name):
    buffer, view, mask = sentinel_view(*VIEWS[name], SENTINEL)
    new_state = randtensor.fill(DLPackOnly(view), state=STATE)
    assert np.array_equal(view, ref.logical(STATE, view.shape))
    assert (buffer[~mask] == SENTINEL).all()
    assert new_state.dtype == np.uint32
    assert new_state.tolist() == ref.advanced(STATE, view.size)


def test_dlpack_and_numpy_paths_agree():
    direct, wrapped = np.empty((7, 3), np.uint32), np.empty((7, 3), np.uint32)
    state_direct = randtensor.fill(direct.T, seed=99, offset=5, threads=3)
    state_wrapped = randtensor.fill(DLPackOnly(wrapped.T), seed=99, offset=5, threads=3)
    assert np.array_equal(direct, wrapped)
    assert state_direct.tolist() == state_wrapped.tolist()


def test_producer_without_stream_keyword():
    array = np.empty(10, np.uint32)
    randtensor.fill(OldProducer(array), state=STATE)
    assert np.array_equal(array, ref.stream(STATE, 10))


def test_capsule_is_consumed_and_released():
    """The consumer renames the capsule and calls the deleter: NumPy's deleter
    drops the reference its export took, so the count comes back."""
    array = np.empty(8, np.uint32)
    producer = DLPackOnly(array)
    references = sys.getrefcount(array)
    randtensor.fill(producer)
    assert capsule_name_is(producer.capsules[0], b"used_dltensor")
    producer.capsules.clear()
    assert sys.getrefcount(array) == references


def test_used_capsule_is_rejected():
    array = np.empty(8, np.uint32)
    capsule = array.__dlpack__()
    producer = DLPackOnly(array)
    producer.__dlpack__ = lambda stream=None: capsule
    randtensor.fill(producer)
    with pytest.raises(ValueError, match=r"already consumed"):
        randtensor.fill(producer)


@pytest.mark.parametrize("returned", [42, b"dltensor", None])
def test_non_capsule_is_a_type_error(returned):
    class Liar:
        def __dlpack__(self, stream=None):
            return returned

    with pytest.raises(TypeError, match=r"PyCapsule named 'dltensor'"):
        randtensor.fill(Liar())


@pytest.mark.parametrize("dtype,pattern", [
    (np.int32, r"dtype = int32 cannot hold distribution bits"),
    (np.float32, r"dtype = float32 cannot hold distribution bits"),
    (np.uint8, r"dtype = uint8 cannot hold distribution bits"),
    (np.uint64, r"dtype = uint64 .*not a type randtensor fills"),
])
def test_dlpack_wrong_dtype_is_refused_untouched(dtype, pattern):
    array = np.full(8, 3, dtype)
    producer = DLPackOnly(array)
    references = sys.getrefcount(array)
    with pytest.raises(ValueError, match=pattern):
        randtensor.fill(producer)
    assert (array == 3).all()
    assert capsule_name_is(producer.capsules[0], b"used_dltensor")
    producer.capsules.clear()
    assert sys.getrefcount(array) == references  # consumed and released even on error


def test_dlpack_overlap_is_rejected_untouched():
    base = np.full(16, SENTINEL, np.uint32)
    view = np.lib.stride_tricks.as_strided(base, shape=(3, 4), strides=(8, 4))
    with pytest.raises(ValueError, match=r"share an address"):
        randtensor.fill(DLPackOnly(view))
    assert (base == SENTINEL).all()


def test_read_only_numpy_export_fails_untouched():
    """DLPack 0.x cannot say "read-only", so NumPy refuses to export."""
    array = np.full(8, SENTINEL, np.uint32)
    array.flags.writeable = False
    with pytest.raises(BufferError):
        randtensor.fill(DLPackOnly(array))
    assert (array == SENTINEL).all()


# ---------------------------------------------------------------------------
# PyTorch


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "uint32"):
        pytest.skip("this torch has no uint32 dtype")
    return torch


def as_numpy(tensor, torch):
    """A uint32 tensor's values (torch cannot convert uint32 to NumPy directly everywhere)."""
    return tensor.view(torch.int32).numpy().view(np.uint32)


@pytest.mark.parametrize("make_view", [
    lambda t: t,
    lambda t: t.T,
    lambda t: t[1::2, 2:9],
    lambda t: t.flip(0),  # a copy in torch, still a valid target
], ids=["contiguous", "transposed", "strided", "flipped-copy"])
def test_torch_tensor(torch, make_view):
    buffer = torch.full((12, 10), SENTINEL, dtype=torch.int32).view(torch.uint32)
    view = make_view(buffer)
    new_state = randtensor.fill(view, state=STATE)
    assert np.array_equal(as_numpy(view, torch), ref.logical(STATE, tuple(view.shape)))
    assert new_state.tolist() == ref.advanced(STATE, view.numel())


def test_torch_untouched_outside_the_view(torch):
    buffer = torch.full((6, 8), SENTINEL, dtype=torch.int32)
    randtensor.fill(buffer.view(torch.uint32)[:, 1:7], seed=5)
    values = buffer.numpy().view(np.uint32)
    assert (values[:, [0, 7]] == SENTINEL).all()
    assert np.array_equal(values[:, 1:7], randtensor.generate((6, 6), seed=5))


@pytest.mark.parametrize("dtype,pattern", [
    ("int32", r"dtype = int32 cannot hold distribution bits"),
    ("int16", r"dtype = int16 .*not a type randtensor fills"),
])
def test_torch_wrong_dtype_is_refused_untouched(dtype, pattern):
    # As test_dlpack_wrong_dtype_is_refused_untouched, through torch's
    # producer (any torch: this needs no uint32 dtype).
    torch = pytest.importorskip("torch")
    tensor = torch.zeros(8, dtype=getattr(torch, dtype))
    with pytest.raises(ValueError, match=pattern):
        randtensor.fill(tensor)
    assert int(tensor.abs().sum()) == 0
