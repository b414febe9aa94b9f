// The poslsh command-line tool. Everything but main() is a library
// (apps/cli_app.h), which the fuzz targets link as well.
#include "apps/cli_app.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

// The experiments allocate and free buffers of up to tens of MiB per hash
// and per cell (attention tiles, co-binning probes). glibc's defaults hand
// each one back to the kernel (mmap above 128 KiB, trimming the heap top),
// so the next allocation faults every page in again: on a virtual machine
// with costly page faults that was 90% of a co-binning run's time (5.8 s
// against 0.59 s, docs/benchmarks.md). Keeping freed memory in the heap
// changes no result, only where the bytes come from.
void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest accepted threshold
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();
  return poslsh::run_cli(argc, argv);
}
