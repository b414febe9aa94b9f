// The test binary's process set up as the poslsh binary's is: freed memory
// stays in the heap (runner/allocator.h). The tests that build co-binning
// and attention tables in-process spent most of their time faulting pages
// back in otherwise (Unbiasedness.SoundSamplerPasses and
// ZeroShiftFailsAtTheStartAnchor: 29 s against 2.9 s, docs/benchmarks.md).
#include "runner/allocator.h"

namespace {

const bool kAllocatorSet = (poslsh::keep_freed_memory(), true);

}  // namespace
