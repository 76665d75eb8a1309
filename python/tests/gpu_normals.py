"""How close randtensor's normals are to a GPU's recorded ones."""

import numpy as np


def normal_close(got, want, dtype, std):
    """A GPU's normals use __sincosf (within 3.1e-6 of the exact formula,
    README), randtensor's are within 2 ulp of it: the two agree to a few
    float32 ulp, or one ulp of the narrower types after their rounding."""
    g, w = got.astype(np.float64), want.astype(np.float64)
    rel = {"float32": 2e-5, "float64": 1e-13, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype]
    return np.abs(g - w) <= rel * np.maximum(np.abs(w), std)
