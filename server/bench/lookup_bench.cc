// What a GET's lookup costs in the engine's own table and items when they are not in the
// cache, and how much of that prefetching could hide. Each step does what a GET does with
// the engine's memory: hash the key, HashTable::find, take a reference to the item and copy
// its value out. Keys and values are bench-server's (16 B and 100 B); the keys are read in
// a random order, so nearly every step misses the cache once the table is larger than it.
//
// Prefetching is done here, by the benchmark, as a connection could for a pipelined batch:
// the slot of the key `distance` steps ahead, and the item of the key half as far ahead
// (whose slot is in the cache by then). The engine has no such API; this measures whether
// one would pay.
//
// Arguments: items in the table (a few thousand: cache-resident; 64Ki: bench-server's key
// space; 1Mi: a cache of a million items), prefetch distance (0: none), and the other work
// of a request, in rounds of a multiply (256 rounds: about 0.4 µs here, a third of ternd's
// user-space time per pipelined op).

#include <benchmark/benchmark.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engine/hash_table.h"
#include "engine/key_hash.h"
#include "engine/stored_item.h"

namespace {

// ternd has many threads, so every reference count it takes is an atomic operation; in a
// process that never started a thread, libstdc++'s shared_ptr (the engine's items before
// they counted their own references) counts with plain increments instead
// (__libc_single_threaded), which hides the atomic one's cost. A thread started and joined
// before the benchmarks makes this process count as ternd does, whichever items it was
// built with (make bench-lookup BASE=... builds this file against an older engine).
[[maybe_unused]] const bool kCountsAsTernd = [] {
  std::thread([] {}).join();
  return true;
}();

using tern::engine::hash_key;
using tern::engine::HashTable;
using tern::engine::ItemPtr;
using tern::engine::make_item;

constexpr size_t kKeySize = 16;
constexpr size_t kValueSize = 100;
constexpr size_t kOrderLength = 1 << 20;

// Where find() starts looking for `hash`. Engines before the table grew by 3/2 and 4/3 had
// power-of-two tables and no home() (a template, so that only the branch taken compiles).
template <class Table>
const tern::engine::Slot& home_slot_in(const Table& table, uint64_t hash) {
  if constexpr (requires { table.home(hash); }) {
    return table.at(table.home(hash));
  } else {
    return table.at(hash & (table.capacity() - 1));
  }
}

struct Keyspace {
  HashTable table;
  std::vector<char> key_bytes;  // the keys, one after another: a request's key is in the cache
  std::vector<uint32_t> order;  // the keys' indexes, in the order the steps read them

  explicit Keyspace(size_t items) {
    const std::string value(kValueSize, 'v');
    key_bytes.resize(items * kKeySize);
    for (size_t i = 0; i < items; ++i) {
      std::array<char, 32> digits;
      std::snprintf(digits.data(), digits.size(), "%016zu", i);
      std::memcpy(&key_bytes[i * kKeySize], digits.data(), kKeySize);
      table.insert(hash_key(key(i)), make_item(key(i), {value}));
    }
    std::mt19937 random(42);
    order.resize(kOrderLength);
    for (uint32_t& index : order) index = random() % items;
  }

  std::string_view key(size_t index) const { return {&key_bytes[index * kKeySize], kKeySize}; }
  std::string_view key_at_step(size_t step) const { return key(order[step % kOrderLength]); }

  // Where find() starts looking for `hash`: what a prefetch can aim at without probing.
  const tern::engine::Slot& home_slot(uint64_t hash) const { return home_slot_in(table, hash); }
};

void LookupAndCopy(benchmark::State& state) {
  const Keyspace keyspace(static_cast<size_t>(state.range(0)));
  const size_t distance = static_cast<size_t>(state.range(1));
  const size_t item_distance = distance / 2;
  const int64_t other_work = state.range(2);
  std::array<uint64_t, 64> ahead{};  // hashes of the keys prefetched, by step modulo 64
  std::array<char, kValueSize> answer;
  size_t step = 0;
  for (auto _ : state) {
    if (distance > 0) {
      const uint64_t hash = hash_key(keyspace.key_at_step(step + distance));
      ahead[(step + distance) % ahead.size()] = hash;
      const auto* slot = reinterpret_cast<const char*>(&keyspace.home_slot(hash));
      __builtin_prefetch(slot);  // one word: never straddles two lines
      const uint64_t item_hash = ahead[(step + item_distance) % ahead.size()];
      if (step >= distance) {
        const auto* item = reinterpret_cast<const char*>(keyspace.home_slot(item_hash).item.get());
        if (item != nullptr) {
          // The one allocation make_item() made: the item's header, then its key and value.
          const char* end = item + sizeof(tern::engine::Item) + kKeySize + kValueSize;
          for (const char* line = item; line < end; line += 64) {
            __builtin_prefetch(line);
          }
        }
      }
    }
    const std::string_view key = keyspace.key_at_step(step);
    const size_t index = keyspace.table.find(hash_key(key), key);
    if (index == HashTable::npos) {
      state.SkipWithError("a stored key was not found");
      break;
    }
    const ItemPtr item = keyspace.table.at(index).item;  // a GET's reference to the item
    std::memcpy(answer.data(), item->value().data(), answer.size());
    benchmark::DoNotOptimize(answer);
    // The rest of a request's work, on memory in the cache: decoding, checks, the answer's
    // header. What gives a prefetch time to land.
    uint64_t busy = step;
    for (int64_t i = 0; i < other_work; ++i) busy = busy * 6364136223846793005ull + 1;
    benchmark::DoNotOptimize(busy);
    ++step;
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(LookupAndCopy)
    ->ArgNames({"items", "prefetch", "work"})
    ->ArgsProduct({{4096, 65536, 1048576}, {0, 2, 4}, {0, 256}});

}  // namespace

BENCHMARK_MAIN();
