// keep_freed_memory() takes effect: a 20 MiB block comes from the heap (not
// its own mmap, glibc's default above 128 KiB) and freeing it does not trim
// the heap. Its settings were once compiled out (a unity batch in which the
// file came first never saw __GLIBC__), costing the experiments as much
// system time as user time in page faults.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "runner/allocator.h"

namespace poslsh {
namespace {

// Not under AddressSanitizer, whose allocator replaces glibc's.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POSLSH_TEST_ASAN 1
#endif
#endif
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(POSLSH_TEST_ASAN)
TEST(Allocator, FreedBlocksStayInTheHeap) {
  keep_freed_memory();
  const auto heap_top = [] { return reinterpret_cast<std::uintptr_t>(sbrk(0)); };
  void* block = std::malloc(20 << 20);
  ASSERT_NE(block, nullptr);
  const std::uintptr_t top = heap_top(), at = reinterpret_cast<std::uintptr_t>(block);
  EXPECT_LT(at, top) << "a 20 MiB block was mapped on its own, not taken from the heap";
  std::free(block);
  EXPECT_EQ(heap_top(), top) << "freeing 20 MiB trimmed the heap";
}
#endif

}  // namespace
}  // namespace poslsh
