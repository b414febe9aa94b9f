// Private to the core: the check every multi-head attention routine makes first.
#pragma once

#include <poslsh/types.h>

#include <cstdint>

namespace poslsh::detail {

// Throws unless the stacks have 1 or `heads` heads each, with equal n and d.
template <typename Scalar>
void validate_head_stacks(const HeadStack<Scalar>& q, const HeadStack<Scalar>& k,
                          const HeadStack<Scalar>& v, std::int64_t heads);

}  // namespace poslsh::detail
