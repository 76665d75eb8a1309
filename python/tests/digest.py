"""The digest the recordings keep of a whole output: SHA-256 of its bytes."""

import hashlib

import numpy as np


def sha256_hex(array):
    """SHA-256 of an array's bytes in C order, read in place where the array
    is contiguous (tobytes() would copy it first: a second pass over memory)."""
    return hashlib.sha256(np.ascontiguousarray(array)).hexdigest()
