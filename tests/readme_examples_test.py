#!/usr/bin/env python3
"""Checks that every file in examples/ appears verbatim in README.md, so the
README shows exactly the code the test suite builds and runs.

    readme_examples_test.py REPO_ROOT
"""
import pathlib
import sys


def main():
    root = pathlib.Path(sys.argv[1])
    readme = (root / "README.md").read_text()
    missing = [p.name for p in sorted((root / "examples").iterdir())
               if p.is_file() and p.read_text().strip() not in readme]
    if missing:
        print("README.md does not show these examples verbatim:", ", ".join(missing))
        return 1
    print("README.md shows every example verbatim")
    return 0


if __name__ == "__main__":
    sys.exit(main())
