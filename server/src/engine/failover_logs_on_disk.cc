#include "engine/failover_logs_on_disk.h"

#include <spdlog/spdlog.h>

#include <string>
#include <vector>

namespace tern::engine {
namespace {

constexpr std::string_view kShutdownMark = "shutdown";
constexpr std::string_view kClean = "clean";
constexpr std::string_view kRunning = "running";

std::string log_name(uint16_t vbucket) { return "failover/" + std::to_string(vbucket); }

}  // namespace

bool restore_failover_logs(storage::Store& store, std::span<VBucket> vbuckets) {
  const std::optional<std::string> mark = store.read_meta(kShutdownMark);
  const bool clean = !mark || *mark == kClean;
  size_t restored = 0;
  for (VBucket& vbucket : vbuckets) {
    if (const std::optional<std::string> stored = store.read_meta(log_name(vbucket.id()))) {
      std::optional<FailoverLog> log = FailoverLog::decode(*stored);
      if (!log) {
        throw storage::StoreError("corrupt store: the failover log of vbucket " +
                                  std::to_string(vbucket.id()));
      }
      vbucket.restore_failover_log(std::move(*log));
      ++restored;
    }
    if (!clean) vbucket.add_failover_entry(new_failover_uuid());
  }
  if (!clean) {
    spdlog::warn("warmup: the last run did not shut down cleanly: every vbucket starts a new "
                 "history (failover log entry) at its persisted seqno; {} logs restored",
                 restored);
  }
  save_failover_logs(store, vbuckets, /*clean=*/false);
  return clean;
}

void save_failover_logs(storage::Store& store, std::span<const VBucket> vbuckets, bool clean) {
  std::vector<std::string> names;
  std::vector<std::string> logs;
  names.reserve(vbuckets.size());
  logs.reserve(vbuckets.size());
  std::vector<storage::MetaEntry> entries;
  entries.reserve(vbuckets.size() + 1);
  for (const VBucket& vbucket : vbuckets) {
    names.push_back(log_name(vbucket.id()));
    logs.push_back(vbucket.failover_log().encode());
    entries.push_back({names.back(), logs.back()});
  }
  entries.push_back({kShutdownMark, clean ? kClean : kRunning});
  store.write_meta(entries);
}

void save_failover_log(storage::Store& store, const VBucket& vbucket) {
  const std::string name = log_name(vbucket.id());
  const std::string log = vbucket.failover_log().encode();
  const storage::MetaEntry entry{name, log};
  store.write_meta({&entry, 1});
}

}  // namespace tern::engine
