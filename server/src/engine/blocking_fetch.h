#pragma once
// Reading what a persistent bucket evicted, for a thread that may block: the management
// port's, never a worker loop's (a KV request parks instead: commands/background_fetch.h).
// An engine call that answers NotResident changed nothing; once the background fetcher has
// put the key back in memory (BgFetcher), the same call may be made again.

#include <chrono>
#include <string>

#include "engine/bg_fetcher.h"
#include "engine/status.h"

namespace tern::engine {

// How many fetches a call may wait for before its NotResident stands (the pager may evict
// the value again between the fetch and the retry).
inline constexpr int kMaxBlockingFetches = 3;

// Has `fetcher` read `key` (filed under `filed_vbucket`, as BgFetcher::fetch takes it) back
// into memory and waits for it, up to `wait`. Returns whether the fetch finished in time.
bool fetch_and_wait(BgFetcher& fetcher, std::string key, uint16_t filed_vbucket,
                    std::chrono::milliseconds wait);

// Runs `call` (an engine call whose result has a `status`) and, while it answers
// NotResident, fetches the key and runs it again, at most kMaxBlockingFetches times; returns
// the last result. `fetcher` null (an ephemeral bucket, which evicts nothing that way): the
// first result.
template <class Call>
auto call_with_fetches(BgFetcher* fetcher, const std::string& key, uint16_t filed_vbucket,
                       Call&& call, std::chrono::milliseconds wait = std::chrono::seconds(10)) {
  auto result = call();
  for (int fetches = 0;
       fetcher != nullptr && result.status == Status::NotResident && fetches < kMaxBlockingFetches;
       ++fetches) {
    if (!fetch_and_wait(*fetcher, key, filed_vbucket, wait)) break;
    result = call();
  }
  return result;
}

}  // namespace tern::engine
