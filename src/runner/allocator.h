// How a poslsh process asks glibc's allocator to keep freed memory.
//
// The experiments allocate and free buffers of up to tens of MiB per hash
// and per cell (attention tiles, co-binning probes). glibc's defaults hand
// each one back to the kernel (mmap above 128 KiB, trimming the heap top),
// so the next allocation faults every page in again: on a virtual machine
// with costly page faults that was 90% of a co-binning run's time (5.8 s
// against 0.59 s, docs/benchmarks.md). Keeping freed memory in the heap
// changes no result, only where the bytes come from. The CLI's main() and
// the test binary call it first thing; elsewhere (no glibc) it does nothing.
#pragma once

namespace poslsh {

void keep_freed_memory();

}  // namespace poslsh
