"""randtensor.torch.install(): PyTorch's own random operators on randtensor.

Expected values come from outside the backend: the H100 recording of 150
torch 2.11 CUDA calls (tests/reference/torch_cuda/recorded, made by
capture_torch_cuda.py) replayed through unchanged torch calls on the CPU;
the independent Philox reference (philox_reference.py) with SPEC.md section
8's formulas written out here in NumPy; and stock PyTorch itself for errors
and for everything the backend must leave alone."""
import json
import os
import struct
import subprocess
import sys
import warnings

import numpy as np
import pytest

if os.environ.get("RANDTENSOR_REQUIRE_TORCH"):
    import torch
else:
    torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

import randtensor.torch as rt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import philox_reference as ref  # noqa: E402
from digest import sha256_hex  # noqa: E402
from gpu_normals import normal_close  # noqa: E402

ROOT = os.path.join(HERE, os.pardir, os.pardir)
RECORDED = os.path.join(ROOT, "tests", "reference", "torch_cuda", "recorded")
BACKEND_RECORDED = os.path.join(ROOT, "tests", "reference", "torch_backend", "recorded")
DT = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
      "bfloat16": torch.bfloat16, "int32": torch.int32, "int64": torch.int64,
      "uint8": torch.uint8, "bool": torch.bool, "int16": torch.int16, "int8": torch.int8}
SIGNED = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@pytest.fixture
def backend():
    rt.install()
    try:
        yield
    finally:
        rt.uninstall()


def bits(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bool:
        t = t.to(torch.uint8)
    if t.dtype != SIGNED[t.element_size()]:
        t = t.view(SIGNED[t.element_size()])
    return t.numpy().view(UNSIGNED[t.element_size()])


def stream_words(seed, count, offset=0):
    """The independent reference's words from torch.cuda's (seed, offset)."""
    state = [(offset // 4) & 0xFFFFFFFF, (offset // 4) >> 32, 0, 0, seed & 0xFFFFFFFF, seed >> 32]
    return np.asarray(ref.stream(state, count), dtype=np.uint64)


def u32(words):
    """SPEC.md section 8's u32 in float: float(x) * 2^-32 is exact, so the
    fused multiply-add rounds once, as this add does."""
    return (words.astype(np.float32) * np.float32(2.0 ** -32) + np.float32(2.0 ** -33)).astype(
        np.float32)


# --------------------------------------------------------------------------
# The H100 recording, replayed through unchanged torch calls on the CPU

def _dropout_input(n, dtype):
    i = torch.arange(n, dtype=torch.int64)
    return ((i * 37) % 255 - 127).to(dtype) / 8


def _run(call, generator):
    api, n, dt, p = call["api"], call["n"], DT[call["dtype"]], call["params"]
    kw = {} if generator is None else {"generator": generator}
    if api == "rand":
        return torch.rand(n, dtype=dt, **kw), None
    if api == "uniform_":
        return torch.empty(n, dtype=dt).uniform_(p["low"], p["high"], **kw), None
    if api == "randn":
        return torch.randn(n, dtype=dt, **kw), None
    if api == "normal_":
        return torch.empty(n, dtype=dt).normal_(p["mean"], p["std"], **kw), None
    if api == "bernoulli_":
        return torch.empty(n, dtype=dt).bernoulli_(p["p"], **kw), None
    if api == "randint":
        return torch.randint(p["low"], p["high"], (n,), dtype=dt, **kw), None
    if api == "random_from_to":
        return torch.empty(n, dtype=dt).random_(p["low"], p["high"], **kw), None
    if api == "random_":
        return torch.empty(n, dtype=dt).random_(**kw), None
    if api == "random_full64":
        return torch.empty(n, dtype=dt).random_(-(2 ** 63), None, **kw), None
    x = _dropout_input(n, dt)
    if api == "native_dropout":
        return torch.ops.aten.native_dropout.default(x, p["p"], True)
    if api == "F.dropout":
        return F.dropout(x, p["p"], training=True), None
    if api == "F.dropout_inplace":
        return F.dropout(x, p["p"], training=True, inplace=True), None
    raise ValueError(api)


def _recording():
    with open(os.path.join(RECORDED, "torch_cuda_order.json")) as f:
        data = json.load(f)
    return data["env"], data["calls"], np.load(os.path.join(RECORDED, "torch_cuda_order.npz"))


def test_every_recorded_h100_call_is_replayed_through_plain_torch_calls():
    env, calls, arrays = _recording()
    mismatches = []
    with rt.installed(order="torch_cuda", gpu=(env["sm_count"], env["threads_per_sm"])):
        for call in calls:
            seed, offset = call["state_before"]
            generator = None
            if call["generator"] == "default":
                torch.manual_seed(seed)
            else:
                generator = torch.Generator().manual_seed(seed)
            rt.set_offset(offset, generator)
            out, mask = _run(call, generator)
            where = f"call {call['id']} {call['api']} {call['dtype']} n={call['n']}"
            if rt.get_offset(generator) != call["state_after"][1]:
                mismatches.append(f"{where}: offset {rt.get_offset(generator)}, "
                                  f"GPU {call['state_after'][1]}")
            got = bits(out)
            if call["kind"] == "normal":
                idx = arrays[f"c{call['id']}_idx"]
                want = arrays[f"c{call['id']}_val"].astype(got.dtype)
                floats = {2: np.float16, 4: np.float32, 8: np.float64}[got.itemsize]
                g, w = got[idx], want
                if call["dtype"] == "bfloat16":  # widen the 16 bits to float32's top half
                    g, w = (g.astype(np.uint32) << 16).view(np.float32), \
                        (w.astype(np.uint32) << 16).view(np.float32)
                else:
                    g, w = g.view(floats), w.view(floats)
                ok = normal_close(g, w, call["dtype"], call["params"].get("std", 1.0))
                if not ok.all():
                    mismatches.append(f"{where}: {int((~ok).sum())} normals beyond tolerance")
                continue
            if sha256_hex(got) != call["sha256"]:
                mismatches.append(f"{where}: values differ from the GPU's")
            if mask is not None and "mask_sha256" in call and \
                    sha256_hex(bits(mask)) != call["mask_sha256"]:
                mismatches.append(f"{where}: mask differs from the GPU's")
    assert not mismatches, "\n".join(mismatches[:20])
    assert len(calls) >= 150


# --------------------------------------------------------------------------
# Stream order: values from the independent reference

def test_rand_is_spec_uniform_of_the_stream(backend):
    torch.manual_seed(0xDEADBEEF12345)
    got = torch.rand(1003)
    u = u32(stream_words(0xDEADBEEF12345, 1003))
    want = np.where(u == np.float32(1.0), np.float32(0.0), u)
    assert np.array_equal(bits(got), want.view(np.uint32))
    assert rt.get_offset() == 4 * 251


def test_consecutive_calls_continue_the_stream_and_views_fill_in_logical_order(backend):
    torch.manual_seed(7)
    a = torch.empty(3, 5).t()                  # a transposed view: logical order
    a.bernoulli_(0.25)
    b = torch.empty(6, dtype=torch.int64).random_(0, 1000)
    words = stream_words(7, 16 + 6)
    want_a = (u32(words[:15]) < np.float32(0.25)).astype(np.float32).reshape(5, 3)
    assert np.array_equal(a.numpy(), want_a)
    # the second call starts at the next whole block: offset 16
    assert np.array_equal(b.numpy(), (words[16:22] % 1000).astype(np.int64))


def test_torch_generators_are_independent_streams(backend):
    torch.manual_seed(1)
    g = torch.Generator().manual_seed(99)
    x = torch.rand(8, generator=g)
    y = torch.rand(8)
    assert np.array_equal(bits(x), bits(torch.rand(8, generator=torch.Generator().manual_seed(99))))
    assert rt.get_offset(g) == 8 and rt.get_offset() == 8
    torch.manual_seed(99)
    assert torch.equal(torch.rand(8), x)
    assert not torch.equal(x, y)


def test_manual_seed_initial_seed_and_rng_state_round_trips(backend):
    torch.manual_seed(1234)
    assert torch.initial_seed() == 1234
    first = torch.randn(100)
    torch.manual_seed(1234)  # the same seed again starts over
    assert torch.equal(torch.randn(100), first)
    state = torch.get_rng_state()
    a = torch.rand(50)
    torch.set_rng_state(state)
    assert torch.equal(torch.rand(50), a)
    torch.set_rng_state(state)
    with torch.random.fork_rng():
        inner = torch.rand(50)
    assert torch.equal(inner, a) and torch.equal(torch.rand(50), a)


def test_thread_count_and_layout_never_change_values(backend):
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        torch.manual_seed(5)
        one = torch.randn(300001)
        torch.set_num_threads(2)
        torch.manual_seed(5)
        two = torch.randn(300001)
    finally:
        torch.set_num_threads(threads)
    assert torch.equal(one, two)
    torch.manual_seed(5)
    padded = torch.empty(300, 1100)[:, 3:1003]
    padded.normal_()
    assert torch.equal(padded.reshape(-1), one[:300000])


def test_gamma_and_dirichlet_keep_the_offset_and_see_no_nan(backend):
    torch.manual_seed(3)
    torch.rand(10)
    offset = rt.get_offset()
    sample = torch.distributions.Gamma(torch.full((1000,), 2.0), 1.0).sample()
    beta = torch.distributions.Beta(torch.full((100,), 2.0), 3.0).sample()
    assert torch.isfinite(sample).all() and torch.isfinite(beta).all()
    assert rt.get_offset() == offset


def test_autograd_version_counters_and_errors_are_pytorchs(backend):
    leaf = torch.zeros(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.uniform_()
    with torch.no_grad():
        leaf.uniform_()
    t = torch.zeros(3)
    version = t._version
    t.normal_()
    assert t._version > version
    x = torch.ones(1000, requires_grad=True)
    y = F.dropout(x, 0.5, training=True)
    y.sum().backward()
    assert torch.equal(x.grad, y.detach())  # grad = mask * 2 = y for x = 1
    for call, kind in [(lambda: torch.empty(3).uniform_(2, 1), RuntimeError),
                       (lambda: torch.empty(3).bernoulli_(1.5), RuntimeError),
                       (lambda: torch.empty(3).normal_(0, -1), RuntimeError),
                       (lambda: torch.empty(3).random_(5, 5), RuntimeError),
                       (lambda: torch.empty(3).exponential_(-1), RuntimeError),
                       (lambda: torch.empty(3).geometric_(1.5), RuntimeError),
                       (lambda: torch.empty(3, dtype=torch.int64).normal_(), (RuntimeError,
                                                                              NotImplementedError))]:
        with pytest.raises(kind) as ours:
            call()
        rt.uninstall()
        try:
            with pytest.raises(kind) as stock:
                call()
        finally:
            rt.install()
        assert type(ours.value) is type(stock.value)
        assert str(ours.value).split("\n")[0] == str(stock.value).split("\n")[0]


def test_rand_and_randn_equal_pytorchs_composite_form(backend):
    """torch.rand/randn are served by their own CPU kernels: each must equal
    PyTorch's definition (empty, then uniform_(0, 1) or normal_(0, 1)), with
    the default and a named generator, in every dtype, and leave the same
    offset; what those kernels do not draw themselves keeps PyTorch's path."""
    fills = ((torch.rand, lambda t, kw: t.uniform_(0, 1, **kw)),
             (torch.randn, lambda t, kw: t.normal_(0, 1, **kw)))
    for dtype in (None, torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.cfloat):
        for factory, fill in fills:
            for named in (False, True):
                results = []
                for how in ("factory", "composite"):
                    torch.manual_seed(3)
                    kw = {"generator": torch.Generator().manual_seed(5)} if named else {}
                    if how == "factory":
                        t = factory(5, 7, dtype=dtype, **kw)
                    else:
                        t = fill(torch.empty(5, 7, dtype=dtype), kw)
                    results.append((t, rt.get_offset(kw.get("generator"))))
                (a, offset_a), (b, offset_b) = results
                assert a.dtype == (dtype or torch.get_default_dtype())
                assert torch.equal(a, b) and offset_a == offset_b > 0, (factory, dtype, named)
    assert torch.randn(3, requires_grad=True).requires_grad
    with warnings.catch_warnings():  # named tensors are experimental
        warnings.simplefilter("ignore")
        assert torch.rand(2, 3, names=("a", "b")).names == ("a", "b")


def test_rand_and_randn_follow_the_default_dtype_and_requires_grad(backend):
    """The factories' own allocation (no trip through the dispatcher for
    empty) keeps what at::empty would: the default dtype, requires_grad, and
    the composite form's values."""
    default = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        for factory, draw in ((torch.rand, lambda t: t.uniform_()),
                              (torch.randn, lambda t: t.normal_())):
            torch.manual_seed(5)
            x = factory(3, 5, requires_grad=True)
            torch.manual_seed(5)
            want = draw(torch.empty(3, 5))
            assert x.dtype == torch.float64 and x.requires_grad and x.is_contiguous()
            assert torch.equal(x.detach(), want)
            assert factory(0).shape == (0,)
    finally:
        torch.set_default_dtype(default)


def test_rand_and_randn_errors_are_pytorchs():
    calls = (lambda: torch.randn(4, dtype=torch.int64), lambda: torch.rand(4, dtype=torch.int32),
             lambda: torch.randn(-1), lambda: torch.rand(3, layout=torch.sparse_csr))
    for call in calls:
        messages = []
        for installed in (False, True):
            if installed:
                rt.install()
            try:
                with pytest.raises(RuntimeError) as error:
                    call()
                messages.append(str(error.value))
            finally:
                rt.uninstall()
        assert messages[0] == messages[1]


def test_every_dtype_torch_allows_and_zero_size(backend):
    torch.manual_seed(11)
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        for op in (lambda t: t.uniform_(-1, 1), lambda t: t.normal_(2, 3),
                   lambda t: t.exponential_(2), lambda t: t.log_normal_(0, 0.5),
                   lambda t: t.cauchy_(), lambda t: t.geometric_(0.25)):
            t = op(torch.empty(1000, dtype=dtype))
            assert t.dtype == dtype and bool(torch.isfinite(t.float()).all())
    for dtype in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                  torch.float32, torch.float64, torch.float16, torch.bfloat16):
        b = torch.empty(2000, dtype=dtype).bernoulli_(0.3)
        assert set(b.double().unique().tolist()) <= {0.0, 1.0}
        r = torch.empty(2000, dtype=dtype).random_()
        assert r.double().min() >= 0
        if dtype != torch.bool:
            assert set(torch.empty(500, dtype=dtype).random_(3, 9).double().unique().tolist()) \
                <= set(map(float, range(3, 9)))
    assert torch.empty(2, 3, dtype=torch.cfloat).normal_().abs().sum() > 0
    e = torch.empty(0, 5)
    before = rt.get_offset()
    e.uniform_()
    torch.rand(0)
    assert rt.get_offset() == before


def test_exponential_is_pytorch_cudas_formula_of_the_stream(backend):
    torch.manual_seed(21)
    got = torch.empty(4001).exponential_(2.5)
    u = u32(stream_words(21, 4001)).astype(np.float64)
    log = np.where(u >= 1 - 2.0 ** -24, -(2.0 ** -24), np.log(u))
    want = -1 / 2.5 * log
    assert np.allclose(got.numpy(), want, rtol=4e-7, atol=0)
    assert (got > 0).all()


def test_uninstall_gives_pytorch_its_kernels_back():
    torch.manual_seed(0)
    stock = torch.rand(16)
    with rt.installed():
        torch.manual_seed(0)
        ours = torch.rand(16)
        assert rt.is_installed()
    assert not rt.is_installed()
    torch.manual_seed(0)
    assert torch.equal(torch.rand(16), stock)
    assert not torch.equal(ours, stock)


def test_forked_processes_and_dataloader_workers_do_not_repeat(backend, tmp_path):
    script = tmp_path / "fork.py"
    script.write_text(
        "import os, sys, torch, randtensor.torch as rt\n"
        "rt.install()\n"
        "torch.manual_seed(5)\n"
        "r, w = os.pipe()\n"
        "pid = os.fork()\n"
        "x = torch.rand(4)\n"
        "if pid == 0:\n"
        "    os.write(w, x.numpy().tobytes()); os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "child = os.read(r, 16)\n"
        "print(child != x.numpy().tobytes())\n"
        "import torch.utils.data as d\n"
        "class D(d.Dataset):\n"
        "    def __len__(self): return 4\n"
        "    def __getitem__(self, i): return torch.rand(2)\n"
        "out = torch.cat(list(d.DataLoader(D(), batch_size=1, num_workers=2)))\n"
        "print(len({tuple(v.tolist()) for v in out}) == 4)\n")
    env = dict(os.environ)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "True"], run.stdout


def test_set_offset_rejects_what_torch_cuda_rejects(backend):
    with pytest.raises(RuntimeError, match="multiple of 4"):
        rt.set_offset(6)
    with pytest.raises(RuntimeError, match="negative"):
        rt.set_offset(-4)


def test_state_bytes_carry_seed_and_offset(backend):
    torch.manual_seed(77)
    torch.rand(40)
    state = torch.get_rng_state().numpy().tobytes()
    torch.manual_seed(1)
    torch.set_rng_state(torch.tensor(list(state), dtype=torch.uint8))
    assert torch.initial_seed() == 77 and rt.get_offset() == 40
    assert struct.unpack("<Q", state[:8])[0] == 77


# --------------------------------------------------------------------------
# The distributions the backend adds, against an H100
# (tests/reference/torch_backend/record_distributions.py)

def _recorded_distributions():
    folder = os.path.join(HERE, os.pardir, os.pardir, "tests", "reference", "torch_backend")
    sys.path.insert(0, folder)
    import record_distributions as rec
    with open(os.path.join(folder, "recorded", "distributions.json")) as f:
        data = json.load(f)
    return rec, data, np.load(os.path.join(folder, "recorded", "distributions.npz"))


def _as_float64(raw, dtype):
    if dtype == "bfloat16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return raw.view({"float16": np.float16, "float32": np.float32,
                     "float64": np.float64}[dtype]).astype(np.float64)


# The GPU computes these transforms with its fast approximations (__logf,
# __tanf, __expf: absolute errors near 2^-21 on the reduced argument);
# randtensor with the C library's. Compared where that error lives: the
# logarithm (exponential), the angle (Cauchy), the normal (log-normal); the
# narrow types after one rounding to their own precision.
TRANSFORM_TOLERANCE = {"float32": 2.0 ** -19, "float64": 1e-13, "float16": 2.0 ** -10,
                       "bfloat16": 2.0 ** -7}


def test_added_distributions_and_random_overloads_match_an_h100():
    rec, data, arrays = _recorded_distributions()
    env = data["env"]
    problems = []
    with rt.installed(order="torch_cuda", gpu=(env["sm_count"], env["threads_per_sm"])):
        for case, (op, dtype, make) in zip(data["cases"], rec.cases()):
            assert (op, dtype) == (case["op"], case["dtype"])
            torch.manual_seed(case["seed"])
            got_raw = rec.bits(make(case["n"], "cpu", DT[dtype]))
            want_raw = arrays[f"c{case['id']}"]
            where = f"{op} {dtype}"
            if rt.get_offset() != case["offset_after"]:
                problems.append(f"{where}: offset {rt.get_offset()}, GPU {case['offset_after']}")
            if op not in ("exponential_", "cauchy_", "log_normal_"):
                if not np.array_equal(got_raw, want_raw):  # exact: integers and compares
                    problems.append(f"{where}: {int((got_raw != want_raw).sum())} values differ")
                continue
            got, want = _as_float64(got_raw, dtype), _as_float64(want_raw, dtype)
            if op == "exponential_":  # -log(u) / 1.5
                got, want = got * 1.5, want * 1.5
            elif op == "cauchy_":  # 0.5 + 2 tan(angle)
                got, want = np.arctan((got - 0.5) / 2), np.arctan((want - 0.5) / 2)
            else:  # exp(normal(0.25, 0.5))
                got, want = np.log(got), np.log(want)
            tolerance = TRANSFORM_TOLERANCE[dtype] * np.maximum(1.0, np.abs(want))
            bad = ~(np.abs(got - want) <= tolerance)
            if bad.any():
                problems.append(f"{where}: {int(bad.sum())} values beyond tolerance, worst "
                                f"{np.max(np.abs(got - want)[bad]):.3g}")
    assert not problems, "\n".join(problems)


def test_first_touch_advice_never_changes_values():
    """20 MiB fills (past the advice threshold) with and without huge pages,
    on one thread (pages faulted in before the fill) and on two."""
    values = []
    threads = torch.get_num_threads()
    try:
        for huge in (False, True):
            for n in (1, 2):
                torch.set_num_threads(n)
                with rt.installed(huge_pages=huge):
                    torch.manual_seed(8)
                    values.append(torch.rand(5 << 20))
    finally:
        torch.set_num_threads(threads)
    assert all(torch.equal(values[0], v) for v in values[1:])
    with pytest.raises(TypeError, match="huge_pages"):
        rt.install(huge_pages="yes")


@pytest.mark.parametrize("n", [1000, 70001])  # one pass / PyTorch's multiplies
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float64])
def test_stream_dropout_is_cudas_formula_of_the_stream(backend, n, dtype):
    torch.manual_seed(31)
    x = (torch.arange(n, dtype=torch.float64) % 255 - 127).div(8).to(dtype)
    out, mask = torch.native_dropout(x, 0.3, True)
    keep_p = np.float32(0.7)
    if dtype == torch.float64:  # CUDA compares u < 0.7 in double
        keep = u32(stream_words(31, n)).astype(np.float64) < 0.7
    else:
        keep = u32(stream_words(31, n)) < keep_p
    assert np.array_equal(mask.numpy(), keep)
    if dtype == torch.float64:
        want = x.numpy() * keep * (1 / 0.7)
    else:
        scale = np.float32(1 / np.float64(np.float32(0.7)))
        want = (x.float().numpy() * keep.astype(np.float32) * scale).astype(np.float32)
        want = torch.from_numpy(want).to(dtype).float().numpy()
        out = out.float()
    assert np.array_equal(out.numpy(), want)


@pytest.mark.parametrize("make", [
    lambda buf: buf[:1].expand(70001),                          # stride 0
    lambda buf: buf[:140002].view(70001, 2)[:, 0],              # every other element
    lambda buf: buf[:140058].view(251, 279, 2)[:, :, 0].t(),    # gaps, transposed
])
def test_torch_cuda_dropout_of_a_strided_input(make):
    """Dropout.cu reads an input that is not dense one element at a time in
    logical order, as it reads a dense one whose address allows no vector:
    the same mask for the same (seed, offset) and count; the results take
    torch.empty_like's layout of the input."""
    buf = torch.ones(140059, dtype=torch.float16)
    x = make(buf)
    n = x.numel()
    assert not x.is_contiguous()
    with rt.installed(order="torch_cuda", gpu=(132, 2048)):
        torch.manual_seed(5)
        out, mask = torch.native_dropout(x, 0.25, True)
        torch.manual_seed(5)
        want_out, want_mask = torch.native_dropout(buf[1:n + 1], 0.25, True)  # odd address
    like = torch.empty_like(x)
    assert out.shape == x.shape and out.stride() == like.stride()
    assert mask.shape == x.shape and mask.stride() == like.stride()
    assert torch.equal(mask.reshape(-1), want_mask) and torch.equal(out.reshape(-1), want_out)


def test_every_simd_target_gives_the_same_values(tmp_path):
    """The backend's own copy of the library reads RANDTENSOR_TARGET once per
    process; each target this CPU runs draws the same bits for every served
    operator. One interpreter imports PyTorch (seconds of CPU) and forks a
    process per target, which sets the variable, then loads the backend."""
    import randtensor
    targets = [t["name"] for t in randtensor.targets() if t["supported"]]
    script = tmp_path / "draw.py"
    script.write_text(
        "import hashlib, os, sys, torch, torch.nn.functional as F\n"
        "for target in sys.argv[1:]:\n"
        "    sys.stdout.flush()\n"
        "    pid = os.fork()\n"
        "    if pid:\n"
        "        assert os.waitpid(pid, 0)[1] == 0, target\n"
        "        continue\n"
        "    os.environ['RANDTENSOR_TARGET'] = target\n"
        "    import randtensor.torch as rt\n"
        "    rt.install()\n"
        "    torch.manual_seed(9)\n"
        "    x = torch.linspace(-3, 3, 3001)\n"
        "    try:\n"
        "        parts = [torch.rand(1001), torch.randn(1001), torch.randn(1001, dtype=torch.float64),\n"
        "                 torch.empty(1001).bernoulli_(0.3), torch.randint(0, 1000, (1001,)),\n"
        "                 torch.empty(1001, dtype=torch.bfloat16).uniform_(-2, 2),\n"
        "                 torch.empty(1001).exponential_(), F.dropout(x, 0.4)]\n"
        "    except RuntimeError as e:\n"
        "        print(target, 'refused:', e, flush=True)\n"
        "        os._exit(0)\n"
        "    digest = hashlib.sha256(b''.join(p.contiguous().view(torch.uint8).numpy().tobytes()\n"
        "                                     for p in parts)).hexdigest()\n"
        "    print(target, digest, rt.get_offset(), flush=True)\n"
        "    os._exit(0)\n")
    # NEON9000, no target: proof that each process reads the variable.
    run = subprocess.run([sys.executable, str(script), *targets, "NEON9000"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    outputs = dict(line.split(maxsplit=1) for line in run.stdout.splitlines())
    assert outputs.pop("NEON9000").startswith("refused: uniform_: RANDTENSOR_TARGET"), run.stdout
    outputs = {target: values.split() for target, values in outputs.items()}
    assert sorted(outputs) == sorted(targets), run.stdout
    assert len(outputs) >= 2 and "SCALAR" in outputs, outputs
    assert len({tuple(v) for v in outputs.values()}) == 1, outputs
