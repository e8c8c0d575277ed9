// GET /metrics on a live ternd: several buckets (one persistent, one with collections), real
// traffic over the KV port, then the scrape. promtool accepts the text; the numbers are the
// traffic's; a bucket created over HTTP appears at the next scrape and a dropped one goes;
// only an administrator or a user granted a bucket may scrape.

#include <gtest/gtest.h>
#include <httplib.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "couchbase_session.h"
#include "metrics/promtool_check.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

constexpr const char* kConfig = R"toml(
[[bucket]]
name = "alpha"
type = "ephemeral"
memory_quota_mb = 64

[[bucket.scope]]
name = "app"
collections = ["users", "orders"]

[[bucket]]
name = "beta"
type = "couchbase"
memory_quota_mb = 64

[[bucket]]
name = "gamma"
type = "ephemeral"
memory_quota_mb = 32

[[user]]
name = "Administrator"
buckets = ["*"]
admin = true
password = "password"

[[user]]
name = "reader"
buckets = ["gamma"]
password = "secret"
)toml";

// Series ("name{labels}" as exposed) to value, and every series seen twice.
struct Scrape {
  std::map<std::string, double> values;
  std::set<std::string> duplicates;

  double at(const std::string& series) const {
    auto it = values.find(series);
    return it == values.end() ? -1 : it->second;
  }
};

Scrape parse(const std::string& text) {
  Scrape scrape;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    const std::string series = line.substr(0, space);
    if (!scrape.values.emplace(series, std::stod(line.substr(space + 1))).second) {
      scrape.duplicates.insert(series);
    }
  }
  return scrape;
}

class MetricsTest : public ::testing::Test {
 protected:
  MetricsTest()
      : config_(kConfig), server_(config_.args()), http_("127.0.0.1", server_.mgmt_port()) {
    http_.set_read_timeout(30);
  }

  // GET /metrics as `user` (none: without credentials).
  httplib::Result get_metrics(const std::string& user = kAdminUser,
                              const std::string& password = kAdminPassword) {
    httplib::Client client("127.0.0.1", server_.mgmt_port());
    client.set_read_timeout(30);
    if (!user.empty()) client.set_basic_auth(user, password);
    return client.Get("/metrics");
  }

  // The text of a scrape as the administrator, checked by promtool (when installed).
  Scrape scrape() {
    httplib::Result res = get_metrics();
    EXPECT_TRUE(res);
    if (!res) return {};
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4");
    if (metrics::promtool_installed()) {
      const auto [status, printed] = metrics::promtool_check(res->body, ::testing::TempDir());
      EXPECT_EQ(status, 0) << printed;
    }
    Scrape parsed = parse(res->body);
    EXPECT_TRUE(parsed.duplicates.empty()) << *parsed.duplicates.begin();
    return parsed;
  }

  // Stores `sets` keys in the bucket (collection `collection` when not 0) and reads each
  // back, and `misses` absent keys.
  void traffic(const std::string& bucket, int sets, int misses, uint32_t collection = 0) {
    CouchbaseSession session(server_.port());
    session.hello({kXerror, kCollections});
    ASSERT_EQ(session.login(), Status::Success);
    ASSERT_EQ(session.select_bucket(bucket), Status::Success);
    for (int i = 0; i < sets; ++i) {
      const std::string key = in_collection(collection, "k" + std::to_string(i));
      ASSERT_EQ(session.call(store(Opcode::Set, key, "v")).status, Status::Success);
      ASSERT_EQ(session.call(simple(Opcode::Get, key)).status, Status::Success);
    }
    for (int i = 0; i < misses; ++i) {
      const std::string key = in_collection(collection, "absent" + std::to_string(i));
      ASSERT_EQ(session.call(simple(Opcode::Get, key)).status, Status::KeyEnoent);
    }
  }

  ConfigFile config_;
  TerndProcess server_;
  httplib::Client http_;
};

TEST_F(MetricsTest, EveryBucketsTrafficShowsInAScrapeThatPromtoolAccepts) {
  traffic("alpha", 30, 4, kUsersCollection);
  traffic("beta", 20, 2);
  traffic("gamma", 5, 0);
  {
    // A durable write waits for the disk and is answered later, by its waiter: counted too.
    CouchbaseSession session(server_.port());
    session.hello({kXerror, kAltRequestSupport, kSyncReplication, kCollections});
    ASSERT_EQ(session.login(), Status::Success);
    ASSERT_EQ(session.select_bucket("beta"), Status::Success);
    const Request durable = alt(store(Opcode::Set, in_collection(0, "durable"), "v"),
                                durability_frame(kLevelPersistToMajority, 60'000));
    ASSERT_EQ(session.call(durable).status, Status::Success);
  }
  const Scrape metrics = scrape();

  // Operations by kind and result, per bucket (the engine's counters).
  EXPECT_EQ(metrics.at(R"(kv_ops{bucket="alpha",op="get",result="hit"})"), 30);
  EXPECT_EQ(metrics.at(R"(kv_ops{bucket="alpha",op="get",result="miss"})"), 4);
  EXPECT_EQ(metrics.at(R"(kv_ops{bucket="beta",op="set"})"), 21);
  EXPECT_EQ(metrics.at(R"(kv_ops{bucket="gamma",op="get",result="miss"})"), 0);
  EXPECT_EQ(metrics.at(R"(kv_curr_items{bucket="alpha"})"), 30);
  EXPECT_EQ(metrics.at(R"(kv_curr_items{bucket="beta"})"), 21);
  EXPECT_EQ(metrics.at(R"(kv_ep_max_size_bytes{bucket="gamma"})"), 32 * 1024 * 1024);
  EXPECT_GT(metrics.at(R"(kv_mem_used_bytes{bucket="alpha"})"), 0);

  // Latency per opcode as a histogram, and results per opcode (the dispatcher's).
  EXPECT_EQ(metrics.at(R"(kv_cmd_duration_seconds_count{bucket="alpha",opcode="GET"})"), 34);
  EXPECT_EQ(metrics.at(R"(kv_cmd_duration_seconds_bucket{bucket="alpha",opcode="GET",le="+Inf"})"),
            34);
  EXPECT_GT(metrics.at(R"(kv_cmd_duration_seconds_sum{bucket="alpha",opcode="GET"})"), 0);
  EXPECT_EQ(metrics.at(R"(kv_cmd_results_total{bucket="alpha",opcode="GET",result="success"})"),
            30);
  EXPECT_EQ(metrics.at(R"(kv_cmd_results_total{bucket="alpha",opcode="GET",result="not_found"})"),
            4);
  EXPECT_EQ(metrics.at(R"(kv_cmd_results_total{bucket="beta",opcode="SET",result="success"})"), 21);

  // Per collection.
  EXPECT_EQ(
      metrics.at(R"(kv_collection_ops{bucket="alpha",scope="app",collection="users",op="store"})"),
      30);
  EXPECT_EQ(
      metrics.at(R"(kv_collection_ops{bucket="alpha",scope="app",collection="users",op="get"})"),
      34);
  EXPECT_EQ(
      metrics.at(R"(kv_collection_ops{bucket="alpha",scope="app",collection="orders",op="get"})"),
      0);

  // The persistent bucket's flusher, and the node's connections and traffic.
  EXPECT_GE(metrics.at(R"(kv_ep_queue_size{bucket="beta"})"), 0);
  EXPECT_GE(metrics.at(R"(kv_ep_total_persisted{bucket="beta"})"), 0);
  EXPECT_EQ(metrics.at(R"(kv_ep_queue_size{bucket="alpha"})"), -1) << "ephemeral: no flusher";
  EXPECT_GE(metrics.at("kv_total_connections"), 3);
  EXPECT_GT(metrics.at("kv_read_bytes"), 0);
  EXPECT_GT(metrics.at("kv_written_bytes"), 0);
  // Warmup ran on the reader pool.
  EXPECT_GE(metrics.at(R"(kv_task_runs_total{type="reader"})"), 1);
}

TEST_F(MetricsTest, BucketsCreatedAndDroppedAtRunTimeComeAndGoFromTheScrape) {
  http_.set_basic_auth(kAdminUser, kAdminPassword);
  httplib::Result created =
      http_.Post("/pools/default/buckets", "name=delta&bucketType=ephemeral&ramQuotaMB=100",
                 "application/x-www-form-urlencoded");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 202) << created->body;
  traffic("delta", 3, 1);
  Scrape metrics = scrape();
  EXPECT_EQ(metrics.at(R"(kv_curr_items{bucket="delta"})"), 3);
  EXPECT_EQ(metrics.at(R"(kv_cmd_duration_seconds_count{bucket="delta",opcode="SET"})"), 3);

  httplib::Result dropped = http_.Delete("/pools/default/buckets/delta");
  ASSERT_TRUE(dropped);
  ASSERT_EQ(dropped->status, 200) << dropped->body;
  metrics = scrape();
  EXPECT_EQ(metrics.at(R"(kv_curr_items{bucket="delta"})"), -1);
  EXPECT_EQ(metrics.at(R"(kv_curr_items{bucket="alpha"})"), 0);
}

TEST_F(MetricsTest, OnlyAnAdministratorOrAUserGrantedABucketMayScrape) {
  httplib::Result anonymous = get_metrics("", "");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  httplib::Result wrong = get_metrics(kAdminUser, "wrong");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  httplib::Result reader = get_metrics("reader", "secret");
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->status, 200);
  EXPECT_NE(reader->body.find("kv_curr_items{bucket=\"gamma\"}"), std::string::npos);
}

}  // namespace
}  // namespace tern::e2e
