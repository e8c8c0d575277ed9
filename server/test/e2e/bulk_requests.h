#pragma once
// Many keys' requests against a real ternd, for the tests that load a bucket past its quota
// (larger_than_memory_test.cc, full_eviction_restart_test.cc): pipelined in windows, and sent
// again while the server answers Etmpfail or Enomem, as it does to writes past the quota until
// the flusher has written what the pager may then evict.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "test_client.h"

namespace tern::e2e {

// Requests in flight on a connection at once.
inline constexpr int kWindow = 64;

// `size` bytes that no other i gives (splitmix64 seeded with i): incompressible, and cheap to
// make again when checking what a key reads back.
std::string distinct_value(int i, size_t size);

// Whether the server asks for the request to be sent again later.
bool is_retry(Status status);

// Sends `requests` at once and receives as many answers; returns them by opaque, whatever
// order they came in. `in_order` is set false if they did not come in request order.
std::map<uint32_t, Response> exchange(Client& client, const std::vector<Request>& requests,
                                      bool& in_order);

// Sends make(i) for every i in `keys` (its opaque i) in windows, and again, after a backoff,
// for those answered with a retry, until each has another answer or `timeout` passes (which
// fails the test); calls check(i, answer) on each final answer. Returns how many answers asked
// for a retry.
int run_all(Client& client, const std::vector<int>& keys,
            const std::function<Request(int)>& make,
            const std::function<void(int, const Response&)>& check,
            std::chrono::seconds timeout);

// 0, 1, ... count - 1: the keys' indexes for run_all().
std::vector<int> first_n(int count);

// The named statistic as a number; one missing fails the test and reads as 0.
uint64_t stat_number(const std::map<std::string, std::string>& stats, const std::string& name);

}  // namespace tern::e2e
