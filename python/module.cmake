# The extension poslsh._core (pybind11), included by the top-level
# CMakeLists.txt right after the libraries it links, not with the rest of
# python/ (python/CMakeLists.txt): Ninja starts ready files in the order the
# build file lists them, and a subdirectory's come after every top-level
# target's, so the module (14 s of CPU in one file) compiled alone at the end
# of a clean build (docs/benchmarks.md).
# NO_EXTRAS: no link-time optimisation (poslsh_core is compiled without it, so
# it would only slow the link) and no stripping.
# poslsh_module.cpp defines the module from the bindings, one file per concept
# in bindings/, whose arguments are converted and checked in bindings/arguments.cpp.
file(GLOB POSLSH_PYTHON_BINDINGS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/bindings/*.cpp)
pybind11_add_module(poslsh_python NO_EXTRAS ${PROJECT_SOURCE_DIR}/python/poslsh_module.cpp
                    ${POSLSH_PYTHON_BINDINGS})
# fmt formats the error messages exactly as the CLI does (header-only: the
# module then needs no libfmt at run time).
if(TARGET fmt::fmt-header-only)
  set(POSLSH_PYTHON_FMT fmt::fmt-header-only)
else()
  set(POSLSH_PYTHON_FMT fmt::fmt)
endif()
# The core, and of the experiments only the measurement of a convergence row
# (experiments/convergence/convergence_errors.h), which spectral_error and max_error call,
# and the checks of `poslsh verify` on samples in memory
# (experiments/verify/verification.h), which verify_hashes and verify_blocks call.
target_link_libraries(poslsh_python PRIVATE poslsh_convergence_errors poslsh_verification
                      poslsh::core ${POSLSH_PYTHON_FMT})
target_compile_definitions(poslsh_python PRIVATE POSLSH_VERSION="${PROJECT_VERSION}"
                           EIGEN_DONT_PARALLELIZE)
# The package `poslsh` is python/poslsh/*.py around the extension poslsh._core;
# the build tree mirrors it in <build>/python/poslsh so PYTHONPATH=<build>/python
# imports what `pip install` or `cmake --install` would.
set_target_properties(poslsh_python PROPERTIES
  OUTPUT_NAME _core
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/python/poslsh)
