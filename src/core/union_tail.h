// Private to the core: union_tail_threshold (poslsh/pitch_law.h) without its
// argument checks, for the bounds and the law of b_max, whose s and p were
// checked at their own entry (HashParameters, and p where it is an argument).
#pragma once

namespace poslsh::detail {

// The x >= 0 solving s (1 + x) e^-x = p; 0 when s <= p. Requires s finite
// and >= 1, 0 < p < 1.
double union_tail_root(double s, double p);

}  // namespace poslsh::detail
