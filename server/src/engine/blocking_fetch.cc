#include "engine/blocking_fetch.h"

#include <future>
#include <memory>
#include <utility>

namespace tern::engine {

bool fetch_and_wait(BgFetcher& fetcher, std::string key, uint16_t filed_vbucket,
                    std::chrono::milliseconds wait) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> fetched = done->get_future();
  fetcher.fetch(std::move(key), filed_vbucket, [done] { done->set_value(); });
  done.reset();  // the waiter's copy alone: a fetcher that stops destroys it, ending the wait
  if (fetched.wait_for(wait) != std::future_status::ready) return false;
  try {
    fetched.get();
    return true;
  } catch (const std::future_error&) {
    return false;
  }
}

}  // namespace tern::engine
