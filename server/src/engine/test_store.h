#pragma once
// For the engine's unit tests: a storage::Store in memory that counts its writes and can be
// told to refuse them, as a full or failing disk would. Tests of the real store's behaviour
// use open_rocksdb_store in a temporary directory instead.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "storage/store.h"

namespace tern::engine {

class TestStore final : public storage::Store {
 public:
  void write(std::span<const storage::Record> records,
             std::span<const storage::VBucketSeqno> seqnos) override {
    ++write_calls;
    if (refuse_writes > 0) {
      --refuse_writes;
      throw storage::StoreError("no space left on device (test)");
    }
    if (during_write) during_write();
    for (const storage::Record& record : records) {
      records_[{record.vbucket, std::string(record.key)}] = storage::OwnedRecord::copy(record);
    }
    for (const storage::VBucketSeqno& seqno : seqnos) high_seqnos_[seqno.vbucket] = seqno.seqno;
  }

  // A flush: refused as a whole, as write() is (counted in write_calls too).
  void clear_and_write(std::span<const storage::Record> records,
                       std::span<const storage::VBucketSeqno> seqnos) override {
    if (refuse_writes == 0) records_.clear();
    write(records, seqnos);
    ++clears;
  }

  std::optional<storage::OwnedRecord> get(uint16_t vbucket, std::string_view key) override {
    auto it = records_.find({vbucket, std::string(key)});
    if (it == records_.end()) return std::nullopt;
    return it->second;
  }

  void scan(const std::function<bool(const storage::Record&)>& visit) override {
    for (const auto& [where, record] : records_) {
      if (before_visit) before_visit(record.view());
      if (!visit(record.view())) return;
    }
  }

  std::vector<storage::VBucketSeqno> high_seqnos() override {
    std::vector<storage::VBucketSeqno> out;
    for (const auto& [vbucket, seqno] : high_seqnos_) out.push_back({vbucket, seqno});
    return out;
  }

  void compact() override {}

  void write_meta(std::span<const storage::MetaEntry> entries) override {
    for (const storage::MetaEntry& entry : entries) meta_[std::string(entry.name)] = entry.value;
  }
  std::optional<std::string> read_meta(std::string_view name) override {
    auto it = meta_.find(std::string(name));
    return it == meta_.end() ? std::nullopt : std::optional(it->second);
  }

  size_t size() const { return records_.size(); }

  int write_calls = 0;
  int clears = 0;  // clear_and_write() calls that went through
  int refuse_writes = 0;  // the next this many writes throw StoreError
  // Called by write() (and clear_and_write()) before it stores anything: what a test does
  // while a batch is being written.
  std::function<void()> during_write;
  // Called by scan() before it visits each record: what a test does while a scan is under way.
  std::function<void(const storage::Record&)> before_visit;

 private:
  std::map<std::pair<uint16_t, std::string>, storage::OwnedRecord> records_;
  std::map<uint16_t, uint64_t> high_seqnos_;
  std::map<std::string, std::string> meta_;
};

}  // namespace tern::engine
