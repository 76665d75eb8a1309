"""Every ```python block of README.md runs as written (the adapters' sections
promise examples that the tests run)."""
import os
import re

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
