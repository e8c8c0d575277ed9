#include "engine/failover_log.h"

#include <algorithm>
#include <random>

#include "common/little_endian.h"

namespace tern::engine {
namespace {

constexpr uint8_t kFormatVersion = 1;
constexpr size_t kEntryBytes = 16;

void append_le64(std::string& out, uint64_t value) {
  char bytes[8];
  put_le(bytes, value);
  out.append(bytes, sizeof bytes);
}

}  // namespace

uint64_t new_failover_uuid() {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  return generator() | 1;  // a uuid of 0 reads as "no history" to clients
}

void FailoverLog::add(uint64_t uuid, uint64_t seqno) {
  entries_.insert(entries_.begin(), FailoverEntry{uuid, seqno});
  if (entries_.size() > kMaxEntries) entries_.resize(kMaxEntries);
}

std::optional<uint64_t> FailoverLog::end_of(uint64_t uuid) const {
  for (size_t i = 1; i < entries_.size(); ++i) {
    if (entries_[i].uuid == uuid) return entries_[i - 1].seqno;
  }
  return std::nullopt;
}

bool FailoverLog::knows(uint64_t uuid) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [uuid](const FailoverEntry& entry) { return entry.uuid == uuid; });
}

std::string FailoverLog::encode() const {
  std::string out(1, static_cast<char>(kFormatVersion));
  out.reserve(1 + entries_.size() * kEntryBytes);
  for (const FailoverEntry& entry : entries_) {
    append_le64(out, entry.uuid);
    append_le64(out, entry.seqno);
  }
  return out;
}

std::optional<FailoverLog> FailoverLog::decode(std::string_view bytes) {
  if (bytes.empty() || static_cast<uint8_t>(bytes[0]) != kFormatVersion) return std::nullopt;
  bytes.remove_prefix(1);
  if (bytes.size() % kEntryBytes != 0 || bytes.size() / kEntryBytes > kMaxEntries) {
    return std::nullopt;
  }
  FailoverLog log;
  for (size_t at = 0; at < bytes.size(); at += kEntryBytes) {
    const FailoverEntry entry{get_le<uint64_t>(bytes.data() + at), get_le<uint64_t>(bytes.data() + at + 8)};
    if (entry.uuid == 0) return std::nullopt;
    log.entries_.push_back(entry);
  }
  return log;
}

}  // namespace tern::engine
