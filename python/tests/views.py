"""Views into sentinel-filled buffers, for checking that a fill writes exactly
the view's elements."""

import numpy as np


def sentinel_view(buffer_shape, view_of, sentinel, order="C"):
    """(uint32 buffer full of `sentinel`, view_of(buffer), boolean mask of the
    buffer elements the view covers). `view_of` slices, transposes or reverses."""
    buffer = np.full(buffer_shape, sentinel, np.uint32, order=order)
    mask = np.zeros(buffer_shape, bool, order=order)
    view_of(mask)[...] = True
    return buffer, view_of(buffer), mask
