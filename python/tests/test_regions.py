"""Regions of a global tensor through the Python module (SPEC.md section 10):
blocks filled separately, in any view, assemble to the global fill bit for
bit for any chunking, and each reports the global fill's state."""
import itertools

import numpy as np
import pytest

import randtensor

GLOBAL = (6, 10, 7)
STATE = [0xFFFFFFF0, 0xFFFFFFFF, 3, 0, 11, 12]


def global_fill(dtype, **kwargs):
    a = np.empty(GLOBAL, dtype)
    state = randtensor.fill(a, state=STATE, offset=5, **kwargs)
    return a, list(state)


@pytest.mark.parametrize("dtype,kwargs", [
    (np.uint32, {}),
    (np.float32, {"dist": "normal"}),
    (np.float64, {"dist": "uniform", "low": -1.0, "high": 2.0}),
    (np.int64, {"dist": "integers", "low": 0, "high": 2 ** 40}),
])
@pytest.mark.parametrize("block", [(6, 10, 7), (1, 10, 7), (2, 3, 4), (6, 10, 1), (5, 9, 6)])
def test_any_chunking_makes_the_global_tensor(dtype, kwargs, block):
    want, want_state = global_fill(dtype, **kwargs)
    got = np.zeros(GLOBAL, dtype)
    ranges = [range(0, g, b) for g, b in zip(GLOBAL, block)]
    for i, start in enumerate(itertools.product(*ranges)):
        shape = tuple(min(b, g - s) for s, b, g in zip(start, block, GLOBAL))
        if i % 2:  # every other block into a transposed, reversed view
            memory = np.zeros(tuple(reversed(shape)), dtype)
            local = memory.T[::-1]
        else:
            local = np.zeros(shape, dtype)
        state = randtensor.fill(local, state=STATE, offset=5, region=(GLOBAL, start), **kwargs)
        assert list(state) == want_state
        index = tuple(slice(s, s + n) for s, n in zip(start, shape))
        got[index] = local
    assert got.tobytes() == want.tobytes()


def test_a_region_outside_the_global_tensor_is_refused_untouched():
    local = np.full((2, 3), 7, np.uint32)
    with pytest.raises(ValueError, match=r"region.start\[1\] = 5 with sizes\[1\] = 3"):
        randtensor.fill(local, seed=1, region=((4, 6), (0, 5)))
    assert (local == 7).all()
    with pytest.raises(ValueError, match=r"ndim"):
        randtensor.fill(local, seed=1, region=((4, 6, 1), (0, 0, 0)))
