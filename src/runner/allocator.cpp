#include "runner/allocator.h"

// <cstdlib> first: it defines __GLIBC__ (through <features.h>), which the test
// below reads. Without it, in a unity batch where this file comes first, the
// test was false and the settings were silently never made.
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace poslsh {

void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest accepted threshold
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

}  // namespace poslsh
