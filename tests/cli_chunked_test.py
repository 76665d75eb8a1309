"""The command-line tool's packed outputs: chunks, the temporary file, --out -
and progress, checked from outside.

Packed outputs (no --strides, --total-bytes or --repeat) are filled and
written in chunks, each a region of the whole tensor; strided ones are filled
in one buffer. Given packed strides explicitly (--strides 5,1 for sizes 3,5),
the tool takes the one-buffer path for the very same tensor, so the two paths
are compared byte for byte; the bits are also checked against a small
independent Philox4x32-10 below.

    RANDTENSOR_CLI=build/tools/randtensor python3 -m pytest -q tests/cli_chunked_test.py
"""

import os
import pty
import resource
import select
import signal
import stat
import struct
import subprocess
import sys
import time

import pytest

# The independent Philox model of the CLI's contract tests (same folder).
from cli_test import MASK32, philox4x32_10  # noqa: E402


def bits(seed, n):
    """The first n stream words from --seed (counter 0, key = seed)."""
    key = (seed & MASK32, seed >> 32)
    out = []
    for b in range((n + 3) // 4):
        out.extend(philox4x32_10((b & MASK32, b >> 32, 0, 0), key))
    return out[:n]


def test_reference_first_known_answer():
    assert bits(0, 1) == [0x6627E8D5]  # SPEC.md section 6


# ---------------------------------------------------------------------------
# Running the tool


def cli_path():
    path = os.environ.get("RANDTENSOR_CLI")
    if not path:
        pytest.fail("set RANDTENSOR_CLI to the randtensor binary")
    return os.path.abspath(path)


def tool_env(extra=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANDTENSOR_TARGET", "RANDTENSOR_PROGRESS_DELAY_MS")}
    env.update(extra or {})
    return env


def run(*args, env=None, text=True, **kwargs):
    return subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=text,
                          env=tool_env(env), timeout=120, **kwargs)


def generate(path, *args, **kwargs):
    """Runs generate --out path; returns (stdout lines, the file's bytes)."""
    result = run("generate", *args, "--out", path, **kwargs)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines(), path.read_bytes()


def packed_strides(sizes):
    strides, step = [], 1
    for s in reversed(sizes):
        strides.insert(0, step)
        step *= s
    return strides


def csv(values):
    return ",".join(str(v) for v in values)


def leftovers(directory):
    """Temporary files the tool left behind in `directory`."""
    return [p.name for p in directory.iterdir() if ".randtensor-" in p.name]


# ---------------------------------------------------------------------------
# Chunked output is the one-buffer output

CASES = [
    # (sizes, generate flags, element size)
    pytest.param([1000], ["--seed", "5"], 4, id="bits-1d"),
    pytest.param([37, 41], ["--dist", "normal", "--dtype", "float32", "--seed", "1"], 4,
                 id="normal-float32"),
    pytest.param([6, 5, 7], ["--dist", "normal", "--dtype", "float64", "--offset", "3"], 8,
                 id="normal-float64-offset"),
    pytest.param([3, 4, 5, 6], ["--dist", "uniform", "--dtype", "bfloat16", "--low", "-2",
                                "--high", "3"], 2, id="uniform-bfloat16-4d"),
    pytest.param([9, 13], ["--dist", "uniform", "--dtype", "float16"], 2, id="uniform-float16"),
    pytest.param([7, 3, 11], ["--dist", "bernoulli", "--dtype", "uint8", "--p", "0.3"], 1,
                 id="bernoulli-uint8"),
    pytest.param([2, 1, 3, 1, 2, 1, 1, 29], ["--dist", "bernoulli", "--dtype", "bool"], 1,
                 id="bernoulli-bool-8d"),
    pytest.param([50, 3], ["--dist", "integers", "--dtype", "int32", "--low", "-7",
                           "--high", "1000000"], 4, id="integers-int32"),
    pytest.param([4, 25], ["--dist", "integers", "--dtype", "int64", "--high", "4294967296",
                           "--state", "0xfffffffe,0xffffffff,0xffffffff,0xffffffff,3,4"], 8,
                 id="integers-int64-two-words-counter-wrap"),
]

# Bytes per chunk: one element (and less), a few elements, across rows,
# rows at a time, and the whole tensor at once.
CHUNK_BYTES = [1, 3, 8, 20, 64, 1000, 4096, None]


@pytest.mark.parametrize("file_format", ["raw", "npy"])
@pytest.mark.parametrize("sizes,flags,size", CASES)
def test_chunked_equals_one_buffer(tmp_path, sizes, flags, size, file_format):
    common = ["--sizes", csv(sizes), *flags, "--format", file_format, "--pad-byte", "0xa5"]
    want_lines, want = generate(tmp_path / "whole", *common,
                                "--strides", csv(packed_strides(sizes)))
    n = 1
    for s in sizes:
        n *= s
    header = 0 if file_format == "raw" else 10 + struct.unpack_from("<H", want, 8)[0]
    tail = len(want) - header - n * size
    assert tail == (0 if file_format == "npy" else (-n * size) % 4)
    if tail:
        assert want[-tail:] == b"\xa5" * tail  # raw: padding to a multiple of 4 bytes
    for chunk in CHUNK_BYTES:
        extra = [] if chunk is None else ["--chunk-bytes", chunk]
        lines, got = generate(tmp_path / f"chunked-{chunk}", *common, *extra)
        assert lines == want_lines, chunk
        assert got == want, chunk
    assert leftovers(tmp_path) == []


def test_chunked_bits_match_the_reference(tmp_path):
    sizes = [3, 7, 11]
    _, data = generate(tmp_path / "b.bin", "--sizes", csv(sizes), "--seed", "0x1234567890",
                       "--chunk-bytes", "20")
    assert list(struct.unpack("<231I", data)) == bits(0x1234567890, 231)


def test_many_chunks_of_a_larger_tensor(tmp_path):
    # 6 MiB in 64 KiB chunks (two buffers, the writing on a second thread)
    # and in 300 KiB ones (not a divisor of a row of 4 MiB... rows of 3 x 4096).
    args = ["--sizes", "128,3,4096", "--dist", "normal", "--dtype", "float32", "--seed", "9"]
    want_lines, want = generate(tmp_path / "whole", *args, "--strides", "12288,4096,1")
    for chunk in [65536, 300000, 12345678]:
        lines, got = generate(tmp_path / f"c{chunk}", *args, "--chunk-bytes", chunk)
        assert (lines, got) == (want_lines, want), chunk


def test_memory_stays_bounded():
    """512 MiB written with 1 MiB chunks: the tool's peak memory is a few MiB,
    not the tensor's size (the one-buffer path would need 512 MiB)."""
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:], capture_output=True)\n"
             "assert r.returncode == 0, r.stderr\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    result = subprocess.run([sys.executable, "-c", probe, cli_path(), "generate", "--sizes",
                             "134217728", "--chunk-bytes", "1048576", "--out", "/dev/null"],
                            capture_output=True, text=True, timeout=120, env=tool_env())
    assert result.returncode == 0, result.stderr
    peak_kib = int(result.stdout)
    assert peak_kib < 64 * 1024, peak_kib


@pytest.mark.parametrize("args,pattern", [
    (["--chunk-bytes", "0"], "--chunk-bytes: must be at least 1"),
    (["--chunk-bytes", "1073741825"], "--chunk-bytes"),
    (["--quiet=1"], "--quiet takes no value"),
    (["--quiet", "--quiet"], "--quiet is given twice"),
])
def test_option_errors(tmp_path, args, pattern):
    result = run("generate", "--sizes", "4", *args, "--out", tmp_path / "x")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("randtensor: ") and pattern in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_quiet_changes_nothing_else(tmp_path):
    assert generate(tmp_path / "a", "--sizes", "30", "--quiet") == \
        generate(tmp_path / "b", "--sizes", "30")


# ---------------------------------------------------------------------------
# The temporary file: FILE is the old file or the whole new one


def no_core_and_file_limit(limit):
    def setup():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG rather than death
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return setup


@pytest.mark.parametrize("layout", [[], ["--strides", "1"]], ids=["chunked", "one-buffer"])
@pytest.mark.parametrize("file_format", ["raw", "npy"])
def test_a_failed_write_keeps_the_older_file(tmp_path, layout, file_format):
    out = tmp_path / "keep.bin"
    out.write_bytes(b"older contents")
    result = run("generate", "--sizes", "100000", *layout, "--format", file_format,
                 "--chunk-bytes", "4096", "--out", out, preexec_fn=no_core_and_file_limit(65536))
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "keep.bin" in result.stderr, result.stderr
    assert out.read_bytes() == b"older contents"
    assert leftovers(tmp_path) == []


def test_a_file_size_limit_is_an_error_not_a_silent_death(tmp_path):
    """`ulimit -f` with SIGXFSZ at its default (death): the CLI ignores the
    signal itself, so the failed write is reported and cleaned up."""
    def setup():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))
    out = tmp_path / "keep.npy"
    out.write_bytes(b"older contents")
    result = run("generate", "--sizes", "100000", "--format", "npy", "--chunk-bytes", "4096",
                 "--out", out, preexec_fn=setup)
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert result.stderr.count("\n") == 1 and "keep.npy" in result.stderr, result.stderr
    assert out.read_bytes() == b"older contents"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("args", [
    ["--dist", "bernoulli", "--p", "1.5"],
    ["--dist", "uniform", "--dtype", "int32"],
    ["--sizes", "0"],
])
def test_a_bad_argument_keeps_the_older_file(tmp_path, args):
    out = tmp_path / "keep.npy"
    out.write_bytes(b"older contents")
    sizes = [] if "--sizes" in args else ["--sizes", "10"]
    result = run("generate", *sizes, *args, "--format", "npy", "--out", out)
    assert result.returncode == 2, result.stderr
    assert out.read_bytes() == b"older contents"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.npy"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_an_unwritable_directory_keeps_the_older_file(tmp_path):
    out = tmp_path / "keep.bin"
    out.write_bytes(b"older contents")
    tmp_path.chmod(0o555)
    try:
        result = run("generate", "--sizes", "10", "--out", out)
    finally:
        tmp_path.chmod(0o755)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "keep.bin" in result.stderr, result.stderr
    assert out.read_bytes() == b"older contents"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.bin"]


def writing_unnamed(directory, process):
    """Whether the tool has an unnamed temporary file (O_TMPFILE) open in
    `directory`: /proc shows it as '/dir/#INODE (deleted)'."""
    fds = "/proc/%d/fd" % process.pid
    try:
        names = [os.readlink(os.path.join(fds, fd)) for fd in os.listdir(fds)]
    except OSError:  # the process is gone, or a descriptor closed meanwhile
        return False
    return any(os.path.dirname(name) == os.path.realpath(directory) and
               os.path.basename(name).startswith("#") for name in names)


def wait_for_temporary(directory, process, seconds=30):
    deadline = time.monotonic() + seconds
    while not leftovers(directory) and not writing_unnamed(directory, process):
        assert process.poll() is None, "finished before it could be interrupted"
        assert time.monotonic() < deadline, "no temporary file appeared"
        time.sleep(0.01)


def default_signals():
    # A caller that ignores SIGHUP (nohup) must not make the child ignore it.
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)


# A run long enough to interrupt: 4 GiB of float64 normals a few KiB at a time.
LONG_RUN = ["generate", "--sizes", "536870912", "--dist", "normal", "--dtype", "float64",
            "--chunk-bytes", "4096", "--threads", "1"]


@pytest.mark.parametrize("signal_number",
                         [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_an_interrupted_run_keeps_the_older_file(tmp_path, signal_number):
    out = tmp_path / "keep.bin"
    out.write_bytes(b"older contents")
    process = subprocess.Popen([cli_path(), *LONG_RUN, "--out", str(out)], env=tool_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=default_signals)
    wait_for_temporary(tmp_path, process)
    process.send_signal(signal_number)
    process.communicate(timeout=60)
    assert process.returncode == -signal_number  # it dies of the signal, as it should
    assert out.read_bytes() == b"older contents"
    if signal_number != signal.SIGKILL:  # SIGKILL cannot be caught: its temporary file may stay
        assert leftovers(tmp_path) == []


def test_an_existing_file_keeps_its_mode(tmp_path):
    out = tmp_path / "mode.bin"
    out.write_bytes(b"old")
    out.chmod(0o640)
    generate(out, "--sizes", "10")
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_a_new_file_gets_the_umask_mode(tmp_path):
    old = os.umask(0o027)
    try:
        generate(tmp_path / "new.bin", "--sizes", "10")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.bin").stat().st_mode) == 0o640


def test_a_symbolic_link_keeps_pointing_at_the_new_file(tmp_path):
    target = tmp_path / "data.bin"
    target.write_bytes(b"old")
    link = tmp_path / "link.bin"
    link.symlink_to(target)
    _, data = generate(link, "--sizes", "10", "--seed", "3")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == data == struct.pack("<10I", *bits(3, 10))


def test_a_device_is_written_in_place():
    result = run("generate", "--sizes", "1000", "--out", "/dev/null")
    assert result.returncode == 0 and result.stderr == ""
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


# ---------------------------------------------------------------------------
# --out -: the data on standard output, the text on standard error


@pytest.mark.parametrize("args", [
    ["--sizes", "5,7", "--dist", "uniform", "--dtype", "float16", "--format", "npy"],
    ["--sizes", "1001", "--chunk-bytes", "64"],
    ["--sizes", "3,5", "--strides", "8,1", "--pad-byte", "9"],
    ["--sizes", "3,3", "--dtype", "uint8", "--dist", "bernoulli", "--pad-byte", "7"],
])
def test_out_dash_writes_the_file_to_stdout(tmp_path, args):
    lines, data = generate(tmp_path / "file", *args)
    result = run("generate", *args, "--out", "-", text=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout == data
    assert result.stderr.decode().splitlines() == lines


def test_out_dash_with_repeat_prints_timings_on_stderr():
    result = run("generate", "--sizes", "100", "--repeat", "2", "--out", "-", text=False)
    assert result.returncode == 0
    assert len(result.stdout) == 400
    text = result.stderr.decode().splitlines()
    assert text[0].startswith("state: ") and text[1].startswith("GBps: ")


def test_out_dash_refuses_a_terminal():
    primary, secondary = pty.openpty()
    try:
        result = subprocess.run([cli_path(), "generate", "--sizes", "4", "--out", "-"],
                                stdout=secondary, stderr=subprocess.PIPE, text=True,
                                env=tool_env(), timeout=60)
    finally:
        os.close(secondary)
        os.close(primary)
    assert result.returncode == 2
    assert "terminal" in result.stderr and result.stderr.count("\n") == 1


# ---------------------------------------------------------------------------
# Progress: on a terminal only, never with --quiet


PROGRESS_RUN = ["generate", "--sizes", "4194304", "--chunk-bytes", "65536"]


def run_with_terminal_stderr(args, env):
    """Runs the tool with stderr on a pseudo-terminal; returns (status, what it showed)."""
    primary, secondary = pty.openpty()
    process = subprocess.Popen([cli_path(), *args], stdout=subprocess.DEVNULL, stderr=secondary,
                               env=tool_env(env))
    os.close(secondary)
    shown = b""
    while True:
        ready, _, _ = select.select([primary], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(primary, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        shown += data
    os.close(primary)
    return process.wait(timeout=60), shown.decode(errors="replace")


def test_progress_on_a_terminal(tmp_path):
    status, shown = run_with_terminal_stderr(
        [*PROGRESS_RUN, "--out", str(tmp_path / "p.bin")], {"RANDTENSOR_PROGRESS_DELAY_MS": "0"})
    assert status == 0
    assert "\rrandtensor: " in shown and "GB/s" in shown and "left" in shown, shown
    assert shown.endswith("\r\x1b[K"), repr(shown[-40:])  # the line is cleared at the end


def test_no_progress_with_quiet_on_a_terminal(tmp_path):
    status, shown = run_with_terminal_stderr(
        [*PROGRESS_RUN, "--quiet", "--out", str(tmp_path / "p.bin")],
        {"RANDTENSOR_PROGRESS_DELAY_MS": "0"})
    assert status == 0 and shown == ""


def test_no_progress_without_a_terminal(tmp_path):
    result = run(*PROGRESS_RUN, "--out", tmp_path / "p.bin",
                 env={"RANDTENSOR_PROGRESS_DELAY_MS": "0"})
    assert result.returncode == 0
    assert result.stderr == ""


def test_no_progress_in_the_first_second(tmp_path):
    status, shown = run_with_terminal_stderr(
        ["generate", "--sizes", "1000", "--chunk-bytes", "64", "--out", str(tmp_path / "p.bin")],
        {})
    assert status == 0 and shown == ""
