// Requests that meet an evicted value, through the dispatcher against a real persistent
// bucket (RocksDB in a temporary directory, its tasks on a ManualExecutor): each command that
// needs a value parks, the background fetch reads it back, and the request runs again and
// answers as it would have; a value that keeps being evicted ends in Etmpfail; STAT counts
// the fetches. Under full eviction the fetch reads the key from the vbucket it is filed under.
#include "commands/background_fetch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cluster/vbucket_of.h"
#include "commands/dispatcher_harness.h"
#include "commands/persistent_bucket_harness.h"
#include "engine/bg_fetcher.h"
#include "engine/bucket.h"
#include "engine/paging_hooks.h"
#include "engine/persistence_hooks.h"
#include "protocol/opcode.h"
#include "xattr/blob.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using testing::be16;
using testing::be32;
using testing::Bytes;
using testing::Connection;
using testing::expect_error;
using testing::Request;
using testing::Response;

constexpr uint8_t kXattrDatatype = 0x04;

// A value with an XATTR section holding one system attribute, then `body`.
std::string with_system_xattr(const std::string& body) {
  const xattr::Attribute attributes[] = {{"_sys", R"({"n":1})"}};
  std::string value;
  xattr::append_section(attributes, value);
  return value + body;
}

class BackgroundFetchTest : public testing::PersistentBucketTest {
 protected:
  // Writes `documents` (key, value; "x" with a system attribute, straight into the engine:
  // clients may not send XATTR sections), persists them and evicts every value.
  void store_and_evict(Connection& c, const std::map<std::string, std::string>& documents) {
    for (const auto& [key, value] : documents) {
      if (key == "x") {
        ASSERT_EQ(bucket()
                      .documents()
                      .store(engine::StoreMode::Set, key, with_system_xattr(value), 0, 0,
                             kXattrDatatype, 0, {.vbucket = bucket().vbucket(0)})
                      .status,
                  engine::Status::Success);
      } else {
        ASSERT_EQ(c.set(key, value).status, Status::Success);
      }
    }
    flush();
    evict_all();
  }

  void evict_all() {
    bucket().documents().paging().evict(std::numeric_limits<size_t>::max());
    for (const auto& [key, value] : stored_)
      ASSERT_TRUE(bucket().documents().persistence().evicted(key).has_value()) << key;
  }

  uint64_t fetched() { return bucket().persistence()->bg_fetcher().fetched(); }

  std::map<std::string, std::string> stored_;
};

// Every command that needs the value: parked at first, answered as it would be once the
// fetch has run.
TEST_F(BackgroundFetchTest, EachCommandThatNeedsAnEvictedValueWaitsForTheFetch) {
  struct Case {
    const char* name;
    Request request;
    Status status;
    std::string value;  // of the answer
  };
  std::string counter(8, '\0');
  counter[7] = 111;  // "100" + 11
  const Bytes path_a = testing::concat({be16(1), Bytes{0x00}});
  std::vector<Case> cases = {
      {"get", {.opcode = Opcode::Get, .key = "k"}, Status::Success, "100"},
      {"getk", {.opcode = Opcode::GetK, .key = "k"}, Status::Success, "100"},
      {"getq", {.opcode = Opcode::GetQ, .key = "k"}, Status::Success, "100"},
      {"gat", {.opcode = Opcode::Gat, .key = "k", .extras = be32(0)}, Status::Success, "100"},
      {"get_locked", {.opcode = Opcode::GetLocked, .key = "k"}, Status::Success, "100"},
      {"append", {.opcode = Opcode::Append, .key = "k", .value = "0"}, Status::Success, ""},
      {"increment",
       {.opcode = Opcode::Increment, .key = "k", .extras = testing::arithmetic_extras(11, 0, 0)},
       Status::Success, counter},
      {"subdoc lookup",
       {.opcode = Opcode::SubdocGet, .key = "doc", .value = "a", .extras = path_a},
       Status::Success, "1"},
      {"set keeping attributes",
       {.opcode = Opcode::Set, .key = "x", .value = "new", .extras = testing::storage_extras(0, 0)},
       Status::Success, ""},
      {"delete keeping attributes", {.opcode = Opcode::Delete, .key = "x"}, Status::Success, ""},
      {"subdoc mutation",
       {.opcode = Opcode::SubdocDictUpsert, .key = "doc", .value = "a2", .extras = path_a},
       Status::Success, ""},
  };
  open_warm();
  Connection& c = connect();
  for (Case& test : cases) {
    SCOPED_TRACE(test.name);
    stored_ = {{"k", "100"}, {"doc", R"({"a":1})"}, {"x", "old"}};
    store_and_evict(c, stored_);
    const uint64_t fetched_before = fetched();
    ASSERT_TRUE(c.run(test.request).empty());
    EXPECT_EQ(c.last_outcome(), Outcome::WouldBlock);
    EXPECT_EQ(c.parker().waiting(), 1u);
    EXPECT_TRUE(c.parker().finish_ready().empty());  // not before the fetch

    flush();  // the fetch
    const std::vector<Response> answers = c.parker().finish_ready();
    ASSERT_EQ(answers.size(), 1u);
    EXPECT_EQ(answers[0].status, test.status) << answers[0].value;
    EXPECT_EQ(answers[0].value, test.value);
    EXPECT_EQ(answers[0].opcode, static_cast<uint8_t>(test.request.opcode));
    EXPECT_EQ(answers[0].opaque, testing::kOpaque);
    EXPECT_NE(answers[0].cas, 0u);
    EXPECT_EQ(c.last_outcome(), Outcome::Continue);
    EXPECT_EQ(c.parker().waiting(), 0u);
    EXPECT_EQ(fetched() - fetched_before, 1u);
    if (test.request.opcode == Opcode::Set) {
      EXPECT_EQ(c.get("x").value, "new");
    } else if (test.request.opcode == Opcode::Delete) {
      EXPECT_EQ(c.get("x").status, Status::KeyEnoent);
    }
    if (test.request.opcode == Opcode::GetLocked) {
      ASSERT_EQ(c.one({.opcode = Opcode::UnlockKey, .key = "k", .cas = answers[0].cas}).status,
                Status::Success);
    }
  }
  EXPECT_EQ(c.get("doc").value, R"({"a":2})");  // the last case's
}

TEST_F(BackgroundFetchTest, AMissedQuietReadThatRanAgainStaysSilent) {
  open_warm();
  Connection& c = connect();
  stored_ = {{"k", "v"}};
  store_and_evict(c, stored_);
  ASSERT_TRUE(c.run({.opcode = Opcode::GetQ, .key = "k"}).empty());
  // Removed while the fetch is queued: the request runs again and misses, silently.
  ASSERT_EQ(c.one({.opcode = Opcode::Delete, .key = "k"}).status, Status::Success);
  flush();
  EXPECT_TRUE(c.parker().finish_ready().empty());
  EXPECT_EQ(c.parker().waiting(), 0u);
}

// The pager evicts the value again before the request runs again, every time: the request
// fetches 1 + kMaxFetchRetries times, then gives up.
TEST_F(BackgroundFetchTest, AValueEvictedAgainAfterEveryFetchEndsInEtmpfail) {
  open_warm();
  Connection& c = connect();
  stored_ = {{"k", "v"}};
  store_and_evict(c, stored_);
  ASSERT_TRUE(c.run({.opcode = Opcode::Get, .key = "k"}).empty());
  for (uint32_t fetch = 1; fetch <= kMaxFetchRetries; ++fetch) {
    SCOPED_TRACE(fetch);
    flush();
    evict_all();
    EXPECT_TRUE(c.parker().finish_ready().empty());
    EXPECT_EQ(c.last_outcome(), Outcome::WouldBlock);
    EXPECT_EQ(c.parker().waiting(), 1u);
  }
  flush();
  evict_all();
  const std::vector<Response> answers = c.parker().finish_ready();
  ASSERT_EQ(answers.size(), 1u);
  expect_error(answers[0], Status::Etmpfail);
  EXPECT_EQ(fetched(), 1 + kMaxFetchRetries);
  // Nothing was lost: a read now fetches again and finds it.
  ASSERT_TRUE(c.run({.opcode = Opcode::Get, .key = "k"}).empty());
  flush();
  const std::vector<Response> later = c.parker().finish_ready();
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].value, "v");
}

TEST_F(BackgroundFetchTest, WhatNeedsOnlyMetadataAnswersAtOnce) {
  open_warm();
  Connection& c = connect();
  stored_ = {{"k", "v"}};
  store_and_evict(c, stored_);
  EXPECT_EQ(c.one({.opcode = Opcode::GetMeta, .key = "k"}).status, Status::Success);
  EXPECT_EQ(c.set("k", "w").status, Status::Success);
  EXPECT_EQ(c.get("k").value, "w");
  EXPECT_EQ(fetched(), 0u);
}

TEST_F(BackgroundFetchTest, StatCountsTheFetches) {
  open_warm();
  Connection& c = connect();
  stored_ = {{"a", "1"}, {"b", "2"}};
  store_and_evict(c, stored_);
  ASSERT_TRUE(c.run({.opcode = Opcode::Get, .key = "a"}).empty());
  ASSERT_TRUE(c.run({.opcode = Opcode::Get, .key = "b"}).empty());
  flush();
  ASSERT_EQ(c.parker().finish_ready().size(), 2u);
  std::map<std::string, std::string> stats;
  for (const Response& r : c.run({.opcode = Opcode::Stat})) stats[r.key] = r.value;
  EXPECT_EQ(stats["ep_bg_fetched"], "2");
}

// A key with nothing in memory (full eviction) is read from the vbucket the bucket filed it
// under, the one its key hashes to, not the request's: memcached clients send every key on
// vbucket 0, and a read of vbucket 0 would find nothing there and answer a miss.
TEST_F(BackgroundFetchTest, AKeyOnDiskOnlyIsFetchedFromTheVBucketItIsFiledUnder) {
  const std::string key = "k";
  ASSERT_NE(cluster::vbucket_of(key, cluster::kVBucketCount), 0)
      << "the key must be filed under another vbucket than the request's";
  engine::Config config;
  config.full_eviction = true;
  open_warm(config);
  Connection& c = connect();
  // Sent on vbucket 0, as every request here; the dispatcher files it under the key's own.
  ASSERT_EQ(c.set(key, "v").status, Status::Success);
  flush();  // the flusher
  bucket().documents().paging().evict(std::numeric_limits<size_t>::max());
  ASSERT_TRUE(bucket().documents().persistence().on_disk_only(key));

  ASSERT_TRUE(c.run({.opcode = Opcode::Get, .key = key, .vbucket = 0}).empty());
  EXPECT_EQ(c.last_outcome(), Outcome::WouldBlock);
  flush();  // the fetch
  const std::vector<Response> answers = c.parker().finish_ready();
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].status, Status::Success);
  EXPECT_EQ(answers[0].value, "v");
}

}  // namespace
}  // namespace tern::commands
