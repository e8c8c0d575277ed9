#pragma once
// The keys in memory of one collection of a bucket, by vbucket and in key order, as one pass
// over the engine found them: what range-scan creates take their keys from.
//
// Why: the engine keeps one hash table per bucket, not per vbucket, so taking one vbucket's
// keys means visiting every document in memory, and a scan of a collection makes one create
// per vbucket (1024). Without the index a scan of N documents visits N x 1024 of them; with it
// the creates share one pass while nothing changes.
//
// When a vbucket's part is still the truth: the vbuckets' high seqnos are read before the
// pass, and every change that gives a document a seqno takes that document's shard lock, which
// the pass takes too; so a change the pass missed has moved its vbucket's high seqno. A part
// whose high seqno has not moved is current. Two changes move no seqno: the commit of a durable
// write (numbered when prepared), and the removals a bucket flush makes. So an index built
// while a durable write was pending serves only the create that built it, and an index serves
// for at most KeyIndexCache::kMaxAgeMs. Expiry moves no seqno either until the pager removes
// the document: a scan of documents skips the expired ones as it reads them.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cluster/vbucket_of.h"
#include "common/clock.h"
#include "engine/bucket.h"

namespace tern::scan {

class KeyIndex {
 public:
  struct Key {
    std::string stored;  // the engine's key (engine/collection_key.h)
    uint64_t seqno = 0;  // of the change that made the document as the pass saw it
  };

  // One pass over `bucket`'s documents in memory, keeping those of `collection_id`.
  KeyIndex(engine::Bucket& bucket, uint32_t collection_id, int64_t built_ms);

  // Whether vbucket `vbucket`'s part is current (see above), `bucket` being the one indexed.
  bool current(engine::Bucket& bucket, uint16_t vbucket) const;
  // The vbucket's keys, in key order.
  std::span<const Key> keys(uint16_t vbucket) const { return by_vbucket_[vbucket]; }

  int64_t built_ms() const { return built_ms_; }
  // False when a durable write was pending during the pass: its commit would move no seqno.
  bool reusable() const { return reusable_; }

 private:
  std::array<std::vector<Key>, cluster::kVBucketCount> by_vbucket_;
  std::array<uint64_t, cluster::kVBucketCount> high_seqnos_{};
  int64_t built_ms_ = 0;
  bool reusable_ = true;
};

// The indexes the creates share, one per bucket and collection. Thread-safe.
class KeyIndexCache {
 public:
  // How long an index serves at most.
  static constexpr int64_t kMaxAgeMs = 10 * 1000;

  explicit KeyIndexCache(const Clock& clock) : clock_(clock) {}

  // An index of `bucket`'s collection whose part for `vbucket` is current: the one kept, or a
  // new one (a pass over the bucket, made here), kept when reusable.
  std::shared_ptr<const KeyIndex> index_for(engine::Bucket& bucket, uint32_t collection_id,
                                            uint16_t vbucket);

  // Lets go of the indexes older than kMaxAgeMs (the memory of every key of a collection).
  void drop_old();
  // Lets go of `bucket`'s indexes (the bucket is going away).
  void drop_bucket(const void* bucket);
  size_t size() const;

 private:
  const Clock& clock_;
  mutable std::mutex mutex_;
  std::map<std::pair<const void*, uint32_t>, std::shared_ptr<const KeyIndex>> indexes_;
};

}  // namespace tern::scan
