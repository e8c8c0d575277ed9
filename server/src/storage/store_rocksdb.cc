// The Store on RocksDB (record_codec.h has the layout): one default column family, every
// write a synced WriteBatch, tombstones purged by a compaction filter.

#include <filesystem>
#include <string>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include "storage/record_codec.h"
#include "storage/store.h"
#include "storage/store_rocksdb.h"
#include "storage/tombstone_purge_filter.h"

namespace tern::storage {
namespace {

rocksdb::Slice slice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }

void check(const rocksdb::Status& status, std::string_view what) {
  if (!status.ok()) throw StoreError(std::string(what) + ": " + status.ToString());
}

// The fastest codec this build of RocksDB has: Debian's has lz4 (cheap enough for every
// flush) and snappy.
rocksdb::CompressionType pick_compression() {
  auto supported = rocksdb::GetSupportedCompressions();
  for (auto type : {rocksdb::kLZ4Compression, rocksdb::kSnappyCompression}) {
    for (auto have : supported) {
      if (have == type) return type;
    }
  }
  return rocksdb::kNoCompression;
}

rocksdb::Options make_options(const StoreOptions& options, const RocksDBTestHooks& hooks,
                              rocksdb::Env* env,
                              std::shared_ptr<TombstonePurgeFilterFactory> purge_filters) {
  rocksdb::Options o;
  if (env != nullptr) o.env = env;
  o.disable_auto_compactions = !hooks.auto_compactions;
  o.create_if_missing = true;
  // Sized for a small machine: two background threads share flushes and compactions, and
  // 32 MiB memtables keep a bucket's RocksDB memory (outside its quota) modest.
  o.max_background_jobs = 2;
  o.write_buffer_size = 32 << 20;
  o.max_write_buffer_number = 2;
  o.level_compaction_dynamic_level_bytes = true;
  o.compression = pick_compression();
  o.keep_log_file_num = 3;
  o.max_log_file_size = 4 << 20;
  rocksdb::BlockBasedTableOptions table;
  // get() (background fetch) asks for single keys: a bloom filter skips the files without it.
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  o.compaction_filter_factory = std::move(purge_filters);
  return o;
}

class RocksDBStore final : public Store {
 public:
  // `env` (null for the default) must be the one `db` was opened with.
  RocksDBStore(std::unique_ptr<rocksdb::DB> db, std::unique_ptr<rocksdb::Env> env,
               bool sync_writes, std::shared_ptr<const TombstonePurgeFilterFactory> purge_filters)
      : env_(std::move(env)),
        db_(std::move(db)),
        sync_writes_(sync_writes),
        purge_filters_(std::move(purge_filters)) {}

  ~RocksDBStore() override {
    // Every write was synced to the WAL, so nothing is lost if these report an error. The
    // flush moves the memtable into a table file, so that the next open need not replay the
    // whole log (seconds after a load of a million items).
    rocksdb::FlushOptions flush;
    flush.wait = true;
    (void)db_->Flush(flush);
    (void)db_->Close();
  }

  void write(std::span<const Record> records, std::span<const VBucketSeqno> seqnos) override {
    if (records.empty() && seqnos.empty()) return;
    rocksdb::WriteBatch batch;
    add_to_batch(batch, records, seqnos);
    commit(batch);
  }

  void clear_and_write(std::span<const Record> records,
                       std::span<const VBucketSeqno> seqnos) override {
    rocksdb::WriteBatch batch;
    // Every document key sorts below the metadata range. Each entry of a batch is numbered
    // after the one before, so the records put after the range deletion outlive it.
    static constexpr char kEnd[] = {kMetaPrefix};
    check(batch.DeleteRange(rocksdb::Slice(), rocksdb::Slice(kEnd, 1)),
          "cannot batch the deletion of every record");
    add_to_batch(batch, records, seqnos);
    commit(batch);
  }

  void remove_ranges(std::span<const KeyRange> ranges,
                     const std::function<void(const Record&)>& visit) override {
    rocksdb::WriteBatch batch;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    for (const KeyRange& range : ranges) {
      // Only the vbuckets that hold a key of the range get a range deletion: a seek finds
      // the next one that does, so that the batch holds no more than the store has vbuckets.
      for (it->Seek(encode_document_key(0, range.begin)); it->Valid();) {
        const auto found = decode_document_key(it->key().ToStringView());
        if (!found) break;  // the metadata range: past every document
        const uint16_t vbucket = found->vbucket;
        if (found->key < range.begin) {
          it->Seek(encode_document_key(vbucket, range.begin));
          continue;
        }
        // The range's end in this vbucket: its end key, or the next vbucket's first key.
        const std::string end = range.end.empty() ? vbucket_end(vbucket)
                                                  : encode_document_key(vbucket, range.end);
        if (it->key().compare(slice(end)) < 0) {
          check(batch.DeleteRange(encode_document_key(vbucket, range.begin), end),
                "cannot batch a range deletion");
          for (; visit && it->Valid() && it->key().compare(slice(end)) < 0; it->Next()) {
            const auto key = decode_document_key(it->key().ToStringView());
            Record record = decode(key->vbucket, it->value().ToStringView());
            record.vbucket = key->vbucket;
            record.key = key->key;
            visit(record);
          }
        }
        if (vbucket == kMaxVBucket) break;
        it->Seek(vbucket_end(vbucket));
      }
      check(it->status(), "cannot read the ranges to delete");
    }
    rocksdb::WriteOptions write_options;
    write_options.sync = sync_writes_;
    check(db_->Write(write_options, &batch), "cannot delete from the store");
  }

  std::optional<OwnedRecord> get(uint16_t vbucket, std::string_view key) override {
    if (vbucket > kMaxVBucket) return std::nullopt;
    rocksdb::PinnableSlice value;
    auto status = db_->Get(rocksdb::ReadOptions(), db_->DefaultColumnFamily(),
                           encode_document_key(vbucket, key), &value);
    if (status.IsNotFound()) return std::nullopt;
    check(status, "cannot read vbucket " + std::to_string(vbucket));
    Record record = decode(vbucket, value.ToStringView());
    record.vbucket = vbucket;
    record.key = key;
    return OwnedRecord::copy(record);
  }

  void scan(const std::function<bool(const Record&)>& visit) override {
    static constexpr char kEnd[] = {kMetaPrefix};
    rocksdb::Slice end(kEnd, 1);
    rocksdb::ReadOptions read_options;
    read_options.iterate_upper_bound = &end;
    // Warmup reads everything once: leave the block cache to the point gets.
    read_options.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      auto key = decode_document_key(it->key().ToStringView());
      if (!key) throw StoreError("corrupt store: a document key of " +
                                 std::to_string(it->key().size()) + " bytes");
      Record record = decode(key->vbucket, it->value().ToStringView());
      record.vbucket = key->vbucket;
      record.key = key->key;
      if (!visit(record)) return;
    }
    check(it->status(), "cannot scan the store");
  }

  void scan_vbucket(uint16_t vbucket, const KeyRange& range,
                    const std::function<bool(const Record&)>& visit) override {
    if (vbucket > kMaxVBucket) return;
    const std::string end =
        range.end.empty() ? vbucket_end(vbucket) : encode_document_key(vbucket, range.end);
    const rocksdb::Slice upper = slice(end);
    rocksdb::ReadOptions read_options;
    read_options.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options));
    for (it->Seek(encode_document_key(vbucket, range.begin)); it->Valid(); it->Next()) {
      auto key = decode_document_key(it->key().ToStringView());
      if (!key) throw StoreError("corrupt store: a document key of " +
                                 std::to_string(it->key().size()) + " bytes");
      Record record = decode(vbucket, it->value().ToStringView());
      record.vbucket = vbucket;
      record.key = key->key;
      if (!visit(record)) return;
    }
    check(it->status(), "cannot read vbucket " + std::to_string(vbucket));
  }

  std::vector<VBucketSeqno> high_seqnos() override {
    rocksdb::Slice end = slice(kSeqnoKeysEnd);
    rocksdb::ReadOptions read_options;
    read_options.iterate_upper_bound = &end;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options));
    std::vector<VBucketSeqno> out;
    for (it->Seek(slice(kSeqnoKeysBegin)); it->Valid(); it->Next()) {
      auto vbucket = decode_seqno_key(it->key().ToStringView());
      auto seqno = decode_seqno_value(it->value().ToStringView());
      if (!vbucket || !seqno) throw StoreError("corrupt store: a high seqno record");
      out.push_back({*vbucket, *seqno});
    }
    check(it->status(), "cannot read the high seqnos");
    return out;
  }

  void write_meta(std::span<const MetaEntry> entries) override {
    if (entries.empty()) return;
    rocksdb::WriteBatch batch;
    for (const MetaEntry& entry : entries) {
      check(batch.Put(encode_meta_key(entry.name), slice(entry.value)),
            "cannot batch a metadata entry");
    }
    commit(batch);
  }

  std::optional<std::string> read_meta(std::string_view name) override {
    std::string value;
    const rocksdb::Status status =
        db_->Get(rocksdb::ReadOptions(), encode_meta_key(name), &value);
    if (status.IsNotFound()) return std::nullopt;
    check(status, "cannot read the metadata entry " + std::string(name));
    return value;
  }

  uint64_t records_purged() override { return purge_filters_->purged(); }

  // RocksDB's own estimate (memtables and the files' key counts, less what it knows
  // deletions took), which also counts the few seqno and metadata keys.
  uint64_t estimated_records() override {
    uint64_t keys = 0;
    return db_->GetIntProperty("rocksdb.estimate-num-keys", &keys) ? keys : 0;
  }

  void compact() override {
    rocksdb::CompactRangeOptions options;
    // The bottommost level too: that is where old tombstones settle.
    options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    check(db_->CompactRange(options, nullptr, nullptr), "cannot compact the store");
  }

 private:
  static void add_to_batch(rocksdb::WriteBatch& batch, std::span<const Record> records,
                           std::span<const VBucketSeqno> seqnos) {
    for (const Record& record : records) {
      if (record.vbucket > kMaxVBucket) {
        throw StoreError("cannot store vbucket " + std::to_string(record.vbucket) +
                         ": above the store's highest, " + std::to_string(kMaxVBucket));
      }
      // SliceParts: the batch copies key and value once, with no concatenated temporaries.
      auto prefix = encode_vbucket(record.vbucket);
      auto header = encode_value_header(record);
      rocksdb::Slice key_parts[] = {slice({prefix.data(), prefix.size()}), slice(record.key)};
      rocksdb::Slice value_parts[] = {slice({header.data(), header.size()}),
                                      slice(record.value)};
      check(batch.Put(rocksdb::SliceParts(key_parts, 2), rocksdb::SliceParts(value_parts, 2)),
            "cannot batch a record");
    }
    for (const VBucketSeqno& s : seqnos) {
      check(batch.Put(encode_seqno_key(s.vbucket), encode_seqno_value(s.seqno)),
            "cannot batch a high seqno");
    }
  }

  void commit(rocksdb::WriteBatch& batch) {
    rocksdb::WriteOptions write_options;
    write_options.sync = sync_writes_;
    check(db_->Write(write_options, &batch), "cannot write to the store");
  }

  // The first key past every document of `vbucket`: the next vbucket's prefix (for the last
  // one, 0xFF00, which sorts before the metadata range's keys).
  static std::string vbucket_end(uint16_t vbucket) {
    const uint16_t next = vbucket + 1;
    return std::string{static_cast<char>(next >> 8), static_cast<char>(next & 0xff)};
  }

  static Record decode(uint16_t vbucket, std::string_view bytes) {
    auto record = decode_value(bytes);
    if (!record) {
      throw StoreError("corrupt record in vbucket " + std::to_string(vbucket) + ": " +
                       std::to_string(bytes.size()) + " bytes, format version " +
                       (bytes.empty() ? "none" : std::to_string(uint8_t(bytes[0]))));
    }
    return *record;
  }

  std::unique_ptr<rocksdb::Env> env_;  // before db_: the database uses it until it closes
  std::unique_ptr<rocksdb::DB> db_;
  const bool sync_writes_;
  const std::shared_ptr<const TombstonePurgeFilterFactory> purge_filters_;
};

}  // namespace

std::unique_ptr<Store> open_rocksdb_store(const std::string& directory, StoreOptions options) {
  return open_rocksdb_store(directory, std::move(options), RocksDBTestHooks{});
}

std::unique_ptr<Store> open_rocksdb_store(const std::string& directory, StoreOptions options,
                                          const RocksDBTestHooks& hooks) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) {
    throw StoreError("cannot create the store directory " + directory + ": " + error.message());
  }
  std::unique_ptr<rocksdb::Env> env;
  if (hooks.file_system) env = rocksdb::NewCompositeEnv(hooks.file_system);
  rocksdb::DB* db = nullptr;
  auto purge_filters = std::make_shared<TombstonePurgeFilterFactory>(
      options.purge_interval_seconds, options.unix_now);
  auto status =
      rocksdb::DB::Open(make_options(options, hooks, env.get(), purge_filters), directory, &db);
  if (!status.ok()) {
    throw StoreError("cannot open the store in " + directory + ": " + status.ToString());
  }
  return std::make_unique<RocksDBStore>(std::unique_ptr<rocksdb::DB>(db), std::move(env),
                                        hooks.sync_writes, std::move(purge_filters));
}

}  // namespace tern::storage
