"""F.dropout past 2^31 - 1 elements, where PyTorch CUDA indexes in 64 bits:
order="torch_cuda" against the H100's recording
(tests/reference/torch_backend/record_dropout_64bit.py). Label "long" (CI
runs it, `scripts/test.sh --long`): each case allocates about 10 GB."""
import json
import os
import sys

import numpy as np
import pytest

if os.environ.get("RANDTENSOR_REQUIRE_TORCH"):
    import torch
else:
    torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import randtensor.torch as rt  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
REFERENCE = os.path.join(ROOT, "tests", "reference", "torch_backend")
sys.path.insert(0, REFERENCE)
import record_dropout_64bit as recording  # noqa: E402


def test_dropout_past_31_bit_indexing_replays_the_gpu():
    with open(os.path.join(REFERENCE, "recorded", "dropout_64bit.json")) as f:
        data = json.load(f)
    env = data["env"]
    assert [c["n"] for c in data["cases"]] == [n for _, n, _ in recording.CASES]
    with rt.installed(order="torch_cuda", gpu=(env["sm_count"], env["threads_per_sm"])):
        for case in data["cases"]:
            torch.manual_seed(env["seed"])
            out = F.dropout(recording.source(case["n"], case["input"], "cpu"), case["p"],
                            training=True)
            assert rt.get_offset() == case["offset_after"], case["case"]
            idx = torch.tensor(recording.sample_indices(case["n"]))
            assert np.array_equal(out[idx].double().numpy(), np.array(case["samples"])), case["case"]
            assert recording.split.sha256(out != 0) == case["mask_sha256"], case["case"]
            del out
