// Private to the core.
#pragma once

#include <cstdint>
#include <vector>

namespace poslsh::detail {

// P[0] = 0, P[i+1] = P[i] + x[i] for i < n (P has n + 1 entries): the prefix
// sums every O(n + #blocks) product starts from.
void prefix_sums(const double* x, std::int64_t n, std::vector<double>& P);

}  // namespace poslsh::detail
