# Decides which optional parts of a randtensor build are built.
#
# Each part (TESTS, BENCHMARKS, PYTHON, STATS, MPI) has a cache value
# RANDTENSOR_BUILD_<part> of ON, OFF or AUTO. randtensor_decide_parts() probes
# the part's dependencies and sets RANDTENSOR_WITH_<part> (ON/OFF) in the
# caller's scope:
#   OFF  -> OFF, nothing probed;
#   AUTO -> ON when every dependency is found, else OFF and one status line
#           naming what is missing and how to install it;
#   ON   -> ON when every dependency is found, else a configure error naming it.
# The probes only look; each part's own CMakeLists.txt finds its dependencies
# again as REQUIRED, so a part that is built never builds half-configured.

set(RANDTENSOR_TEST_DEPS_HINT "scripts/install-deps.sh test")

# Appends `what` to the list ${missing_var} unless `python` imports `module`.
function(randtensor_probe_python_module python module what missing_var)
  execute_process(COMMAND ${python} -c "import ${module}"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT rc EQUAL 0)
    set(${missing_var} ${${missing_var}} "${what}" PARENT_SCOPE)
  endif()
endfunction()

# Sets ${out} to a list of what `part` lacks (empty when nothing).
function(randtensor_missing_for part out)
  set(missing "")
  if(part STREQUAL "TESTS" OR part STREQUAL "BENCHMARKS")
    find_path(RANDOM123_INCLUDE_DIR Random123/philox.h)
    if(NOT RANDOM123_INCLUDE_DIR)
      list(APPEND missing "Random123 (librandom123-dev)")
    endif()
  endif()
  if(part STREQUAL "TESTS")
    find_package(GTest QUIET)
    if(NOT GTest_FOUND)
      list(APPEND missing "GoogleTest (libgtest-dev)")
    endif()
    # A cross build (cmake/aarch64-linux-gnu.cmake) registers only the
    # compiled tests, which run through the emulator: no Python there.
    if(NOT CMAKE_CROSSCOMPILING)
      find_package(Python3 COMPONENTS Interpreter QUIET)
      if(NOT Python3_Interpreter_FOUND)
        list(APPEND missing "python3")
      else()
        randtensor_probe_python_module(${Python3_EXECUTABLE} pytest
          "pytest for ${Python3_EXECUTABLE} (python3-pytest)" missing)
      endif()
    endif()
  elseif(part STREQUAL "BENCHMARKS")
    find_package(benchmark QUIET)
    if(NOT benchmark_FOUND)
      list(APPEND missing "Google Benchmark (libbenchmark-dev)")
    endif()
    find_package(OpenMP QUIET)
    if(NOT OpenMP_CXX_FOUND)
      list(APPEND missing "OpenMP for C++")
    endif()
  elseif(part STREQUAL "PYTHON")
    find_package(Python3 3.8 COMPONENTS Interpreter Development.Module QUIET)
    if(NOT Python3_Interpreter_FOUND OR NOT Python3_Development.Module_FOUND)
      list(APPEND missing "Python 3 headers (python3-dev)")
    else()
      # NumPy is needed at run time by the interpreter the module is built for
      # (no NumPy headers at build time): probe that very interpreter.
      randtensor_probe_python_module(${Python3_EXECUTABLE} numpy
        "NumPy for ${Python3_EXECUTABLE} (python3-numpy)" missing)
    endif()
    find_package(pybind11 2.10 CONFIG QUIET)
    if(NOT pybind11_FOUND)
      list(APPEND missing "pybind11 (pybind11-dev)")
    endif()
  elseif(part STREQUAL "MPI")
    # The MPI CLI (mpirun -np P randtensor generate ...), its examples and
    # tests: an MPI C library with MPI-IO and a launcher (Debian's OpenMPI).
    find_package(MPI COMPONENTS C QUIET)
    if(NOT MPI_C_FOUND)
      list(APPEND missing "MPI (libopenmpi-dev)")
    endif()
    if(NOT MPIEXEC_EXECUTABLE)
      list(APPEND missing "mpirun (openmpi-bin)")
    endif()
  elseif(part STREQUAL "STATS")
    find_path(TESTU01_INCLUDE_DIR testu01/bbattery.h)
    find_library(TESTU01_LIBRARY NAMES testu01)
    if(NOT TESTU01_INCLUDE_DIR OR NOT TESTU01_LIBRARY)
      list(APPEND missing "TestU01 (libtestu01-0-dev, Debian non-free)")
    endif()
  endif()
  set(${out} "${missing}" PARENT_SCOPE)
endfunction()

macro(randtensor_decide_parts)
  foreach(part TESTS BENCHMARKS PYTHON STATS MPI)
    set(RANDTENSOR_WITH_${part} OFF)
    set(value "${RANDTENSOR_BUILD_${part}}")
    if(value STREQUAL "AUTO" OR value)
      randtensor_missing_for(${part} missing)
      if(NOT missing)
        set(RANDTENSOR_WITH_${part} ON)
      else()
        list(JOIN missing ", " missing_text)
        if(value STREQUAL "AUTO")
          message(STATUS "randtensor: not building ${part}: missing ${missing_text} "
                         "(${RANDTENSOR_TEST_DEPS_HINT} installs it)")
        else()
          message(FATAL_ERROR "RANDTENSOR_BUILD_${part}=${value} needs ${missing_text}; "
                              "${RANDTENSOR_TEST_DEPS_HINT} installs it, or configure "
                              "with -DRANDTENSOR_BUILD_${part}=OFF")
        endif()
      endif()
    endif()
  endforeach()
endmacro()
