#include <poslsh/argument_error.h>
#include <poslsh/attention_options.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "internal/attention_work.h"

namespace poslsh {

int resolve_threads(int threads) {
  check::at_least("threads", threads, 0);  // 0: every hardware thread
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return threads;
}

int for_each_unit(std::int64_t units, int threads,
                  const std::function<void(std::int64_t unit, int worker)>& work) {
  const int workers = static_cast<int>(
      std::max<std::int64_t>(1, std::min<std::int64_t>(resolve_threads(threads), units)));
  std::atomic<std::int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto run = [&](int worker) {
    try {
      for (std::int64_t u = next++; u < units; u = next++) work(u, worker);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = units;
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(run, w);
  run(0);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  return workers;
}

}  // namespace poslsh
