"""The module's C++ makes NumPy arrays only in ways that stay right under
NumPy 2 with Debian's pybind11 2.10 (python/src/arrays.h says why).

pybind11 before 2.12 reads a dtype's item size at NumPy 1's offset in its C
struct; under NumPy 2 that read gives another field. It does so in
py::array_t<T>(count), in py::array(dtype, shape) without strides, and in
itemsize()/nbytes(). On the Xeon host (Python 3.12, NumPy 2.5) the first made
every state array [w0, w0, w0, w0, w0, w0] and failed 248 tests. This
suite's NumPy (Debian's 1.24) cannot show that, so this reads the sources:
new arrays come from NewArray, which passes its strides.
"""
import pathlib
import re

SOURCES = sorted((pathlib.Path(__file__).resolve().parents[1] / "src").glob("*.cc"))

FORBIDDEN = {
    # py::array_t<T> name(arg) or py::array_t<T>(arg): a constructor call
    # whose one argument is an expression, not a declared parameter.
    "array_t constructor (use NewArray)":
        re.compile(r"\barray_t<[^<>;]*>\s*(?:\w+\s*)?\(\s*[\w.:()]*\s*\)\s*[;,]"),
    "array(dtype, shape) without strides": re.compile(r"\bpy::array\s*\(\s*(?:py::)?dtype"),
    "itemsize()/nbytes() read from the dtype": re.compile(r"\.\s*(?:itemsize|nbytes)\s*\(\s*\)"),
}


def test_sources_are_found():
    assert {p.name for p in SOURCES} >= {"core.cc", "bitgen.cc"}


def test_no_array_made_from_the_dtypes_item_size():
    found = []
    for path in SOURCES:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//")[0]
            found += [f"{path.name}:{number}: {what}: {line.strip()}"
                      for what, pattern in FORBIDDEN.items() if pattern.search(code)]
    assert not found, "\n".join(found)


def test_the_patterns_catch_what_broke():
    # The lines that failed on NumPy 2, as they were before arrays.h.
    broken = ["  py::array_t<uint32_t> array(6);",
              "    py::array_t<uint32_t> counter(4), key(2);",
              "    array = py::array_t<float>(count);",
              "  auto a = py::array(py::dtype::of<float>(), shape);",
              "  const auto bytes = array.nbytes();"]
    for line in broken:
        assert any(p.search(line) for p in FORBIDDEN.values()), line
    fine = ["py::array_t<uint32_t> StateArray(const PhiloxState& state) {",
            "  py::array_t<uint32_t> array = randtensor_python::NewArray<uint32_t>(6);"]
    for line in fine:
        assert not any(p.search(line) for p in FORBIDDEN.values()), line
