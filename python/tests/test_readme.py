"""Every ```python block of README.md runs as written (the adapters' sections
promise examples that the tests run), and so does every command of its ```sh
blocks that runs the command-line tool on one process ($RANDTENSOR_CLI). The
C and C++ blocks are examples/ (tests/readme_examples_test.py); the build
commands and the mpirun line run elsewhere (scripts/test.sh, tests/mpi)."""
import os
import re
import shlex
import subprocess

import pytest

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")


def blocks():
    with open(README, encoding="utf-8") as f:
        return re.findall(r"^```python\n(.*?)^```", f.read(), flags=re.S | re.M)


def test_readme_has_python_examples():
    # One example for each way in from Python, in its own section.
    with open(README, encoding="utf-8") as f:
        sections = re.split(r"^### ", f.read(), flags=re.M)
    for title in ("Python and NumPy", "PyTorch backend", "A GPU's random tensors", "Dask and MPI"):
        section = next((s for s in sections if s.startswith(title)), "")
        assert "```python\n" in section, f"README section {title!r} has no python example"


@pytest.mark.parametrize("index", range(len(blocks())))
def test_readme_python_block_runs(index, capsys):
    code = blocks()[index]
    if "import torch" in code and not os.environ.get("RANDTENSOR_REQUIRE_TORCH"):
        pytest.importorskip("torch")
    exec(compile(code, f"README.md python block {index}", "exec"), {})


def cli_commands():
    with open(README, encoding="utf-8") as f:
        sh = re.findall(r"^```sh\n(.*?)^```", f.read(), flags=re.S | re.M)
    return [shlex.split(line, comments=True) for block in sh for line in block.splitlines()
            if line.startswith("build/tools/randtensor ")]


def test_readme_has_cli_examples():
    assert [c[1] for c in cli_commands()] == ["generate", "targets"]


@pytest.mark.parametrize("index", range(len(cli_commands())))
def test_readme_cli_command_runs(index, tmp_path):
    cli = os.environ.get("RANDTENSOR_CLI")
    if not cli:
        pytest.skip("RANDTENSOR_CLI does not name the randtensor binary")
    argv = [cli] + cli_commands()[index][1:]
    run = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, f"{shlex.join(argv)}: {run.stderr}"
    if "--out" in argv:
        np = pytest.importorskip("numpy")
        out = np.load(tmp_path / argv[argv.index("--out") + 1])
        sizes = argv[argv.index("--sizes") + 1]
        assert out.shape == tuple(int(n) for n in sizes.split(","))
