// Range scans through a real ternd: a scan of every vbucket while another client rewrites and
// removes the documents, in a couchbase bucket under full eviction whose quota is far below
// its data (so the scan reads evicted documents from disk); and a kill -9 in the middle of a
// scan, after which the restarted server knows nothing of the scan and scans everything
// that was persisted.

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "bulk_requests.h"
#include "cluster/vbucket_of.h"
#include "couchbase_session.h"
#include "seqnos.h"
#include "storage/temp_dir.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

constexpr uint16_t kVBuckets = 1024;
constexpr Status kMore = Status::RangeScanMore;
constexpr Status kComplete = Status::RangeScanComplete;

std::string json_of(const std::string& key, int version) {
  return R"({"key":")" + key + R"(","v":)" + std::to_string(version) + R"(,"pad":")" +
         std::string(900, 'p') + R"("})";
}

// A bucket "b" of `quota_mb` under full eviction, open to anonymous clients.
std::vector<std::string> server_args(storage::TempDir& scratch, int quota_mb) {
  const std::string config = scratch.sub("t.toml");
  std::ofstream(config) << "[server]\nanonymous_bucket = \"b\"\n[[bucket]]\nname = \"b\"\n"
                           "type = \"couchbase\"\neviction_policy = \"full\"\nmemory_quota_mb = "
                        << quota_mb << "\n";
  return {"--config", config, "--data-dir", scratch.sub("data")};
}

Request create(uint16_t vbucket) {
  Request r = simple(Opcode::RangeScanCreate, "", R"({"range":{"start":"","end":"/w=="}})");
  r.datatype = 0x01;
  r.vbucket = vbucket;
  return r;
}

Request continue_scan(const std::string& id, uint16_t vbucket, uint32_t items) {
  Request r = simple(Opcode::RangeScanContinue);
  r.extras = id + be32(items) + be32(0) + be32(0);
  r.vbucket = vbucket;
  return r;
}

uint32_t leb128(const std::string& in, size_t& at) {
  uint32_t value = 0;
  for (int shift = 0; at < in.size(); shift += 7) {
    const auto byte = static_cast<uint8_t>(in[at++]);
    value |= uint32_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) break;
  }
  return value;
}

// The documents one continue's frames carry (key, value), appended to `out`; the last
// frame's status.
Status read_continue(CouchbaseSession& session,
                     std::vector<std::pair<std::string, std::string>>& out) {
  for (;;) {
    const std::optional<Response> frame = session.receive();
    if (!frame) return Status::Einternal;
    if (frame->status != Status::Success && frame->status != kMore && frame->status != kComplete) {
      return frame->status;
    }
    EXPECT_EQ(frame->extras, be32(1));
    for (size_t at = 0; at + 25 <= frame->value.size();) {
      at += 25;
      const uint32_t key_length = leb128(frame->value, at);
      std::string key = frame->value.substr(at, key_length);
      at += key_length;
      const uint32_t value_length = leb128(frame->value, at);
      out.emplace_back(std::move(key), frame->value.substr(at, value_length));
      at += value_length;
    }
    if (frame->status != Status::Success) return frame->status;
  }
}

// Scans every vbucket, `items` per continue; returns the documents in the order they came.
std::vector<std::pair<std::string, std::string>> scan_all(CouchbaseSession& session,
                                                          uint32_t items) {
  std::vector<std::pair<std::string, std::string>> documents;
  for (uint16_t vb = 0; vb < kVBuckets; ++vb) {
    const Response created = session.call(create(vb));
    if (created.status == Status::KeyEnoent) continue;  // nothing in this vbucket
    EXPECT_EQ(created.status, Status::Success) << "vbucket " << vb;
    if (created.status != Status::Success) continue;
    Status last = kMore;
    while (last == kMore) {
      EXPECT_TRUE(session.send(continue_scan(created.value, vb, items)));
      last = read_continue(session, documents);
    }
    EXPECT_EQ(last, kComplete) << "vbucket " << vb;
  }
  return documents;
}

// Stores `keys` (version 1) and waits until every vbucket they went to has persisted them.
void store_persisted(CouchbaseSession& session, const std::vector<std::string>& keys) {
  std::map<uint16_t, uint64_t> highest;
  for (const std::string& key : keys) {
    const Response stored = session.call(store(Opcode::Set, key, json_of(key, 1), 0, 0));
    ASSERT_EQ(stored.status, Status::Success) << key;
    uint64_t& seqno = highest[filed_vbucket(key)];
    seqno = std::max(seqno, token_seqno(stored).value_or(0));
  }
  for (const auto& [vbucket, seqno] : highest) {
    for (int i = 0; i < 3000 && persisted_seqno(session, vbucket).value_or(0) < seqno; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GE(persisted_seqno(session, vbucket).value_or(0), seqno) << "vbucket " << vbucket;
  }
}

std::vector<std::string> keys_named(const std::string& prefix, int count) {
  std::vector<std::string> keys;
  for (int i = 0; i < count; ++i) keys.push_back(prefix + std::to_string(i));
  return keys;
}

TEST(RangeScanTest, AScanUnderWritesAndEvictionSeesEachDocumentOnceAndWhole) {
  storage::TempDir scratch;
  TerndProcess server(server_args(scratch, 4));  // 4 MiB for about 6 MB of documents
  CouchbaseSession session(server.port());
  session.hello({kXerror, kJson, kMutationSeqno});
  ASSERT_EQ(call_when_warm(session, simple(Opcode::Noop)).status, Status::Success);
  const std::vector<std::string> keys = keys_named("doc-", 6000);
  store_persisted(session, keys);
  // The quota holds a part of them: the rest are on disk only, and the scan reads them there.
  ASSERT_GT(stat_number(session.client().stats(), "ep_num_value_ejects"), 1000u);

  // Another client rewrites and removes documents for as long as the scan runs.
  std::atomic<bool> scanning{true};
  std::atomic<int> writes{0};
  std::thread writer([&] {
    CouchbaseSession other(server.port());
    other.hello({kXerror, kJson});
    for (int i = 0; scanning.load(); ++i) {
      const std::string& key = keys[(i * 7919) % keys.size()];
      const Request request =
          i % 5 == 0 ? simple(Opcode::Delete, key) : store(Opcode::Set, key, json_of(key, 2), 0, 0);
      const Status status = other.call(request).status;
      EXPECT_TRUE(status == Status::Success || status == Status::KeyEnoent ||
                  status == Status::Etmpfail)
          << static_cast<int>(status);
      writes.fetch_add(1);
    }
  });
  const std::vector<std::pair<std::string, std::string>> documents = scan_all(session, 100);
  scanning.store(false);
  writer.join();
  EXPECT_GT(writes.load(), 100) << "the writes overlapped the scan";

  const std::set<std::string> known(keys.begin(), keys.end());
  std::set<std::string> seen;
  for (const auto& [key, value] : documents) {
    EXPECT_TRUE(known.contains(key)) << key;
    EXPECT_TRUE(seen.insert(key).second) << "twice: " << key;
    // Whole: one of the values written for that key, never part of one.
    EXPECT_TRUE(value == json_of(key, 1) || value == json_of(key, 2)) << key << ": " << value;
  }
  // Only removed documents may be missing, and the writer removes one write in five.
  EXPECT_GT(seen.size(), keys.size() / 2);
}

TEST(RangeScanTest, AKilledServerForgetsItsScansAndScansWhatItPersisted) {
  storage::TempDir scratch;
  const std::vector<std::string> args = server_args(scratch, 64);
  const std::vector<std::string> keys = keys_named("kept-", 2000);
  std::string id;
  uint16_t vbucket = 0;
  {
    TerndProcess server(args);
    CouchbaseSession session(server.port());
    session.hello({kXerror, kJson, kMutationSeqno});
    ASSERT_EQ(call_when_warm(session, simple(Opcode::Noop)).status, Status::Success);
    store_persisted(session, keys);
    // A scan begun and left in the middle.
    for (; vbucket < kVBuckets; ++vbucket) {
      const Response created = session.call(create(vbucket));
      if (created.status == Status::Success) {
        id = created.value;
        break;
      }
    }
    ASSERT_EQ(id.size(), 16u);
    std::vector<std::pair<std::string, std::string>> first;
    ASSERT_TRUE(session.send(continue_scan(id, vbucket, 1)));
    ASSERT_EQ(read_continue(session, first), kMore);
    ASSERT_EQ(first.size(), 1u);
    server.stop(SIGKILL);
  }
  TerndProcess again(args);
  CouchbaseSession session(again.port());
  session.hello({kXerror, kJson});
  ASSERT_EQ(call_when_warm(session, simple(Opcode::Noop)).status, Status::Success);
  EXPECT_EQ(session.call(continue_scan(id, vbucket, 1)).status, Status::KeyEnoent);
  std::set<std::string> seen;
  for (const auto& [key, value] : scan_all(session, 500)) {
    EXPECT_EQ(value, json_of(key, 1));
    seen.insert(key);
  }
  EXPECT_EQ(seen, std::set<std::string>(keys.begin(), keys.end()));
}

}  // namespace
}  // namespace tern::e2e
