#pragma once
// The key-value engine: a bucket's documents, indexed by vbucket, with memcached/Couchbase
// semantics. Each vbucket's documents have their own shard: a hash table, the queue of its
// changes for the flusher in seqno order, its durable writes pending and its bloom filter,
// under one lock. A key's vbucket is the one clients route it to (vbucket_of_key), whatever
// vbucket a request names: memcached clients send every key on vbucket 0, and keys spread
// over 1024 locks by their CRC all the same.
// Every method is thread-safe and either applies its whole change or none of it; one that
// cannot allocate throws std::bad_alloc and applies none: items and memory accounting stay
// exact, and the attempt is counted in the command stats (cmd_set, ...) like any failed one.
//
// This class is the engine's key-value job: the operations requests make, and its memory
// and statistics. Its other jobs are interfaces of their own over the same documents, each
// with its callers: persistence() for the flusher, warmup, background fetches and durability
// (persistence_hooks.h), paging() for the pagers (paging_hooks.h), collections() for the
// bucket's collections (collection_hooks.h).
//
// Expiry values follow the protocol: 0 never expires, up to 30 days (2,592,000 s) is
// relative to now, larger is an absolute Unix time (one already in the past expires at once).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "engine/item.h"
#include "engine/status.h"

namespace tern::cluster {
class CollectionsManifest;
}
#include "metrics/stats.h"

namespace tern::storage {
class Store;
struct Record;
}  // namespace tern::storage

namespace tern::engine {

struct Config {
  size_t memory_quota_bytes = 1024ull * 1024 * 1024;
  size_t max_item_size = 20ull * 1024 * 1024;  // value bytes
  // Rounded up to a power of two, at most cluster::kVBucketCount (the default: a shard per
  // vbucket); fewer fold vbucket v onto shard v mod shard_count.
  size_t shard_count = 1024;
  uint32_t default_lock_seconds = 15;
  uint32_t max_lock_seconds = 30;
  // Memory pressure: above the high watermark the pressure listener is woken; a pager
  // should then evict down to the low watermark. Percentages of memory_quota_bytes.
  uint32_t high_watermark_percent = 85;
  uint32_t low_watermark_percent = 75;
  // A write that does not fit evicts what it needs inline, then retries once, so writes keep
  // succeeding even when the pager falls behind. Off: such a write fails with OutOfMemory.
  bool evict_when_full = true;
  // How long a removed document's tombstone is kept, so that GET_META reports the document
  // deleted rather than unknown (Couchbase's metadata purge interval); afterwards the expiry
  // pager purges it. 0 keeps no tombstones: a remove forgets the key at once.
  uint32_t metadata_purge_seconds = 60 * 60;
  // A persistent (Couchbase) bucket: every published change, tombstones included, is also
  // queued for the flusher (take_dirty()), and eviction evicts only the values of documents
  // already on disk (value eviction, below). Its CAS values start from the wall clock in
  // nanoseconds (Clock::unix_nanoseconds), so that they keep growing across restarts. Off:
  // an ephemeral bucket, memory only, whose CAS values count from 1.
  bool persistent = false;
  // Full eviction (persistent buckets only): eviction drops whole documents and tombstones
  // already on disk, keys and metadata too, instead of only values, so that memory no longer
  // bounds the number of keys. A key with nothing in memory may then be on disk (once its
  // shard has evicted anything, or warmup left any of its keys on disk): every operation
  // on it answers NotResident (changing and counting nothing) until a background fetch has
  // read the key (restore_fetched()). A key the disk does not hold either then keeps an
  // absent marker in memory (Item::absent), so that later operations need not read the disk
  // again; markers are evicted like anything else. A bloom filter per shard (so per
  // vbucket) of the keys that left memory (engine/key_filter.h) spares the read for nearly
  // every key the disk does not hold: a first insert, or a miss. Off: value eviction.
  bool full_eviction = false;
  // Full eviction: the bound on the bloom filters' false-positive rate, in (0, 1): the share
  // of keys absent from the disk that still cost a read (Couchbase's bfilter_fp_prob).
  double bloom_filter_fp_rate = 0.01;
  // The bucket's maxTTL, in seconds (0: none): the longest expiry a write may set. A write
  // with no expiry gets this one, and a longer one is cut to it (Couchbase's rule). A
  // collection's own maxTTL replaces it for the collection's documents (set_manifest).
  uint32_t max_ttl_seconds = 0;
};

class VBucket;
struct EngineImpl;
class PersistenceHooks;
class PagingHooks;
class CollectionHooks;

// What each of the engine's jobs beside the key-value one (PersistenceHooks, PagingHooks,
// CollectionHooks) is made of: a view of the engine's state, one per engine, made by the
// engine alone and never copied.
class EngineJob {
 protected:
  explicit EngineJob(EngineImpl& impl) : impl_(&impl) {}
  EngineJob(const EngineJob&) = delete;
  EngineJob& operator=(const EngineJob&) = delete;

  EngineImpl* impl_;
};

struct GetResult {
  Status status = Status::NotFound;
  ItemPtr item;  // set when status is Success
  bool locked = false;  // get_document only: the document is locked (its CAS is the lock's)
};

struct MutationResult {
  Status status = Status::Success;
  uint64_t cas = 0;    // the new CAS when status is Success
  uint64_t seqno = 0;  // its vbucket's seqno for it (MutationOptions::vbucket; else 0)
};

struct ArithmeticResult {
  Status status = Status::Success;
  uint64_t cas = 0;
  uint64_t value = 0;  // the counter after the operation
  uint64_t seqno = 0;
};

// What GET_META reports of a document: its metadata without its value.
struct MetaResult {
  Status status = Status::NotFound;  // Success for a live document or a tombstone
  bool deleted = false;              // a tombstone: the document was removed
  uint32_t flags = 0;
  // Absolute Unix seconds: when the document expires (0: never); for a tombstone, when the
  // document was removed (as Couchbase reports it).
  uint32_t expiry = 0;
  uint64_t rev_seqno = 0;  // see Item::rev_seqno
  uint8_t datatype = 0;
  uint64_t cas = 0;  // kLockedCas while the document is locked
};

// What a mutation may ask for beyond its own arguments (Couchbase carries these in the
// request's frame infos). Every mutation takes them, so callers pass them through without
// knowing which mutation honours what; each method's comment says what applies to it.
struct MutationOptions {
  // Keep the live document's expiry instead of setting the request's (PreserveTtl). A
  // mutation that creates the document (or finds only a tombstone) uses the request's.
  bool preserve_ttl = false;
  // The vbucket the key belongs to. A mutation that publishes a change takes the vbucket's
  // next seqno under the key's lock, so a key's seqnos grow in the order its changes were
  // published; the item keeps it (Item::seqno) and the result returns it. Null: no seqno.
  VBucket* vbucket = nullptr;
  // A durable write that must be on disk before it counts (persistent buckets only): the
  // change is numbered (CAS, seqno) and queued for the flusher as any other, but held aside
  // instead of published; it is charged to the quota as held (OutOfMemory when it does not
  // fit), and committing moves the charge to the published document. Reads keep seeing
  // the key's committed document, and every other mutation of the key answers
  // SyncWriteInProgress, until commit_prepared() publishes it. The committed document may
  // still expire, be flushed or be removed by its tombstone's purge meanwhile, as if no write
  // were pending; the commit then publishes the write all the same (one whose own expiry has
  // passed commits as a removal). An ephemeral bucket ignores it: nothing would commit it.
  bool prepare = false;
};

// A whole new value for a document, computed from the document as a get_document() read
// it: what the sub-document mutations write.
struct DocumentWrite {
  std::string_view value;
  uint8_t datatype = 0;
  uint32_t flags = 0;
  uint32_t expiry = 0;         // as the protocol gives it (see the top of this file)
  bool keep_expiry = false;    // keep the replaced document's expiry instead (a tombstone's
                               // never counts: a revived document takes `expiry`)
  // Publish a tombstone holding `value` (only extended attributes) instead of a document:
  // removing a document's body, or creating a document as deleted.
  bool deleted = false;
  // The CAS of what the value was computed from: the live document or, when the read asked
  // for deleted documents, its tombstone. 0 when there was neither: then the key must still
  // have no live document, and with read_deleted no tombstone either (one that appeared
  // since is a change the value was not computed from); without it a tombstone is replaced.
  uint64_t expected_cas = 0;
  bool read_deleted = false;  // the read included tombstones (get_document's include_deleted)
  // Called under the key's lock once the new item's CAS and seqno are known, before anyone
  // can see the item, with its value bytes to overwrite in place (macro expansion writes
  // the CAS and seqno into placeholders of fixed width). May be empty.
  std::function<void(std::span<char> value, uint64_t cas, uint64_t seqno)> before_publish = {};
};

enum class StoreMode { Set, Add, Replace };
enum class ConcatMode { Append, Prepend };

// Whether `text` is one valid JSON value: how the caller tells the engine, which has no JSON
// parser of its own, which bodies earn the JSON datatype bit (concat()).
using JsonCheck = bool (*)(std::string_view text);

// The engine's statistics, one member per TERN_ENGINE_ line of metrics/stats.def.
struct Stats {
#define TERN_ENGINE_COUNTER(member, ...) uint64_t member = 0;
#define TERN_ENGINE_VALUE(member, ...) uint64_t member = 0;
#include "metrics/stats.def"

  // Calls visit(stat_def, value) for every statistic, in the table's (STAT's) order.
  template <class Visit>
  void for_each(Visit&& visit) const {
#define TERN_ENGINE_VISIT(member, ...) visit(metrics::stat::member, member);
#define TERN_ENGINE_COUNTER TERN_ENGINE_VISIT
#define TERN_ENGINE_VALUE TERN_ENGINE_VISIT
#include "metrics/stats.def"
#undef TERN_ENGINE_VISIT
  }
};

class Engine {
 public:
  explicit Engine(Config config, const Clock& clock = SystemClock::instance());
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const Config& config() const { return config_; }

  // NotFound on a miss or an expired item. A locked item is still readable, but its CAS
  // reads as kLockedCas (as Couchbase does) so that only the lock holder can mutate it.
  GetResult get(std::string_view key);

  // The document as a read-modify-write needs it: unlike get(), the item carries its real CAS
  // and `locked` says whether a lock holds it; with include_deleted a tombstone is returned
  // too (item->deleted), its value the system attributes it kept. NotFound when there is
  // neither. Counts as a get (cmd_get, get_hits/get_misses).
  GetResult get_document(std::string_view key, bool include_deleted);

  // Publishes write.value as the key's document (or tombstone), if the key still holds what
  // write.expected_cas says it read. options.preserve_ttl acts as write.keep_expiry. CasMismatch when it holds something else (a live
  // document or tombstone with another CAS, or none when one was expected), Exists when
  // nothing was expected but a live document is there: the caller may read again and
  // retry. Locked when the document is locked and expected_cas is not the lock's CAS. The
  // new item's revision follows the replaced one's, as any mutation's does. TooBig and
  // OutOfMemory as for store().
  MutationResult write_document(std::string_view key, const DocumentWrite& write,
                                MutationOptions options = {});

  // Get and set a new expiry (GAT). Locked: Locked.
  GetResult get_and_touch(std::string_view key, uint32_t expiry);

  // Locks the item for lock_seconds (0 = default; capped at the maximum) and returns it with
  // a fresh CAS that unlocks it. Already locked: Locked (Couchbase answers Locked, older
  // servers Etmpfail; we answer Locked).
  GetResult get_locked(std::string_view key, uint32_t lock_seconds);

  // Unlocks with the CAS from get_locked; the item keeps that CAS. Wrong CAS: Locked
  // (Couchbase 7 answers Locked; older servers answered Etmpfail). Not locked (or the lock
  // expired): NotLocked. Missing: NotFound.
  Status unlock(std::string_view key, uint64_t cas);

  // SET/ADD/REPLACE. cas != 0 requires a match (CasMismatch on mismatch, NotFound if
  // absent). Add on an existing key: Exists. Replace on a missing key: NotFound. A locked
  // item accepts only a mutation carrying its lock CAS (else Locked), which unlocks it.
  // Value over max_item_size: TooBig. Over the quota with nothing evictable: OutOfMemory.
  // options.preserve_ttl: SET and REPLACE of a live document keep its expiry; ADD only ever
  // creates, so it always takes `expiry`. SET and REPLACE of a live document with extended
  // attributes keep them (xattr/blob.h) in front of the new body, unless `datatype` says the
  // value brings its own; the whole must fit in max_item_size.
  MutationResult store(StoreMode mode, std::string_view key, std::string_view value,
                       uint32_t flags, uint32_t expiry, uint8_t datatype, uint64_t cas,
                       MutationOptions options = {});

  // DELETE, with the same CAS and lock rules as store. Leaves a tombstone (Item::deleted)
  // for Config::metadata_purge_seconds (a persistent bucket queues one for the disk even
  // when that is 0). The tombstone keeps the document's system extended
  // attributes as its value (xattr::system_section; datatype XATTR, or 0 when there were
  // none) and costs the memory of an item holding them; it may be evicted like one, but
  // every operation other than get_meta and get_document(include_deleted) treats the key as
  // absent, and no statistic counts it (curr_items, evictions, expired_items...).
  MutationResult remove(std::string_view key, uint64_t cas, MutationOptions options = {});

  // GET_META: the metadata of a live document or of a tombstone (deleted = true). NotFound
  // when there is neither. Counts in no statistic and changes nothing, not even recency.
  MetaResult get_meta(std::string_view key);

  // INCREMENT/DECREMENT. A missing key is created with `initial` (flags 0, raw datatype)
  // unless expiry is 0xffffffff (then NotFound); an existing item keeps its expiry, its
  // datatype and its extended attributes (the counter is its body). A body memcached would
  // not read as a number (counter_value.h): NotANumber. Increment wraps at
  // 2^64; decrement stops at 0. An existing item's expiry is kept with or without
  // options.preserve_ttl (as memcached and Couchbase do).
  ArithmeticResult arithmetic(std::string_view key, bool increment, uint64_t delta,
                              uint64_t initial, uint32_t expiry, uint64_t cas,
                              MutationOptions options = {});

  // APPEND/PREPEND: missing key NotStored; keeps flags and expiry (so options.preserve_ttl
  // changes nothing: the expiry is always preserved). A document with extended attributes
  // keeps them: only its body grows (a prepended value goes after the attributes). The new
  // datatype is Couchbase's: the XATTR bit as it was, the JSON bit when `is_json` says the
  // new body is JSON (without `is_json`, never: the body is taken for raw bytes).
  MutationResult concat(ConcatMode mode, std::string_view key, std::string_view value,
                        uint64_t cas, MutationOptions options = {}, JsonCheck is_json = nullptr);

  // TOUCH: new expiry, keeps the value; returns the new CAS. Locked: Locked.
  MutationResult touch(std::string_view key, uint32_t expiry);

  // FLUSH: invalidates every item stored before now + delay_seconds (0 = now). A later
  // flush replaces a pending one. Durable writes pending are not flushed: they commit
  // afterwards. Returns the flush's number: flushes count from 1 in the engine's life.
  //
  // A persistent bucket (Config::persistent) flushes only at once: a delay answers 0,
  // changing nothing. Its flush is the disk's too. The changes queued for the flusher go with
  // the documents, and the next take_dirty() reports the flush, so that the flusher clears
  // the store before it writes what that take returns (Flusher). That take returns again
  // every durable write pending at the flush, and one committed since is queued again when
  // it commits: having survived the flush, they must reach the disk after its clear. Until
  // that batch is on disk the flushed documents are still there (a crash brings them back),
  // and under full eviction the keys the flush dropped read as absent, as do those on disk
  // only. A flush is never reordered with a take: one that runs while the flusher takes
  // waits for it, so every change a take returns was made either wholly before a flush (and
  // is in an earlier take) or after it.
  uint64_t flush(uint32_t delay_seconds);

  Stats stats() const;

  // Bytes accounted to items now (keys, values and per-item overhead), and the quota's
  // watermarks (Config).
  uint64_t mem_used() const;
  uint64_t high_watermark_bytes() const;
  uint64_t low_watermark_bytes() const;

  // Live bucket settings (the management port's bucket edits). The quota and its watermarks
  // change at once for every charge from now on; a smaller one wakes the pager if memory is
  // over the new high watermark. The maxTTL applies to writes from now on. config() keeps
  // the values the engine was made with.
  void set_memory_quota(size_t bytes);
  void set_max_ttl(uint32_t seconds);
  uint32_t max_ttl() const;

  // The steady-clock deadline (ms) for a protocol expiry value; 0 for never.
  int64_t expiry_deadline_ms(uint32_t expiry) const;

  // When a live item expires, in absolute Unix seconds (0: never), as GET_META reports it.
  uint32_t expiry_unix_seconds(const Item& item) const;

  // --- The console's document browser (management port). ---

  // Up to `limit` keys of live documents of collection `collection_id` (collection_key.h),
  // the first in byte order after `after` ("" for the first page), in that order: documents
  // whose value is evicted count; tombstones, expired documents and durable writes not yet
  // committed do not. Each shard is visited whole under its lock, so a page costs in
  // proportion to the bucket's keys in memory, not to the page. Changes nothing, not even
  // recency, and counts in no statistic. Under full eviction the keys on disk only are not
  // listed.
  std::vector<std::string> list_keys(uint32_t collection_id, std::string_view after,
                                     size_t limit);

  // --- Range scans (scan/) and the listing above. ---

  // Calls visit(item) with every live document in memory: documents whose value is evicted
  // count; tombstones, expired documents and durable writes not yet committed do not. Shard
  // by shard, each under its lock, so `visit` must be quick, must not call the engine and
  // must not keep the item. Changes nothing, not even recency, and counts in no statistic.
  // Under full eviction the keys on disk only are not visited
  // (PersistenceHooks::on_disk_only tells them).
  void for_each_live_item(const std::function<void(const Item& item)>& visit);

  // As for_each_live_item, for the documents filed under `vbucket` (Item::vbucket) alone.
  // Where every document is filed under its key's vbucket (vbucket_of_key: every persistent
  // bucket, and whatever the official SDKs write) they share one shard, visited under its lock
  // in one go: `visit` sees the vbucket as one moment left it, and the visit costs that
  // vbucket's documents, not the bucket's. Once a document of `vbucket` was filed in another
  // shard (a memcached client's, on vbucket 0, in an ephemeral bucket), every shard is visited
  // for that vbucket, as for_each_live_item does; the other vbuckets keep their one shard.
  void for_each_live_item_of_vbucket(uint16_t vbucket,
                                     const std::function<void(const Item& item)>& visit);

  // The CAS a plain GET reports for a locked item.
  static constexpr uint64_t kLockedCas = ~uint64_t{0};

  // --- The engine's other jobs, each its own interface over the same documents. ---

  // The flusher's, warmup's, background fetches' and durability's (persistence_hooks.h).
  PersistenceHooks& persistence();
  const PersistenceHooks& persistence() const;
  // The expiry pager's and the item pager's (paging_hooks.h).
  PagingHooks& paging();
  const PagingHooks& paging() const;
  // The bucket's, as its collections change (collection_hooks.h).
  CollectionHooks& collections();
  const CollectionHooks& collections() const;

  using Impl = EngineImpl;  // opaque: defined in engine_impl.h for the engine's own files

 private:
  // The deadline of a write's protocol expiry for `key`, cut to its maxTTL (Config).
  int64_t write_deadline_ms(std::string_view key, uint32_t expiry) const;

  Config config_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern::engine
