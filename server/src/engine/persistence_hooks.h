#pragma once
// What the persistence of a couchbase bucket (Config::persistent) needs of the engine: the
// flusher takes the changes queued for the disk and gives them back once written; warmup
// restores what the disk holds; background fetches put evicted values and, under full
// eviction, whole documents back; the durability monitor commits prepared writes.
//
// One of the engine's jobs, an interface of its own (Engine::persistence()) over the same documents
// and locks as the key-value operations (engine.h): every method is thread-safe, and the
// engine's rules (engine.h's top comment) hold for them too.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "engine/item.h"

namespace tern::engine {

class PersistenceHooks : private EngineJob {
 public:
  // Moves the changes queued since the last call (every item published or prepared, and
  // every expiry's tombstone, in the order each key's changes happened) to the end of `out`.
  // The items are as published: a document or a tombstone, with its vbucket and seqno. A
  // lock is not a change (it is not persisted); a touch is. A document published already
  // expired (a past absolute expiry) is queued as it is: warmup does not load it.
  // Returns 0, or when a flush (Engine::flush()) came since the previous take, the number of the
  // latest: the store must then be cleared before what this take returned is written.
  // Once the flusher is done with items a take returned (written, or dropped with a flush),
  // give them back here: an item that left the index while queued stays charged to the quota
  // until then (the quota bounds all the engine holds), and this releases the charge.
  uint64_t take_dirty(std::vector<ItemPtr>& out);
  void flushed(std::span<const ItemPtr> items);

  // Changes queued and not yet taken (STAT ep_queue_size).
  size_t dirty_count() const;

  // Called when a change is queued and the queues were empty since the last take_dirty():
  // once per batch, not per write. It runs on the writing thread with no engine lock held,
  // so it must be quick: wake the flusher asynchronously.
  void set_dirty_listener(std::function<void()> listener);

  // Publishes the key's prepared item (MutationOptions::prepare) if it is the one with this
  // CAS, keeping its CAS and seqno, in place of whatever the key holds; its charge moves to
  // the index, even past the quota (it is on disk and was acknowledged: it cannot be refused
  // now).
  // Returns false when the key has no such prepared item.
  bool commit_prepared(std::string_view key, uint64_t cas);

  // Durable writes held aside now (STAT: durability pending).
  size_t prepared_count() const;

  // The bucket's vbuckets, by id (Item::vbucket): what an expiry in a persistent bucket
  // numbers its tombstone on, and whose persisted seqnos tell which items are on disk (value
  // eviction). Call once, before serving; until then such tombstones take no seqno, and
  // nothing is known to be on disk, so nothing is evicted.
  void set_vbuckets(std::span<VBucket> vbuckets);

  // Warmup: inserts an item read from disk as it was stored (CAS, seqnos, expiry, deleted),
  // already persisted. Raises the CAS counters past its CAS, so that later CAS values stay
  // unique. A key may be on disk under several vbuckets (memcached clients send every key on
  // vbucket 0): the item with the highest CAS, the latest write, wins, whatever the order
  // they come in, and takes the place of an older one already restored (an expired latest
  // write removes it; one that came first cannot stop an older write coming after it). A document
  // is restored whole while that fits below the low watermark, else as its non-resident copy (value
  // eviction: the value is fetched when read); a tombstone, and such a copy, while it fits below
  // the high watermark. Under full eviction a record that does not fit below the low watermark is
  // not loaded at all (OnDiskOnly): it is read when a request needs it, and a document among them
  // still counts in curr_items. Each key has one record: a persistent bucket files a key under one
  // vbucket (the dispatcher's rule), so nothing is counted twice.
  enum class Restored {
    Value,       // the whole document
    Metadata,    // a document's non-resident copy, or a tombstone
    Skipped,     // expired, due for purging, or older than the key's item: nothing to load
    Full,        // not even the metadata fits: nothing inserted (warmup stops loading)
    OnDiskOnly,  // full eviction: left on disk, to be fetched when needed
  };
  Restored restore(MutableItemPtr item);
  // The same for a record read from disk, whose expiry as a deadline is `expiry_ms`
  // (expiry_ms_of_record): its item is built only when it is loaded, so that under full
  // eviction a record left on disk costs no copy of its value.
  Restored restore(const storage::Record& record, int64_t expiry_ms);

  // Warmup: makes every CAS issued from now on greater than `cas`, as restore() does for
  // the item it is given. For each record read from disk that restore() is not given (past
  // a full quota, or under no vbucket of the bucket): a client may still hold its CAS.
  void raise_cas_floor(uint64_t cas);

  // Value eviction (persistent buckets): the item pager and inline eviction replace a
  // persisted document by a non-resident copy (Item::resident false: key and metadata, no
  // value). Every Engine operation that needs a document's value (get, get_and_touch, get_locked,
  // get_document, concat, arithmetic; store and remove when the document has extended
  // attributes to keep) answers NotResident for such a document and changes nothing; the
  // caller fetches the value (BgFetcher) and retries; the attempt counts in no statistic
  // (the retry does). Operations that need only metadata (get_meta, unlock, a store or
  // remove without attributes to keep, write_document, whose caller read the value with
  // get_document) work as usual. touch needs the value too: the disk keeps a document as
  // one record, which a new expiry rewrites whole. An expiry found by a sweep or a lookup
  // leaves a tombstone without the system attributes of a non-resident document (it cannot
  // wait for a fetch). Locked documents, tombstones, documents not yet on disk and keys with
  // a durable write pending are never evicted; a non-resident document may still expire,
  // be removed, replaced or flushed.

  // Background fetch: puts `value` back into the key's non-resident item if it still is the
  // item with this CAS (one changed, removed or already fetched meanwhile is left alone),
  // charged to the quota even past it (the pager evicts again). Returns whether it did.
  bool restore_value(std::string_view key, uint64_t cas, std::string_view value);

  // The key's document if its value is evicted: the vbucket it is filed under on disk and its
  // CAS (what restore_value() must be given). nullopt when the key has no such document.
  struct Evicted {
    uint16_t vbucket = 0;
    uint64_t cas = 0;
  };
  std::optional<Evicted> evicted(std::string_view key);

  // Full eviction: whether the key has nothing in memory, no document, tombstone or absent
  // marker, so that only the disk can tell what it holds (the operations on it answer
  // NotResident). Always false under value eviction.
  bool on_disk_only(std::string_view key);

  // Full eviction: rebuilds every shard's bloom filter of the keys on disk from `store`: each
  // key the store holds that memory holds nothing of, in a filter whose first part is sized
  // for as many keys as the old one took. After compaction dropped old tombstones
  // (Store::records_purged) the filters forget what the disk no longer has, and a filter that
  // grew into a long chain is one again. A key that leaves memory meanwhile goes into the old
  // filter and the new one. Returns the keys the new filters were given. Reads the whole
  // store, taking each key's shard lock in turn: a background task's work (Persistence).
  // Throws StoreError or std::bad_alloc, and the old filters stay. 0 under value eviction.
  size_t rebuild_key_filters(storage::Store& store);

  // Full eviction, before warmup: sizes each shard's filter for its share of `keys_on_disk`
  // (Store::estimated_records), so that what warmup leaves on disk fills one filter sized for
  // it rather than a chain grown from the smallest (KeyFilter). A shard whose filter already
  // holds keys keeps it. Sized for every record, since which of them will not fit in memory
  // is not known yet; a filter's bits are allocated when its first key leaves memory (at 1%,
  // about 1.4 bytes for each record of its shard). Nothing under value eviction.
  void size_key_filters(uint64_t keys_on_disk);

  // Full eviction, background fetch: puts in memory what the disk holds for a key that is
  // on disk only: `stored`, the key's record as Warmup would load it (a document or a
  // tombstone), or, when null, an absent marker. A document that expired on disk expires at
  // once, as one found in memory does (its tombstone queued for the disk); a tombstone due
  // for purging, or a record a flush dropped (see Engine::flush()), leaves a marker too. Charged to
  // the quota even past it (the requests are about to read it; the pager evicts again). Returns
  // false, changing nothing, when the key is no longer on disk only (another fetch or a change got
  // there first). May throw std::bad_alloc.
  bool restore_fetched(std::string_view key, MutableItemPtr stored);

 private:
  friend struct EngineImpl;
  using EngineJob::EngineJob;
};

}  // namespace tern::engine
