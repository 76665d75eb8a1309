"""torch.compile with randtensor.torch.install() (torch 2.x; skipped on 1.x).

Inductor generates its own random code for rand/randn (its Philox seeded
from the default generator, not randtensor's stream), so compiled code draws
other values than eager code unless torch._inductor.config.fallback_random
= True, which makes Inductor call the ATen operators, hence randtensor's
kernels: then compiled and eager values are equal. Dropout is decomposed
before that choice (into a uniform draw and a compare), so its compiled
masks are not eager's native_dropout masks either way. docs/torch.md says
the same."""
import os

import pytest

if os.environ.get("RANDTENSOR_REQUIRE_TORCH"):
    import torch
else:
    torch = pytest.importorskip("torch")

import randtensor.torch as rt  # noqa: E402

if int(torch.__version__.split(".")[0]) < 2 or not hasattr(torch, "compile"):
    pytest.skip("torch.compile needs torch 2.x (this is torch "
                f"{torch.__version__})", allow_module_level=True)


def draws(x):
    return torch.rand(64) * x + torch.randn(64)


def test_compiled_code_calls_randtensor_with_fallback_random():
    import torch._inductor.config as inductor_config
    x = torch.ones(64)
    with rt.installed():
        torch.manual_seed(3)
        eager = draws(x)
        old = inductor_config.fallback_random
        inductor_config.fallback_random = True
        try:
            torch._dynamo.reset()
            compiled = torch.compile(draws)
            torch.manual_seed(3)
            got = compiled(x)
        finally:
            inductor_config.fallback_random = old
            torch._dynamo.reset()
    assert torch.equal(got, eager)
