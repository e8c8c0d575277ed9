#pragma once
// A set of keys that answers "certainly not here" or "maybe here", in about ten bits per key:
// under full eviction, the keys the disk may hold while memory holds nothing of them. A key
// it rules out is absent from the disk too, so a miss or a first insert of that key need not
// read the disk. A "maybe" costs one read, which then finds the key or its absence.
//
// A bloom filter (libbloom, Debian's libbloom-dev) cannot grow, and nobody knows in advance
// how many keys will leave memory. So this is a scalable bloom filter (Almeida et al., 2007):
// a chain of bloom filters, each twice the capacity of the one before and with half its
// false-positive rate. Keys go into the newest; a query asks them all. Each filter is sized
// with the standard formula (bits = -n ln p / ln(2)^2) for its capacity, so with rates
// p/2, p/4, p/8... the whole chain's false-positive rate stays below p however many keys
// it takes. Nothing is ever removed: an owner that learns the keys afresh (from the disk,
// after a compaction dropped some) builds a new filter and puts it in this one's place.
//
// Not thread-safe: the owner's lock guards it (Shard::mutex).

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace tern::engine {

class KeyFilter {
 public:
  // The smallest filter libbloom makes, in keys: the first one's capacity.
  static constexpr size_t kFirstCapacity = 1000;
  static constexpr double kDefaultFalsePositiveRate = 0.01;  // Couchbase's bfilter_fp_prob

  // `false_positive_rate` in (0, 1]: the bound on the share of absent keys that may_contain()
  // calls present (Config::bloom_filter_fp_rate; Couchbase's default is 0.01). A rate of 1
  // keeps no bits at all: once any key was added, every key may be present (Couchbase's
  // bfilter_enabled=false).
  // `first_capacity` (at least kFirstCapacity) sizes the first filter of the chain: the keys
  // expected, when an owner knows.
  explicit KeyFilter(double false_positive_rate = kDefaultFalsePositiveRate,
                     size_t first_capacity = kFirstCapacity);
  ~KeyFilter();
  KeyFilter(KeyFilter&&) noexcept;
  KeyFilter& operator=(KeyFilter&&) noexcept;

  // Adds `key`, growing the chain when the newest filter is full. Throws std::bad_alloc when
  // the bits of a new filter cannot be allocated, leaving the set as it was.
  void add(std::string_view key);

  // False only for a key never added since construction or the last clear(); true for every
  // key added, and for a share of the others below the false-positive rate.
  bool may_contain(std::string_view key) const;

  // Whether no key was ever added: may_contain() is then false for every key, at no cost.
  bool empty() const { return keys_ == 0; }

  // The keys added (one added twice, or one the filter already called present, counts once).
  size_t keys() const { return keys_; }

  // The bytes of every filter's bits: what the filter costs in memory (ep_bloom_filter_memory).
  size_t bytes() const { return bytes_; }

  double false_positive_rate() const { return false_positive_rate_; }

 private:
  struct Layer;
  void add_layer();

  double false_positive_rate_;
  size_t first_capacity_;
  std::vector<std::unique_ptr<Layer>> layers_;  // oldest first; the last takes new keys
  size_t keys_ = 0;
  size_t bytes_ = 0;
};

}  // namespace tern::engine
