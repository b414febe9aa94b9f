// --kernel: the relative-position kernel whose grids a command draws
// (poslsh/kernel.h), with --sigma its scale:
//   laplace                      exp(-t/sigma), ALiBi (the default)
//   triangle                     (1 - t/sigma)+, one pitch sigma
//   power-law:ALPHA              (1 + t/sigma)^-ALPHA (KERPLE-log)
//   stretched-exponential:BETA   exp(-(t/sigma)^BETA), 0 < BETA <= 1
//   table:FILE                   k(0), k(1), ... (numbers separated by
//                                commas or white space; k(0) = 1)
//   bias:FILE                    a learned additive bias b(0), b(1), ...,
//                                read as k = exp(b - b(0))
//   values:K0;K1;...             a table written inline (Kernel::spec)
// A table that is not non-increasing and convex is refused naming the first
// t that breaks it and its distance to the framework (exit 2).
#pragma once

#include <poslsh/kernel.h>

#include <string>

namespace poslsh {

inline constexpr const char* kKernelHelp =
    "Kernel whose grids are drawn, scale --sigma: laplace (ALiBi), triangle, power-law:ALPHA, "
    "stretched-exponential:BETA (0 < BETA <= 1), table:FILE (k(0..T), k(0) = 1), bias:FILE "
    "(k = exp(b - b(0)))";

// The kernel SPEC names at scale sigma; UsageError or ArgumentError naming
// --kernel otherwise (an unreadable FILE is an InputError naming it).
Kernel parse_kernel(const std::string& spec, double sigma);

}  // namespace poslsh
