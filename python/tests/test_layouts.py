"""Every view of one logical tensor gets the same values, and the memory
around a view (gaps, padding) is never written."""

import numpy as np
import pytest

import philox_reference as ref
import randtensor
from views import sentinel_view

SHAPE = (6, 7, 5)
STATE = [0xFFFFFFFD, ref.MASK32, 0, 0, 0xA5A5A5A5, 0x5A5A5A5A]
SENTINEL = 0xDEADBEEF

# Each layout: (shape of the underlying buffer, order, the view of SHAPE into it).
LAYOUTS = {
    "c_contiguous": ((6, 7, 5), "C", lambda b: b),
    "fortran": ((6, 7, 5), "F", lambda b: b),
    "transposed_of_larger": ((5, 9, 6), "C", lambda b: b[:, 1:8, :].transpose(2, 1, 0)),
    "step_2": ((12, 7, 10), "C", lambda b: b[::2, :, 1::2]),
    "negative_stride": ((6, 7, 5), "C", lambda b: b[::-1]),
    "all_negative": ((6, 7, 5), "C", lambda b: b[::-1, ::-1, ::-1]),
    "negative_step_3": ((6, 21, 5), "C", lambda b: b[:, ::-3, :]),
    "padded": ((8, 9, 8), "C", lambda b: b[1:7, 1:8, 2:7]),
    "nhwc_permuted": ((6, 5, 7), "C", lambda b: b.transpose(0, 2, 1)),
    "fortran_padded_reversed": ((7, 8, 6), "F", lambda b: b[:6, 7:0:-1, :5]),
}


def make_view(layout):
    """(buffer prefilled with SENTINEL, view of SHAPE into it, mask of the view's elements)."""
    buffer_shape, order, view_of = LAYOUTS[layout]
    buffer, view, mask = sentinel_view(buffer_shape, view_of, SENTINEL, order)
    assert view.shape == SHAPE and np.shares_memory(view, buffer)
    return buffer, view, mask


@pytest.fixture(scope="module")
def expected():
    return ref.logical(STATE, SHAPE)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_view_holds_the_logical_tensor(layout, expected):
    buffer, view, mask = make_view(layout)
    new_state = randtensor.fill(view, state=STATE)
    assert np.array_equal(view, expected)
    assert (buffer[~mask] == SENTINEL).all(), "a gap or padding element was written"
    assert new_state.tolist() == ref.advanced(STATE, int(np.prod(SHAPE)))


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_view_equals_packed_generate(layout):
    _, view, _ = make_view(layout)
    randtensor.fill(view, seed=2024, threads=2)
    assert np.array_equal(view, randtensor.generate(SHAPE, seed=2024))


def test_element_order_is_logical_not_memory():
    """In a transposed view, element (i, j) is logical element i * cols + j."""
    buffer = np.zeros((4, 3), np.uint32)
    randtensor.fill(buffer.T, state=STATE)
    stream = ref.stream(STATE, 12)
    for i in range(3):
        for j in range(4):
            assert buffer.T[i, j] == stream[i * 4 + j]


def test_odd_strides_on_dimensions_that_never_move():
    """A size-1 (or empty) axis may have any byte stride; it never addresses memory."""
    raw = np.zeros(64, np.uint8)
    view = np.lib.stride_tricks.as_strided(raw.view(np.uint32), shape=(1, 5), strides=(3, 4))
    randtensor.fill(view, state=STATE)
    assert view.tolist() == [ref.stream(STATE, 5).tolist()]
    assert (raw[20:] == 0).all()


def test_eight_dimensions_strided():
    shape = (2, 1, 3, 1, 2, 1, 2, 3)
    buffer = np.full((4, 1, 3, 2, 2, 1, 2, 4), SENTINEL, np.uint32)
    view = buffer[::2, :, ::-1, :1, :, :, :, 1:]
    assert view.shape == shape
    randtensor.fill(view, state=STATE)
    assert np.array_equal(view, ref.logical(STATE, shape))
    assert (buffer == SENTINEL).sum() == buffer.size - view.size


def test_large_permuted_view_with_threads():
    """Large enough to be cut into tasks; the view is transposed and reversed."""
    buffer = np.full((700, 1300), SENTINEL, np.uint32)
    view = buffer[::-1, 3:1203].T  # (1200, 700)
    for threads in (1, 4):
        randtensor.fill(view, state=STATE, threads=threads)
        assert np.array_equal(view, ref.logical(STATE, view.shape)), threads
    assert (buffer[:, :3] == SENTINEL).all() and (buffer[:, 1203:] == SENTINEL).all()


def test_numpy_subclasses_take_the_numpy_path(tmp_path):
    memmap = np.memmap(tmp_path / "m.bin", dtype=np.uint32, mode="w+", shape=SHAPE)
    randtensor.fill(memmap, state=STATE)
    assert np.array_equal(memmap, ref.logical(STATE, SHAPE))
