#pragma once
// A vbucket: one of the 1024 partitions of a bucket's key space, as Couchbase splits it.
// Clients route each key to a vbucket by CRC; this node serves a request only if it holds
// that vbucket in the active state. Each vbucket numbers its mutations with a sequence
// number (seqno) that only grows, qualified by a uuid that names this history of it: a
// client that saw (uuid, seqno) can later ask whether that mutation is still there. Its
// failover log keeps the histories (failover_log.h); a persistent bucket stores it beside the
// documents (Warmup), so that a clean restart keeps the uuid.
//
// The vbucket's documents are the engine's shard of the same number (engine_impl.h Shard: its
// hash table, its queue of changes in seqno order, its durable writes pending, its bloom
// filter), which the engine owns beside this state: a key belongs to the vbucket its CRC names
// (engine::vbucket_of_key), whatever vbucket a request sent it on, so memcached clients, which
// send every key on vbucket 0, still spread over every vbucket's lock.
//
// Thread-safe: every member may be read and changed concurrently.

#include <atomic>
#include <cstdint>
#include <mutex>

#include "common/mutex.h"
#include "cluster/vbucket_state.h"
#include "engine/failover_log.h"

namespace tern::engine {

class alignas(64) VBucket {  // one cache line each: neighbours are written by other threads
 public:
  VBucket() = default;
  VBucket(const VBucket&) = delete;
  VBucket& operator=(const VBucket&) = delete;

  // Its number in the bucket (0 until the bucket sets it, once, before serving): what a
  // persistent bucket files each of its items under (Item::vbucket).
  uint16_t id() const { return id_; }
  void set_id(uint16_t id) { id_ = id; }

  cluster::VBucketState state() const { return state_.load(std::memory_order_acquire); }

  // Moving into the active state from any other starts a new history: `new_uuid` is added to
  // the failover log after the current seqno, which carries on (it never goes back, so no
  // client mistakes old numbers for new ones). Returns whether it began a new history.
  bool set_state(cluster::VBucketState state, uint64_t new_uuid);

  // The current history's uuid (the failover log's newest): what a mutation token carries.
  uint64_t uuid() const { return uuid_.load(std::memory_order_acquire); }

  // A copy of the failover log (failover_log.h).
  FailoverLog failover_log() const;

  // Warmup: takes the log the disk kept in place of the one this start began (a clean restart
  // then keeps the uuid clients hold). Call before the vbucket serves anything.
  void restore_failover_log(FailoverLog log);

  // Starts a new history under `new_uuid` after the current seqno, whatever the state: what
  // an unclean restart does, since mutations past the disk's high seqno may be lost.
  void add_failover_entry(uint64_t new_uuid);

  // Counts one mutation and returns its seqno: 1 for the first, then one more each time.
  uint64_t record_mutation() { return seqno_.fetch_add(1, std::memory_order_acq_rel) + 1; }

  // The seqno of the latest mutation (0 before any).
  uint64_t high_seqno() const { return seqno_.load(std::memory_order_acquire); }

  // Persistent buckets: every mutation numbered up to this seqno is on disk (the flusher
  // advances it after each batch). Ephemeral buckets leave it 0.
  uint64_t persisted_seqno() const { return persisted_seqno_.load(std::memory_order_acquire); }
  void set_persisted_seqno(uint64_t seqno) {
    persisted_seqno_.store(seqno, std::memory_order_release);
  }

  // Warmup: carries on numbering after `seqno`, the highest found on disk, which is then
  // also the persisted seqno. Call before the vbucket serves anything.
  void restore_seqno(uint64_t seqno) {
    seqno_.store(seqno, std::memory_order_release);
    persisted_seqno_.store(seqno, std::memory_order_release);
  }

 private:
  uint16_t id_ = 0;  // written before any thread shares the vbucket
  std::atomic<cluster::VBucketState> state_{cluster::VBucketState::Dead};  // until given one
  mutable Mutex failover_mutex_;
  FailoverLog failover_log_ TERN_GUARDED_BY(failover_mutex_);
  // The log's current uuid, for readers that need no lock (every mutation's token); written
  // under failover_mutex_ each time the log changes.
  std::atomic<uint64_t> uuid_{0};
  std::atomic<uint64_t> seqno_{0};
  std::atomic<uint64_t> persisted_seqno_{0};
};

}  // namespace tern::engine
