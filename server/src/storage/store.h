#pragma once
// A bucket's documents on disk: one RocksDB database per bucket. The engine keeps every
// document in memory and hands the flusher's batches here; warmup and background fetches
// read them back. The store knows nothing of the engine: it takes and gives plain Records.
//
// Key layout: the vbucket (2 bytes, big-endian), then the engine's document key, which for
// any collection but the default starts with a 0x00 byte and the collection id as LEB128
// (commands/request_checks.h). Beside each value go its CAS, seqno, rev seqno, flags,
// expiry, datatype and deleted flag (record_codec.h). Each vbucket's persisted high seqno is
// kept under a key of its own, outside the documents' key range.
//
// Thread-safe: the flusher writes while readers (warmup, background fetch) read.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/document_meta.h"

namespace tern::storage {

// One document or tombstone as it is stored: its metadata, key, value and expiry. The views
// point into memory the caller owns (write) or that lives until the callback returns (scan,
// get).
struct Record : DocumentMeta {
  std::string_view key;    // the engine's document key
  std::string_view value;  // the whole value: extended attributes (xattr/blob.h) and body
  uint32_t expiry = 0;  // absolute Unix seconds, 0 for never; a tombstone's: when it was deleted
};

// A record read back, owning its bytes.
struct OwnedRecord : DocumentMeta {
  static OwnedRecord copy(const Record& record);  // copies the bytes the views point to
  Record view() const;
  std::string key, value;
  uint32_t expiry = 0;
};

// Document keys from `begin` up to, not including, `end` (empty: to the last key), in
// every vbucket: what one collection's documents take (engine/collection_key.h).
struct KeyRange {
  std::string begin;
  std::string end;
};

// The highest seqno written for a vbucket.
struct VBucketSeqno {
  uint16_t vbucket = 0;
  uint64_t seqno = 0;
};

// One entry of the bucket's own metadata (Store::write_meta): a name and its bytes.
struct MetaEntry {
  std::string_view name;
  std::string_view value;
};

struct StoreOptions {
  // Tombstones deleted longer ago than this are dropped when compaction meets them
  // (Couchbase's metadata purge interval), as are documents that expired that long ago.
  uint32_t purge_interval_seconds = 60 * 60;
  // Seconds since the epoch, for the compaction filter; tests drive it.
  std::function<int64_t()> unix_now = {};
};

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Store {
 public:
  virtual ~Store() = default;

  // Writes `records` in order (a later record for the same key wins) and the vbuckets' high
  // seqnos as one atomic batch, synced to disk before returning: one fsync for the whole
  // batch (group commit). Throws StoreError when the disk refuses, or a record's vbucket is
  // above kMaxVBucket (record_codec.h); nothing is then known to be persisted.
  virtual void write(std::span<const Record> records, std::span<const VBucketSeqno> seqnos) = 0;

  // A flush of the bucket: deletes every record (the high seqnos stay: a seqno is never
  // reused), then writes `records` and `seqnos` as write() does, all as one atomic batch
  // synced to disk before returning. A power failure leaves either every record as it was or
  // only the new ones. Throws StoreError as write() does; nothing is then deleted.
  virtual void clear_and_write(std::span<const Record> records,
                               std::span<const VBucketSeqno> seqnos) = 0;

  // Deletes every record (tombstones included) whose key lies in one of `ranges`, in every
  // vbucket, as one atomic batch synced to disk: a dropped collection's documents. `visit`,
  // if set, is called with each record before it goes (range by range, and within a range
  // vbucket by vbucket in key order); without it the store need not read the records at
  // all. Throws StoreError when the disk refuses (nothing is then deleted). The default
  // implementation throws StoreError: a store that cannot delete says so.
  virtual void remove_ranges(std::span<const KeyRange> ranges,
                             const std::function<void(const Record&)>& visit);

  // The record for `key` in `vbucket`, tombstone included, or nullopt.
  virtual std::optional<OwnedRecord> get(uint16_t vbucket, std::string_view key) = 0;

  // Visits every record (tombstones included) in key order, vbucket by vbucket, until
  // `visit` returns false. The record's views live until visit returns.
  virtual void scan(const std::function<bool(const Record&)>& visit) = 0;

  // Visits the records (tombstones included) of one vbucket whose keys lie in `range`, in
  // key order, until `visit` returns false: a range scan's keys on disk. The default
  // implementation filters scan(), reading the whole store; a store that files keys by
  // vbucket reads only the range.
  virtual void scan_vbucket(uint16_t vbucket, const KeyRange& range,
                            const std::function<bool(const Record&)>& visit);

  // The persisted high seqno of every vbucket that has one.
  virtual std::vector<VBucketSeqno> high_seqnos() = 0;

  // The bucket's own metadata, kept beside its records by name (each vbucket's failover log,
  // the mark of a clean shutdown). write_meta writes `entries` as one atomic batch synced to
  // disk, a later entry of a name replacing an earlier one; read_meta returns what was last
  // written under `name`, or nullopt. A flush of the bucket (clear_and_write) keeps them.
  // Both throw StoreError when the disk refuses.
  virtual void write_meta(std::span<const MetaEntry> entries) = 0;
  virtual std::optional<std::string> read_meta(std::string_view name) = 0;

  // Compacts the whole key range now, running the tombstone purge (tests, and an
  // administrator's compaction).
  virtual void compact() = 0;

  // The records compaction has dropped since the store opened (old tombstones, long-expired
  // documents: tombstone_purge_filter.h), whenever it ran. A store that drops none says 0.
  virtual uint64_t records_purged() { return 0; }

  // About how many records (documents and tombstones) the store holds, without reading
  // them; 0 when the store cannot tell. What warmup sizes full eviction's bloom filters for.
  virtual uint64_t estimated_records() { return 0; }
};

// Opens (creating if needed) the RocksDB database in `directory`, creating the directory and
// its parents too. Throws StoreError naming the directory when it cannot, e.g. when another
// process holds its lock.
std::unique_ptr<Store> open_rocksdb_store(const std::string& directory, StoreOptions options);

}  // namespace tern::storage
