#include "http/ops_rate.h"

namespace tern::http {

double OpsRate::sample(const std::string& bucket, uint64_t total_ops, Clock::time_point now) {
  MutexLock lock(mutex_);
  auto [it, fresh] = last_.try_emplace(bucket, Reading{now, total_ops, 0});
  Reading& last = it->second;
  if (fresh) return 0;
  const std::chrono::duration<double> elapsed = now - last.at;
  if (elapsed.count() >= 1.0) {
    // A bucket dropped and created again starts its counters at 0.
    last.rate = total_ops >= last.total_ops ? (total_ops - last.total_ops) / elapsed.count() : 0;
    last.at = now;
    last.total_ops = total_ops;
  }
  return last.rate;
}

}  // namespace tern::http
