// New NumPy arrays for the module, safe under NumPy 1 and 2 alike.
//
// pybind11 before 2.12 (Debian bookworm has 2.10) fills in strides that a
// constructor is not given from the dtype's item size, which it reads at
// NumPy 1's offset in the dtype's C struct. NumPy 2 moved that field: the
// read then gives another field (0 for uint32), the array gets stride 0, and
// every element is the first one (seen on the Xeon host, Python 3.12, NumPy
// 2.5: state arrays read [3, 3, 3, 3, 3, 3]). So every array this module
// makes passes its strides, which pybind11 then hands to NumPy unread.
// (py::array_t<T>(n) is the constructor that omits them.)
#ifndef RANDTENSOR_PYTHON_SRC_ARRAYS_H_
#define RANDTENSOR_PYTHON_SRC_ARRAYS_H_

#include <pybind11/numpy.h>

#include <vector>

namespace randtensor_python {

// A new C-contiguous array of `shape`, uninitialized.
template <typename T>
pybind11::array_t<T> NewArray(const std::vector<pybind11::ssize_t>& shape) {
  std::vector<pybind11::ssize_t> strides(shape.size());
  pybind11::ssize_t stride = sizeof(T);
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return pybind11::array_t<T>(shape, strides);
}

// A new 1-D array of n elements, uninitialized.
template <typename T>
pybind11::array_t<T> NewArray(pybind11::ssize_t n) {
  return NewArray<T>(std::vector<pybind11::ssize_t>{n});
}

}  // namespace randtensor_python

#endif  // RANDTENSOR_PYTHON_SRC_ARRAYS_H_
