#pragma once
// A vbucket's failover log, as kv_engine keeps it: the histories the vbucket has had, newest
// first, each a uuid and the seqno it began at. A client holding a mutation token (uuid,
// seqno) asks with it whether its mutation is still there: under the current uuid it is; under
// an older one it is if its seqno is at most where that history ended (the start of the next
// newer one); under a uuid the log does not know, nobody can say.
//
// A vbucket starts a history each time it becomes active from another state, and each time the
// node restarts without having written everything first (an unclean shutdown: what the old
// history had past the disk's high seqno is lost, and clients must learn it). A clean restart
// keeps the history, and with it every token issued before.
//
// A value type, not thread-safe: VBucket guards its own.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tern::engine {

struct FailoverEntry {
  uint64_t uuid = 0;
  uint64_t seqno = 0;  // the history began after this seqno

  bool operator==(const FailoverEntry&) const = default;
};

// A uuid for a new history: random, never 0.
uint64_t new_failover_uuid();

class FailoverLog {
 public:
  // kv_engine's max_failover_entries: older histories are forgotten past this many.
  static constexpr size_t kMaxEntries = 25;

  // An empty log: no history yet (uuid() reads 0).
  FailoverLog() = default;

  // Starts a new history after `seqno` under `uuid` (never 0: a uuid of 0 reads as "no
  // history" to clients), forgetting the oldest past kMaxEntries.
  void add(uint64_t uuid, uint64_t seqno);

  // The current history's uuid; 0 when the log is empty.
  uint64_t uuid() const { return entries_.empty() ? 0 : entries_.front().uuid; }

  // Where the history `uuid` ended: the seqno the next newer one began after. nullopt for the
  // current history (it has not ended) and for a uuid the log does not hold.
  std::optional<uint64_t> end_of(uint64_t uuid) const;

  // Whether the log holds `uuid`, current or not.
  bool knows(uint64_t uuid) const;

  std::span<const FailoverEntry> entries() const { return entries_; }  // newest first

  // The log as it is stored beside the vbucket's records: a version byte, then each entry as
  // two little-endian u64s, newest first.
  std::string encode() const;
  // A log encode() made, or nullopt for bytes that are not one (a version it does not know, a
  // truncated entry, a uuid of 0, or more than kMaxEntries). An empty log is one: a vbucket
  // never active has had no history.
  static std::optional<FailoverLog> decode(std::string_view bytes);

 private:
  std::vector<FailoverEntry> entries_;
};

}  // namespace tern::engine
