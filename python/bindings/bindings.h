// The Python module's bindings, one function per concept, each in its own
// file; python/poslsh_module.cpp calls them in turn.
#pragma once

#include <pybind11/pybind11.h>

namespace poslsh::python {

// draw_hashes, alibi_sigmas, block_starts (sampling.cpp).
void bind_sampling(pybind11::module_& m);
// mask_mean_matvec (mask_mean.cpp).
void bind_mask_mean(pybind11::module_& m);
// spectral_error, max_error, b_max: a convergence row's measurements (errors.cpp).
void bind_errors(pybind11::module_& m);
// exact_attention, lsh_attention (attention.cpp).
void bind_attention(pybind11::module_& m);
// Kernel, framework_distance: kernels beyond ALiBi (kernels.cpp).
void bind_kernels(pybind11::module_& m);
// verify_hashes, verify_blocks: `poslsh verify` on arrays (verification.cpp).
void bind_verification(pybind11::module_& m);

}  // namespace poslsh::python
