# Python: fill views of NumPy arrays in place, chaining the state.
import numpy as np

import randtensor

a = np.empty((3, 4), dtype=np.uint32)
state = randtensor.fill(a, seed=0)              # counter 0, key 0
assert a[0, 0] == 0x6627E8D5                    # SPEC.md's first known answer

b = np.zeros((4, 3), dtype=np.uint32)
randtensor.fill(b.T, seed=0)                    # a transposed view: same logical tensor
assert (b.T == a).all()

c = randtensor.generate((2, 5), state=state)    # continues the stream after `a`
print(state, c[0, 0], randtensor.active_target())
