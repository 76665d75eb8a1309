"""benchmarks/torch_capi.py, which compare_torch_adapter.py --capi times
where randtensor's module cannot load, makes the fills randtensor.torch
makes: the same values and the same generator state after each, for the
three timed distributions in float32 and bfloat16, two calls chained.
Skipped without torch or without the shared library (RANDTENSOR_LIBRARY)."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")
import randtensor.torch as rt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "benchmarks"))
from torch_capi import CapiTorch  # noqa: E402

LIBRARY = os.environ.get("RANDTENSOR_LIBRARY")


@pytest.mark.skipif(not LIBRARY, reason="RANDTENSOR_LIBRARY does not name librandtensor.so")
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name,args", [("uniform_", ()), ("normal_", ()), ("bernoulli_", (0.5,)),
                                       ("uniform_", (-2.0, 3.0)), ("normal_", (1.0, 0.5))])
def test_capi_fills_equal_the_adapter(dtype, name, args):
    capi = CapiTorch(LIBRARY)
    ours, theirs = rt.Generator(seed=7), capi.Generator(seed=7)
    for _ in range(2):
        a = getattr(rt, name)(torch.empty(1001, dtype=dtype), *args, generator=ours)
        b = getattr(capi, name)(torch.empty(1001, dtype=dtype), *args, generator=theirs)
        bits = torch.int16 if dtype == torch.bfloat16 else torch.int32
        assert torch.equal(a.view(bits), b.view(bits))
    # The next draw equals too, so both generators advanced alike.
    a = rt.uniform_(torch.empty(5), generator=ours)
    b = capi.uniform_(torch.empty(5), generator=theirs)
    assert torch.equal(a, b)
