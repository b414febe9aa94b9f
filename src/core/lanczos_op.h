// A Lanczos step's product and the first pass of its recurrence in one
// (lanczos_pass.h): the error operators fuse the pass into their last loop
// over the output, so a step streams the vectors once less. Private to the
// core: spectral_error's engine, and the tests that check the fused products
// give the bits of a product followed by the plain pass.
#pragma once

#include <poslsh/error_operator.h>

namespace poslsh::detail {

// y = E x - beta[l] v_prev and alpha[l] = x . y for each lane l (`lanes`
// interleaved vectors, 1..8). Same bits as ErrorOperator::perform_op_lanes
// followed by lanczos_first_pass.
void lanczos_op_lanes(const ErrorOperator& error, const double* x_in, double* y_out, int lanes,
                      ProductScratch& scratch, const double* beta, const double* v_prev,
                      double* alpha);
// The same for E^T, with alpha = v . y for a given v (the normal operator's
// Lanczos vector, which is not this product's input).
void lanczos_transpose_op_lanes(const ErrorOperator& error, const double* x_in, double* y_out,
                                int lanes, ProductScratch& scratch, const double* v,
                                const double* beta, const double* v_prev, double* alpha);
// The same for the normal operator x -> E^T (E x), the pass fused into E^T.
void lanczos_op_lanes(const NormalOperator& normal, const double* x_in, double* y_out, int lanes,
                      ProductScratch& scratch, const double* beta, const double* v_prev,
                      double* alpha);

}  // namespace poslsh::detail
