// Private to the core: the Gamma(2, 1) variate draw_hash makes its pitch from
// (poslsh/positional_hash.h, kSmallestGamma2), reached by its tests as
// "core/gamma2.h".
#pragma once

namespace poslsh::detail {

// -ln(U1) - ln(U2), clamped below at kSmallestGamma2.
double gamma2_from_uniforms(double u1, double u2);

}  // namespace poslsh::detail
