#include "engine/bucket_flush.h"

#include <future>
#include <memory>
#include <utility>

namespace tern::engine {

void flush_bucket(Bucket& bucket, std::function<void(FlushResult)> done) {
  Persistence* persistence = bucket.persistence();
  if (persistence == nullptr) {
    bucket.documents().flush(0);
    done(FlushResult::Flushed);
    return;
  }
  // Shared so that a refused flush can still answer through it.
  auto answer = std::make_shared<std::function<void(FlushResult)>>(std::move(done));
  if (!persistence->flush([answer] { (*answer)(FlushResult::Flushed); })) {
    (*answer)(FlushResult::NotWarm);
  }
}

FlushResult flush_bucket(Bucket& bucket, std::chrono::milliseconds disk_wait) {
  auto promise = std::make_shared<std::promise<FlushResult>>();
  std::future<FlushResult> result = promise->get_future();
  flush_bucket(bucket, [promise](FlushResult outcome) { promise->set_value(outcome); });
  promise.reset();  // the waiter's copy alone: destroyed uncalled, it ends the wait
  if (result.wait_for(disk_wait) != std::future_status::ready) return FlushResult::NotOnDisk;
  try {
    return result.get();
  } catch (const std::future_error&) {
    return FlushResult::NotOnDisk;  // the bucket stopped: its waiter went uncalled
  }
}

}  // namespace tern::engine
