"""Tensors past 2^31 - 1 bytes or elements, where PyTorch CUDA launches in
32-bit-indexed parts (uniform_, normal_) or indexes in 64 bits (F.dropout):
order="torch_cuda" against the H100's recordings
(tests/reference/torch_backend/record_split_launches.py,
record_dropout_64bit.py). Label "long" (CI runs it, `scripts/test.sh
--long`): each case fills 2 GiB (split launches) or about 10 GB (dropout),
whose first touch is most of the time in a VM."""
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
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
from gpu_normals import normal_close  # noqa: E402
import record_dropout_64bit as recording  # noqa: E402
import record_split_launches as split  # noqa: E402


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


def test_tensors_past_31_bit_offsets_replay_pytorchs_split_launches():
    """Each part starts at the offset the previous left: the recorded GPU's
    values (SHA-256 of 2 GiB each; normals: samples within gpu_normals'
    bound) and offsets, under the recording's geometry."""
    with open(os.path.join(REFERENCE, "recorded", "split_launches.json")) as f:
        data = json.load(f)
    env = data["env"]
    assert [(c["op"], c["dtype"], c["n"]) for c in data["cases"]] == split.CASES
    largest = max(c["n"] * torch.empty(0, dtype=split.DT[c["dtype"]]).element_size()
                  for c in data["cases"])
    buffer = torch.empty(largest, dtype=torch.uint8)
    with rt.installed(order="torch_cuda", gpu=(env["sm_count"], env["threads_per_sm"])):
        for case in data["cases"]:
            torch.manual_seed(env["seed"])
            x = split.fill(buffer, case["op"], case["dtype"], case["n"])
            assert rt.get_offset() == case["offset_after"], case
            if case["op"] == "normal_":
                got = x[torch.tensor(split.sample_indices(case["n"]))].double().numpy()
                want = np.array([float.fromhex(v) for v in case["samples"]])
                assert normal_close(got, want, case["dtype"], 1.0).all(), case
            else:
                assert split.sha256(x) == case["sha256"], case
