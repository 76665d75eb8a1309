# Python: fill NumPy arrays (any view) in place, chaining the state.
import numpy as np

import randtensor

a = np.empty((3, 4), dtype=np.uint32)
state = randtensor.fill(a, seed=0)              # counter 0, key 0
assert a[0, 0] == 0x6627E8D5                    # SPEC.md's first known answer
b = np.zeros((4, 3), dtype=np.uint32)
randtensor.fill(b.T, seed=0)                    # a transposed view: the same logical tensor
assert (b.T == a).all()
c = randtensor.generate((2, 5), state=state)    # continues the stream after `a`
x = randtensor.uniform((2, 3), low=-1, high=1, dtype="float16", seed=42)
z = randtensor.normal((4, 4), mean=0.0, std=0.02, dtype="bfloat16", seed=42)  # uint16 bits
k = randtensor.integers((8,), 0, 10, seed=7)    # int64
g = np.random.Generator(randtensor.Philox4x32(seed=42))  # NumPy's own API on the stream
n = g.standard_normal((3, 4))
print(state, c[0, 0], randtensor.active_target())
