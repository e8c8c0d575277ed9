// Range scans through the dispatcher against a real bucket (ephemeral, persistent, and
// persistent with full eviction; RocksDB in a temporary directory, tasks on a ManualExecutor
// run by hand): what a create answers for each kind of request, the keys and documents the
// continues hand out and how their limits split them, sampling, the snapshot requirements,
// cancel, the per-bucket limit and the cancellation of idle scans.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "cluster/vbucket_of.h"
#include "commands/dispatcher_harness.h"
#include "commands/persistent_bucket_harness.h"
#include "common/base64.h"
#include "engine/bucket.h"
#include "engine/paging_hooks.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using testing::Bytes;
using testing::Connection;
using testing::Request;
using testing::Response;

constexpr uint16_t kVBucket = 700;

std::string b64(std::string_view raw) {
  std::string out;
  base64_append(raw, out);
  return out;
}

// `count` keys "<prefix>NNNN" that hash to kVBucket, in key order.
std::vector<std::string> keys_in_vbucket(const std::string& prefix, size_t count) {
  std::vector<std::string> keys;
  for (int i = 0; keys.size() < count; ++i) {
    std::string key = prefix + std::to_string(10000 + i);
    if (cluster::vbucket_of(key, cluster::kVBucketCount) == kVBucket) keys.push_back(key);
  }
  return keys;
}

// A continue's answer, decoded.
struct Continued {
  std::vector<std::string> keys;
  std::vector<std::string> values;  // documents only
  std::vector<uint64_t> cas;
  Status status = Status::Success;  // the last frame's
  size_t frames = 0;
};

uint32_t leb128(std::string_view& in) {
  uint32_t value = 0;
  const size_t used = protocol::leb128_decode(
      std::span(reinterpret_cast<const uint8_t*>(in.data()), in.size()), value);
  EXPECT_GT(used, 0u);
  in.remove_prefix(used);
  return value;
}

std::string take(std::string_view& in, size_t n) {
  std::string out(in.substr(0, n));
  in.remove_prefix(std::min(n, in.size()));
  return out;
}

class RangeScanTest : public testing::PersistentBucketTest,
                      public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    const std::string kind = GetParam();
    if (kind == "ephemeral") {
      open(false);
    } else {
      open_warm({.full_eviction = kind == "full_eviction"});
    }
    node_->start_range_scans(executor_);
    c_ = &connect();
  }

  bool persistent() const { return std::string(GetParam()) != "ephemeral"; }

  // Stores `key` in the vbucket it hashes to, as an SDK does.
  uint64_t store(const std::string& key, const std::string& value, uint32_t flags = 0) {
    const Response stored = c_->one({.opcode = Opcode::Set,
                                     .key = key,
                                     .value = value,
                                     .extras = testing::storage_extras(flags, 0),
                                     .datatype = protocol::datatype::kJson,
                                     .vbucket = cluster::vbucket_of(key, cluster::kVBucketCount)});
    EXPECT_EQ(stored.status, Status::Success) << key;
    return stored.cas;
  }

  // Sends a request that parks, runs the executor until its answer is ready, and returns
  // every frame it answered.
  std::vector<Response> parked(const Request& request) {
    std::vector<Response> now = c_->run(request);
    if (!now.empty()) return now;
    for (int i = 0; i < 100 && c_->parker().waiting() > 0; ++i) {
      executor_.run_ready();
      std::vector<Response> answers = c_->parker().finish_ready();
      if (!answers.empty()) return answers;
    }
    ADD_FAILURE() << "no answer";
    return {};
  }

  Request create_request(const std::string& json, uint16_t vbucket = kVBucket) {
    return {.opcode = Opcode::RangeScanCreate,
            .value = json,
            .datatype = protocol::datatype::kJson,
            .vbucket = vbucket};
  }

  Response create(const std::string& json, uint16_t vbucket = kVBucket) {
    const std::vector<Response> answers = parked(create_request(json, vbucket));
    EXPECT_EQ(answers.size(), 1u);
    return answers.empty() ? Response{} : answers.front();
  }

  std::string range_json(const std::string& start, const std::string& end, bool key_only,
                         const std::string& extra = "") {
    return R"({"key_only":)" + std::string(key_only ? "true" : "false") + R"(,"range":{"start":")" +
           b64(start) + R"(","end":")" + b64(end) + R"("})" + extra + "}";
  }

  Request continue_request(const std::string& id, uint32_t items = 0, uint32_t bytes = 0,
                           uint16_t vbucket = kVBucket) {
    Bytes extras(id.begin(), id.end());
    for (uint32_t limit : {items, 0u, bytes}) {
      const Bytes word = testing::be32(limit);
      extras.insert(extras.end(), word.begin(), word.end());
    }
    return {.opcode = Opcode::RangeScanContinue, .extras = extras, .vbucket = vbucket};
  }

  Continued continue_scan(const std::string& id, uint32_t items = 0, uint32_t bytes = 0,
                          uint16_t vbucket = kVBucket) {
    Continued out;
    const std::vector<Response> frames = parked(continue_request(id, items, bytes, vbucket));
    out.frames = frames.size();
    for (const Response& frame : frames) {
      out.status = frame.status;
      if (frame.status != Status::Success && frame.status != Status::RangeScanMore &&
          frame.status != Status::RangeScanComplete) {
        continue;
      }
      EXPECT_EQ(frame.extras.size(), 4u);
      const bool documents = frame.extras.size() == 4 && frame.extras[3] == 1;
      std::string_view in = frame.value;
      while (!in.empty()) {
        if (documents) {
          const std::string meta = take(in, 25);
          out.cas.push_back(
              protocol::load_be64(reinterpret_cast<const uint8_t*>(meta.data()) + 16));
          out.keys.push_back(take(in, leb128(in)));
          out.values.push_back(take(in, leb128(in)));
        } else {
          out.keys.push_back(take(in, leb128(in)));
        }
      }
    }
    return out;
  }

  // Every key the scan `id` hands out, continuing until it completes.
  std::vector<std::string> drain(const std::string& id, uint32_t items = 0,
                                 uint16_t vbucket = kVBucket) {
    std::vector<std::string> keys;
    for (int i = 0; i < 1000; ++i) {
      const Continued part = continue_scan(id, items, 0, vbucket);
      keys.insert(keys.end(), part.keys.begin(), part.keys.end());
      if (part.status != Status::RangeScanMore) {
        EXPECT_EQ(part.status, Status::RangeScanComplete);
        break;
      }
    }
    return keys;
  }

  Connection* c_ = nullptr;
};

INSTANTIATE_TEST_SUITE_P(Buckets, RangeScanTest,
                         ::testing::Values("ephemeral", "persistent", "full_eviction"),
                         [](const auto& info) { return std::string(info.param); });

TEST_P(RangeScanTest, ARangeComesInKeyOrderAsKeysOrAsDocuments) {
  const std::vector<std::string> keys = keys_in_vbucket("user-", 6);
  for (const std::string& key : keys) store(key, R"({"k":")" + key + R"("})", 0x02000000);
  store("other-key", "{}");  // elsewhere, and outside the range
  if (persistent()) flush();

  Response created = create(range_json(keys[1], keys[4], true));
  ASSERT_EQ(created.status, Status::Success);
  ASSERT_EQ(created.value.size(), 16u);
  const Continued ids = continue_scan(created.value);
  EXPECT_EQ(ids.status, Status::RangeScanComplete);
  EXPECT_EQ(ids.keys, std::vector<std::string>(keys.begin() + 1, keys.begin() + 5));
  // A completed scan is gone.
  EXPECT_EQ(c_->one(continue_request(created.value)).status, Status::KeyEnoent);

  // Exclusive bounds, whole documents with their metadata.
  created = create(R"({"range":{"excl_start":")" + b64(keys[1]) + R"(","excl_end":")" +
                   b64(keys[4]) + R"("}})");
  ASSERT_EQ(created.status, Status::Success);
  const Continued documents = continue_scan(created.value);
  EXPECT_EQ(documents.keys, (std::vector<std::string>{keys[2], keys[3]}));
  EXPECT_EQ(documents.values, (std::vector<std::string>{R"({"k":")" + keys[2] + R"("})",
                                                        R"({"k":")" + keys[3] + R"("})"}));

  // A range with nothing in it: the SDKs take KeyEnoent as an empty vbucket.
  EXPECT_EQ(create(range_json("zzz", "zzzz", true)).status, Status::KeyEnoent);
}

// memcached clients send every key on vbucket 0. An ephemeral bucket files the document under
// the vbucket the request named, as Couchbase does, so vbucket 0's scan holds it, though the
// engine keeps it with its key's vbucket; a persistent bucket files it under its key's vbucket.
TEST_P(RangeScanTest, AKeySentOnAnotherVBucketIsScannedWhereItIsFiled) {
  const std::string key = keys_in_vbucket("plain", 1).front();  // its CRC names kVBucket
  ASSERT_EQ(c_->one({.opcode = Opcode::Set,
                     .key = key,
                     .value = "{}",
                     .extras = testing::storage_extras(0, 0),
                     .vbucket = 0})
                .status,
            Status::Success);
  const std::vector<std::string> sdk_keys = keys_in_vbucket("sdk", 2);
  for (const std::string& sdk_key : sdk_keys) store(sdk_key, "{}");
  if (persistent()) flush();

  const uint16_t filed = persistent() ? kVBucket : 0;
  const Response in_filed = create(range_json("", "\xff", true), filed);
  ASSERT_EQ(in_filed.status, Status::Success);
  std::vector<std::string> expected{key};
  if (filed == kVBucket) expected.insert(expected.end(), sdk_keys.begin(), sdk_keys.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(drain(in_filed.value, 10, filed), expected);
  if (!persistent()) {
    // Its key's vbucket holds the SDK's keys alone.
    const Response in_crc = create(range_json("", "\xff", true), kVBucket);
    ASSERT_EQ(in_crc.status, Status::Success);
    EXPECT_EQ(drain(in_crc.value, 10), sdk_keys);
  }
}

TEST_P(RangeScanTest, ContinueLimitsSplitAScanAndEachContinueGivesAtLeastOneItem) {
  const std::vector<std::string> keys = keys_in_vbucket("k", 7);
  for (const std::string& key : keys) store(key, R"({"v":1})");
  const Response created = create(range_json("", "\xff", true));
  ASSERT_EQ(created.status, Status::Success);
  Continued part = continue_scan(created.value, 3);
  EXPECT_EQ(part.status, Status::RangeScanMore);
  EXPECT_EQ(part.keys, std::vector<std::string>(keys.begin(), keys.begin() + 3));
  part = continue_scan(created.value, 0, 1);  // one byte: still one item
  EXPECT_EQ(part.status, Status::RangeScanMore);
  EXPECT_EQ(part.keys, std::vector<std::string>{keys[3]});
  EXPECT_EQ(drain(created.value, 2), std::vector<std::string>(keys.begin() + 4, keys.end()));
}

TEST_P(RangeScanTest, ADocumentChangedAfterTheCreateIsSeenNewOrNotAtAll) {
  const std::vector<std::string> keys = keys_in_vbucket("doc", 4);
  for (const std::string& key : keys) store(key, R"({"v":1})");
  if (persistent()) flush();
  const Response created = create(range_json("", "\xff", false));
  ASSERT_EQ(created.status, Status::Success);
  const uint64_t changed_cas = store(keys[1], R"({"v":2})");
  ASSERT_EQ(c_->one({.opcode = Opcode::Delete,
                     .key = keys[2],
                     .vbucket = cluster::vbucket_of(keys[2], cluster::kVBucketCount)})
                .status,
            Status::Success);
  store(keys_in_vbucket("doc", 5).back(), R"({"new":1})");
  const Continued documents = continue_scan(created.value);
  EXPECT_EQ(documents.keys, (std::vector<std::string>{keys[0], keys[1], keys[3]}));
  ASSERT_EQ(documents.values.size(), 3u);
  EXPECT_EQ(documents.values[1], R"({"v":2})");
  EXPECT_EQ(documents.cas[1], changed_cas);
}

TEST_P(RangeScanTest, SamplingDrawsTheSameSampleForTheSameSeed) {
  const std::vector<std::string> keys = keys_in_vbucket("s", 20);
  for (const std::string& key : keys) store(key, "{}");
  const auto sample = [&](int samples, int seed) {
    const Response created =
        create(R"({"key_only":true,"sampling":{"samples":)" + std::to_string(samples) +
               R"(,"seed":)" + std::to_string(seed) + "}}");
    EXPECT_EQ(created.status, Status::Success);
    return drain(created.value);
  };
  const std::vector<std::string> first = sample(5, 7);
  EXPECT_EQ(first.size(), 5u);
  EXPECT_TRUE(std::is_sorted(first.begin(), first.end()));
  EXPECT_EQ(sample(5, 7), first);
  EXPECT_NE(sample(5, 8), first);
  EXPECT_EQ(sample(50, 7), keys) << "more samples than keys: every key";
}

TEST_P(RangeScanTest, ACreateIsCheckedBeforeItRuns) {
  store(keys_in_vbucket("c", 1).front(), "{}");
  // Not a configuration: Einval with the reason.
  const Response invalid = c_->one(create_request(R"({"range":{"start":"!!"}})"));
  EXPECT_EQ(invalid.status, Status::Einval);
  EXPECT_NE(invalid.value.find("base64"), std::string::npos) << invalid.value;
  EXPECT_EQ(c_->one(create_request(R"({"collection":"8","sampling":{"samples":1}})")).status,
            Status::UnknownCollection);
  bucket().vbucket(kVBucket)->set_state(cluster::VBucketState::Replica, 0);
  EXPECT_EQ(c_->one(create_request(R"({"sampling":{"samples":1}})")).status, Status::NotMyVbucket);
  bucket().vbucket(kVBucket)->set_state(cluster::VBucketState::Active, 77);
  EXPECT_EQ(
      c_
          ->one(create_request(
              R"({"sampling":{"samples":1},"snapshot_requirements":{"vb_uuid":"78","seqno":1}})"))
          .status,
      Status::VbUuidNotEqual);
}

TEST_P(RangeScanTest, ACreateWaitsForItsSeqnoUpToItsTimeout) {
  const std::string key = keys_in_vbucket("w", 1).front();
  store(key, "{}");
  const uint64_t uuid = bucket().vbucket(kVBucket)->uuid();
  const uint64_t high = bucket().vbucket(kVBucket)->high_seqno();
  const auto requirements = [&](uint64_t seqno, bool exists, int timeout_ms) {
    return R"({"sampling":{"samples":5},"snapshot_requirements":{"vb_uuid":")" +
           std::to_string(uuid) + R"(","seqno":)" + std::to_string(seqno) + R"(,"seqno_exists":)" +
           (exists ? "true" : "false") + R"(,"timeout_ms":)" + std::to_string(timeout_ms) + "}}";
  };
  EXPECT_EQ(create(requirements(high, true, 0)).status, Status::Success);
  // A seqno no document carries any more.
  store(key, R"({"v":2})");
  EXPECT_EQ(create(requirements(high, true, 0)).status, Status::NotStored);
  // A seqno not reached: waits, then gives up.
  EXPECT_TRUE(c_->run(create_request(requirements(high + 5, false, 1000))).empty());
  executor_.run_ready();
  EXPECT_TRUE(c_->parker().finish_ready().empty());
  clock_.advance_ms(1001);
  executor_.run_ready();
  const std::vector<Response> gave_up = c_->parker().finish_ready();
  ASSERT_EQ(gave_up.size(), 1u);
  EXPECT_EQ(gave_up[0].status, Status::Etmpfail);
  // Reached while it waits.
  EXPECT_TRUE(c_->run(create_request(requirements(high + 2, false, 1000))).empty());
  executor_.run_ready();
  store(key, R"({"v":3})");
  clock_.advance_ms(10);
  executor_.run_ready();
  const std::vector<Response> reached = c_->parker().finish_ready();
  ASSERT_EQ(reached.size(), 1u);
  EXPECT_EQ(reached[0].status, Status::Success);
}

TEST_P(RangeScanTest, CancelEndsAScanAndIdleScansAreCancelled) {
  for (const std::string& key : keys_in_vbucket("x", 3)) store(key, "{}");
  Response created = create(range_json("", "\xff", true));
  ASSERT_EQ(created.status, Status::Success);
  const Request cancel{.opcode = Opcode::RangeScanCancel,
                       .extras = Bytes(created.value.begin(), created.value.end()),
                       .vbucket = kVBucket};
  EXPECT_EQ(c_->one(cancel).status, Status::Success);
  EXPECT_EQ(c_->one(cancel).status, Status::KeyEnoent);
  EXPECT_EQ(c_->one(continue_request(created.value)).status, Status::KeyEnoent);

  // One continue at a time.
  created = create(range_json("", "\xff", true));
  EXPECT_TRUE(c_->run(continue_request(created.value, 1)).empty());
  EXPECT_EQ(c_->one(continue_request(created.value, 1)).status, Status::Ebusy);
  executor_.run_ready();
  EXPECT_EQ(c_->parker().finish_ready().back().status, Status::RangeScanMore);

  // Left alone past the idle limit, the scan is cancelled by the reaper.
  EXPECT_EQ(node_->range_scans().size(), 1u);
  clock_.advance_ms(node_->settings().range_scans.idle_ms + 60'000);
  executor_.run_ready();
  EXPECT_EQ(node_->range_scans().size(), 0u);
  EXPECT_EQ(c_->one(continue_request(created.value)).status, Status::KeyEnoent);
}

TEST_P(RangeScanTest, ABucketHoldsAtMostItsLimitOfScans) {
  store(keys_in_vbucket("m", 1).front(), "{}");
  const size_t limit = node_->settings().range_scans.max_per_bucket;
  for (size_t i = 0; i < limit; ++i) {
    ASSERT_EQ(create(R"({"key_only":true,"sampling":{"samples":1}})").status, Status::Success) << i;
  }
  EXPECT_EQ(c_->one(create_request(R"({"key_only":true,"sampling":{"samples":1}})")).status,
            Status::Etmpfail);
}

TEST_P(RangeScanTest, EvictedDocumentsAreReadFromDisk) {
  if (!persistent()) GTEST_SKIP() << "an ephemeral bucket evicts nothing it can read back";
  const std::vector<std::string> keys = keys_in_vbucket("e", 5);
  for (const std::string& key : keys) store(key, R"({"on":"disk"})");
  flush();
  bucket().documents().paging().evict(std::numeric_limits<size_t>::max());
  const Response created = create(range_json("", "\xff", false));
  ASSERT_EQ(created.status, Status::Success);
  const Continued documents = continue_scan(created.value);
  EXPECT_EQ(documents.keys, keys);
  EXPECT_EQ(documents.values, std::vector<std::string>(keys.size(), R"({"on":"disk"})"));
}

}  // namespace
}  // namespace tern::commands
