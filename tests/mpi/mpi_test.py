"""MPI: `mpirun -np P randtensor generate ...` and the examples in
examples/mpi write the same bytes as one process, for P = 1 to 4.

The single-process reference is the tool's one-buffer path (packed strides
given explicitly), so these runs prove the chunks, the slabs and the
collective writes together. Runs with --oversubscribe (P may exceed the
cores) and, as root (CI), with Open MPI's permission to.

    RANDTENSOR_CLI=build/tools/randtensor RANDTENSOR_MPIEXEC=mpirun \\
    RANDTENSOR_FILL_MPI=build/examples/mpi/fill_mpi RANDTENSOR_MPI_EXAMPLES=examples/mpi \\
    RANDTENSOR_PYTHONPATH=build/python python3 -m pytest -q tests/mpi/mpi_test.py
"""

import functools
import os
import re
import signal
import subprocess
import sys
import time

import pytest

RANKS = [1, 2, 3, 4]


def required(name):
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"set {name}")
    return value


@functools.lru_cache(maxsize=None)
def launcher():
    """mpirun and the options that let it run P ranks on fewer cores, as root."""
    mpiexec = required("RANDTENSOR_MPIEXEC")
    version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        return [mpiexec, "--oversubscribe"]
    return [mpiexec]


def mpi_env(extra=None):
    env = {k: v for k, v in os.environ.items() if k != "RANDTENSOR_TARGET"}
    # Open MPI refuses root unless told twice; harmless otherwise.
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    env.update(extra or {})
    return env


def mpirun(ranks, *command, env=None, timeout=300):
    return subprocess.run([*launcher(), "-np", str(ranks), *map(str, command)],
                          capture_output=True, text=True, env=mpi_env(env), timeout=timeout)


def cli():
    return os.path.abspath(required("RANDTENSOR_CLI"))


def single(tmp_path, name, args):
    """One process, one buffer: (state line, file bytes)."""
    out = tmp_path / name
    result = subprocess.run([cli(), "generate", *map(str, args), "--out", str(out)],
                            capture_output=True, text=True, env=mpi_env(), timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout, out.read_bytes()


def packed_strides(sizes):
    strides, step = [], 1
    for s in reversed(sizes):
        strides.insert(0, step)
        step *= s
    return ",".join(map(str, strides))


def leftovers(directory):
    return [p.name for p in directory.iterdir() if ".randtensor-" in p.name]


def randtensor_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("randtensor: ")]


# ---------------------------------------------------------------------------
# The CLI under mpirun

CASES = [
    # (sizes, flags): uneven splits, fewer rows than ranks, several chunks per
    # rank, chunks within a row (1-D, 3-D), raw padding, counter wrap.
    pytest.param([1000, 37], ["--dist", "normal", "--seed", "42", "--chunk-bytes", "4000"],
                 id="normal-float32-1000x37"),
    pytest.param([3, 5], ["--seed", "7", "--format", "npy"], id="bits-3x5-npy"),
    pytest.param([1001], ["--dist", "integers", "--low", "-5", "--high", "1000",
                          "--offset", "3", "--chunk-bytes", "100"], id="integers-int64-1d"),
    pytest.param([2, 3, 333], ["--dist", "bernoulli", "--dtype", "uint8", "--p", "0.25",
                               "--pad-byte", "0xab", "--chunk-bytes", "100"],
                 id="bernoulli-uint8-raw-padding"),
    pytest.param([7, 6, 5], ["--dist", "uniform", "--dtype", "bfloat16", "--format", "npy",
                             "--chunk-bytes", "24"], id="uniform-bfloat16-row-chunks"),
    pytest.param([9, 11], ["--dist", "normal", "--dtype", "float64", "--format", "npy",
                           "--state", "0xfffffffe,0xffffffff,0xffffffff,0xffffffff,1,2"],
                 id="normal-float64-counter-wrap"),
    pytest.param([2, 50000], ["--dist", "uniform", "--dtype", "float16", "--low", "-1"],
                 id="uniform-float16-two-rows"),
]


@pytest.mark.parametrize("sizes,flags", CASES)
def test_cli_equals_one_process(tmp_path, sizes, flags):
    sizes_text = ",".join(map(str, sizes))
    # The reference fills one buffer: no --chunk-bytes (and its value).
    cut = flags.index("--chunk-bytes") if "--chunk-bytes" in flags else len(flags)
    one_buffer = flags[:cut] + flags[cut + 2:]
    want_stdout, want = single(tmp_path, "one", ["--sizes", sizes_text, *one_buffer,
                                                 "--strides", packed_strides(sizes)])
    for ranks in RANKS:
        out = tmp_path / f"np{ranks}"
        result = mpirun(ranks, cli(), "generate", "--sizes", sizes_text, *flags, "--out", out)
        assert result.returncode == 0, (ranks, result.stderr)
        assert result.stdout == want_stdout, ranks  # one state line: rank 0's
        assert out.read_bytes() == want, ranks
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("direct", ["1", "0"], ids=["o-direct", "page-cache"])
def test_page_sized_chunks_equal_one_process_direct_or_not(tmp_path, direct):
    # Chunks of many 4 KiB pages starting and ending inside pages (the .npy
    # header, rows of 120044 bytes, uneven slabs): each rank writes a chunk's
    # whole pages with O_DIRECT where the file system takes it (the default)
    # or through the page cache (RANDTENSOR_MPI_DIRECT=0), and the partial
    # pages at its ends through the page cache either way.
    sizes = "37,30011"
    flags = ["--dist", "uniform", "--seed", "5", "--format", "npy"]
    want_stdout, want = single(tmp_path, "one", ["--sizes", sizes, *flags,
                                                 "--strides", packed_strides([37, 30011])])
    for ranks in RANKS:
        out = tmp_path / f"np{ranks}"
        result = mpirun(ranks, cli(), "generate", "--sizes", sizes, *flags,
                        "--chunk-bytes", "300000", "--out", out,
                        env={"RANDTENSOR_MPI_DIRECT": direct})
        assert result.returncode == 0, (ranks, result.stderr)
        assert result.stdout == want_stdout, ranks
        assert out.read_bytes() == want, ranks
    assert leftovers(tmp_path) == []


def test_without_out_only_the_state(tmp_path):
    want_stdout, _ = single(tmp_path, "one", ["--sizes", "10,3", "--dist", "normal"])
    result = mpirun(3, cli(), "generate", "--sizes", "10,3", "--dist", "normal")
    assert result.returncode == 0, result.stderr
    assert result.stdout == want_stdout
    assert randtensor_lines(result.stderr) == []


def pml_components_tried(env):
    """The pml components Open MPI's MPI_Init looked at in the CLI's ranks
    (from its verbose log), or None when the MPI is not Open MPI."""
    if launcher() == [required("RANDTENSOR_MPIEXEC")]:
        return None
    result = mpirun(2, cli(), "generate", "--sizes", "4",
                    env={"OMPI_MCA_pml_base_verbose": "10", **env})
    assert result.returncode == 0, result.stderr
    return set(re.findall(r"select: (?:initializing pml )?component (\w+)", result.stderr))


def test_open_mpi_takes_ob1_unless_the_user_names_a_transport():
    """The CLI sets pml ob1 (and btl self,vader,tcp) before MPI_Init: Open
    MPI's search for a fast network costs 0.2 s, for a few small messages."""
    tried = pml_components_tried({})
    if tried is None:
        pytest.skip("not Open MPI")
    assert tried == {"ob1"}
    # A user's mtl means pml cm: Open MPI's own selection, more than ob1.
    assert pml_components_tried({"OMPI_MCA_mtl": "^ofi"}) - {"ob1"}


@pytest.mark.parametrize("name,value", [("pml", "no-such-pml"), ("btl", "self")])
def test_a_transport_the_user_names_is_kept(tmp_path, name, value):
    """Open MPI fails with the user's choice (no such pml; btl self cannot
    reach another rank): the CLI did not replace it with its defaults."""
    if launcher() == [required("RANDTENSOR_MPIEXEC")]:
        pytest.skip("not Open MPI")
    out = tmp_path / "x.bin"
    for env in ({f"OMPI_MCA_{name}": value}, None):  # environment, then mpirun --mca
        command = [cli(), "generate", "--sizes", "4", "--out", out]
        if env is None:
            command = ["--mca", name, value, *command]
        result = mpirun(2, *command, env=env, timeout=120)
        assert result.returncode != 0, result.stderr
        assert not out.exists()


@pytest.mark.parametrize("args,pattern", [
    (["--strides", "1"], "packed tensors only"),
    (["--total-bytes", "64"], "packed tensors only"),
    (["--repeat", "2"], "--repeat"),
    (["--out", "-"], "--out -"),
    (["--dist", "bernoulli", "--p", "2"], "distribution.p = 2"),
    (["--out", "/no/such/directory/x.bin"], "/no/such/directory/x.bin"),
])
def test_errors_are_said_once_and_write_nothing(tmp_path, args, pattern):
    out = tmp_path / "keep.bin"
    out.write_bytes(b"older contents")
    if "--out" not in args:
        args = [*args, "--out", out]
    result = mpirun(2, cli(), "generate", "--sizes", "16", *args)
    assert result.returncode != 0
    lines = randtensor_lines(result.stderr)
    assert len(lines) == 1 and pattern in lines[0], result.stderr  # rank 0 alone speaks
    assert result.stdout == ""
    assert out.read_bytes() == b"older contents"
    assert leftovers(tmp_path) == []


def test_an_interrupted_job_keeps_the_older_file_and_cleans_up(tmp_path):
    out = tmp_path / "keep.bin"
    out.write_bytes(b"older contents")
    process = subprocess.Popen(
        [*launcher(), "-np", "2", cli(), "generate", "--sizes", "536870912", "--dist", "normal",
         "--dtype", "float64", "--chunk-bytes", "4096", "--threads", "1", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=mpi_env())
    deadline = time.monotonic() + 60
    while not leftovers(tmp_path):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no temporary file appeared"
        time.sleep(0.02)
    time.sleep(0.2)  # well into the collective writes
    process.send_signal(signal.SIGTERM)  # mpirun passes it on to every rank
    _, stderr = process.communicate(timeout=120)
    assert process.returncode != 0
    assert out.read_bytes() == b"older contents"
    deadline = time.monotonic() + 10  # rank 0 removes it as it dies
    while leftovers(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftovers(tmp_path) == [], stderr.decode()


# ---------------------------------------------------------------------------
# The examples: the library's regions and MPI-IO, in C++ and with mpi4py


def test_cpp_example_equals_one_process(tmp_path):
    fill_mpi = required("RANDTENSOR_FILL_MPI")
    want_stdout, want = single(tmp_path, "one", ["--sizes", "997,31", "--dist", "normal",
                                                 "--seed", "42", "--strides", "31,1"])
    for ranks in [*RANKS, 7]:
        out = tmp_path / f"np{ranks}.bin"
        out.write_bytes(b"x" * (len(want) + 100))  # an older, longer file: truncated
        result = mpirun(ranks, fill_mpi, out, 997, 31)
        assert result.returncode == 0, result.stderr
        assert result.stdout == want_stdout, ranks
        assert out.read_bytes() == want, ranks


def test_mpi4py_example_equals_one_process(tmp_path):
    pythonpath = os.environ.get("RANDTENSOR_PYTHONPATH")
    if not pythonpath:
        pytest.skip("the Python module or mpi4py is not built or installed")
    numpy = pytest.importorskip("numpy")
    example = os.path.join(required("RANDTENSOR_MPI_EXAMPLES"), "fill_mpi4py.py")
    python = os.environ.get("RANDTENSOR_PYTHON", sys.executable)
    want_stdout, want = single(tmp_path, "one.npy", ["--sizes", "301,17", "--dist", "normal",
                                                     "--seed", "42", "--format", "npy"])
    want_data = want[10 + int.from_bytes(want[8:10], "little"):]
    outputs = []
    for ranks in RANKS:
        out = tmp_path / f"np{ranks}.npy"
        result = mpirun(ranks, python, example, out, 301, 17, env={"PYTHONPATH": pythonpath})
        assert result.returncode == 0, result.stderr
        assert result.stdout == want_stdout, ranks
        got = out.read_bytes()
        # NumPy's header may be longer than the tool's (it leaves room to
        # grow the shape); the elements after it are the same bytes.
        assert got[10 + int.from_bytes(got[8:10], "little"):] == want_data, ranks
        array = numpy.load(out)
        assert array.dtype == numpy.float32 and array.shape == (301, 17)
        outputs.append(got)
    assert all(o == outputs[0] for o in outputs)  # and byte for byte whatever the ranks


def test_a_full_disk_fails_on_every_rank_and_keeps_the_older_file(tmp_path):
    """A write that fails (ENOSPC on a small tmpfs) fails the job: Open MPI
    4.1's ompio reported such writes as successes and published a file with
    holes. Needs the right to mount a tmpfs (root); skipped otherwise."""
    small = tmp_path / "small"
    small.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(small)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        out = small / "keep.bin"
        out.write_bytes(b"older contents")
        for ranks, chunk in [(2, 1 << 20), (3, 100000)]:
            result = mpirun(ranks, cli(), "generate", "--sizes", "64,65536", "--threads", "1",
                            "--chunk-bytes", chunk, "--out", out)
            assert result.returncode == 1, result.stderr
            lines = randtensor_lines(result.stderr)
            assert len(lines) == 1 and "No space left on device" in lines[0], result.stderr
            assert out.read_bytes() == b"older contents"
            assert leftovers(small) == []
    finally:
        subprocess.run(["umount", str(small)], capture_output=True)
