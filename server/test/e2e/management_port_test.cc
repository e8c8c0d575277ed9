// The management port against a real ternd: Basic auth and permissions, a table of bad
// requests, buckets and collections created and dropped while KV clients are connected, and
// those changes surviving a restart. The official SDK's managers are tested in compat/.

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "couchbase_session.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

// Two users: the administrator, and one who may read (and use) bucket "default" only.
constexpr const char* kTwoUsers = R"(
[server]
anonymous_bucket = "default"
[[bucket]]
name = "default"
type = "ephemeral"
memory_quota_mb = 128
flush_enabled = true
[[user]]
name = "Administrator"
buckets = ["*"]
admin = true
password = "password"
[[user]]
name = "reader"
buckets = ["default"]
password = "readpass"
)";

class ManagementPortTest : public ::testing::Test {
 protected:
  ManagementPortTest()
      : config_(kTwoUsers), server_(config_.args()), http_("127.0.0.1", server_.mgmt_port()) {
    http_.set_basic_auth("Administrator", "password");
  }

  httplib::Client anonymous() { return httplib::Client("127.0.0.1", server_.mgmt_port()); }

  ConfigFile config_;
  TerndProcess server_;
  httplib::Client http_;
};

int status_of(const httplib::Result& result) { return result ? result->status : -1; }

TEST_F(ManagementPortTest, AnswersOnlyKnownUsersWithTheRightPassword) {
  ASSERT_NE(server_.mgmt_port(), 0);
  auto nobody = anonymous();
  const auto refused = nobody.Get("/pools");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  EXPECT_TRUE(refused->has_header("WWW-Authenticate"));
  // The console says so, and gets no browser dialog.
  const auto from_console = nobody.Get("/pools", {{"ns-server-ui", "yes"}});
  EXPECT_EQ(status_of(from_console), 401);
  EXPECT_FALSE(from_console->has_header("WWW-Authenticate"));
  nobody.set_basic_auth("Administrator", "wrong");
  EXPECT_EQ(status_of(nobody.Get("/pools")), 401);
  const auto pools = http_.Get("/pools");
  ASSERT_EQ(status_of(pools), 200);
  EXPECT_NE(pools->body.find("\"isAdminCreds\":true"), std::string::npos) << pools->body;
}

TEST_F(ManagementPortTest, AReaderReadsItsBucketAndChangesNothing) {
  auto reader = anonymous();
  reader.set_basic_auth("reader", "readpass");
  EXPECT_EQ(status_of(reader.Get("/pools/default/buckets/default")), 200);
  EXPECT_EQ(status_of(reader.Get("/pools/default/buckets/default/scopes")), 200);
  const auto create = reader.Post("/pools/default/buckets", "name=x&ramQuotaMB=100",
                                  "application/x-www-form-urlencoded");
  ASSERT_EQ(status_of(create), 403);
  EXPECT_NE(create->body.find("\"permissions\":[\"cluster.buckets!create\"]"), std::string::npos)
      << create->body;
  const auto drop = reader.Delete("/pools/default/buckets/default");
  ASSERT_EQ(status_of(drop), 403);
  EXPECT_NE(drop->body.find("cluster.bucket[default]!delete"), std::string::npos) << drop->body;
  // The list shows only what the reader may read.
  ASSERT_EQ(status_of(http_.Post("/pools/default/buckets",
                                 "name=other&ramQuotaMB=100&bucketType=ephemeral",
                                 "application/x-www-form-urlencoded")),
            202);
  const auto listed = reader.Get("/pools/default/buckets");
  ASSERT_EQ(status_of(listed), 200);
  EXPECT_NE(listed->body.find("\"name\":\"default\""), std::string::npos);
  EXPECT_EQ(listed->body.find("\"name\":\"other\""), std::string::npos) << listed->body;
}

struct BadRequest {
  const char* method;
  const char* path;
  const char* body;
  int status;
  const char* says;  // a part of the answer's body
};

TEST_F(ManagementPortTest, BadRequestsGetAClearStatusAndMessage) {
  const std::vector<BadRequest> table = {
      {"POST", "/pools/default/buckets", "ramQuotaMB=100", 400,
       "Bucket name needs to be specified"},
      {"POST", "/pools/default/buckets", "name=.bad&ramQuotaMB=100", 400,
       "Bucket name can only contain"},
      {"POST", "/pools/default/buckets", "name=x", 400, "RAM Quota must be specified"},
      {"POST", "/pools/default/buckets", "name=x&ramQuotaMB=abc", 400,
       "RAM Quota must be specified"},
      {"POST", "/pools/default/buckets", "name=x&ramQuotaMB=10", 400,
       "cannot be less than 100 MiB"},
      {"POST", "/pools/default/buckets", "name=x&ramQuotaMB=100&replicaNumber=1", 400,
       "keeps no replicas"},
      {"POST", "/pools/default/buckets", "name=x&ramQuotaMB=100&bucketType=memcached", 400,
       "no memcached buckets"},
      {"POST", "/pools/default/buckets",
       "name=x&ramQuotaMB=100&bucketType=ephemeral&evictionPolicy=fullEviction", 400,
       "nruEviction"},
      {"POST", "/pools/default/buckets", "name=x&ramQuotaMB=100&flushEnabled=2", 400,
       "flushEnabled can only be 1 or 0"},
      {"POST", "/pools/default/buckets", "name=x&ramQuotaMB=100&maxTTL=-5", 400, "Max TTL"},
      {"POST", "/pools/default/buckets", "name=x&ramQuotaMB=100&durabilityMinLevel=high", 400,
       "Durability minimum level"},
      {"POST", "/pools/default/buckets", "name=x&name=y&ramQuotaMB=100", 400, "more than once"},
      {"POST", "/pools/default/buckets", "name=default&ramQuotaMB=100&bucketType=ephemeral", 400,
       "already exists"},
      {"GET", "/pools/default/buckets/nope", "", 404, "not found"},
      {"DELETE", "/pools/default/buckets/nope", "", 404, "not found"},
      {"POST", "/pools/default/buckets/nope/controller/doFlush", "", 404, "not found"},
      {"GET", "/pools/default/buckets/nope/scopes", "", 404, "not found"},
      {"POST", "/pools/default/buckets/default/scopes", "name=_bad", 400, "Can only contain"},
      {"POST", "/pools/default/buckets/default/scopes", "name=_default", 400, "already exists"},
      {"DELETE", "/pools/default/buckets/default/scopes/_default", "", 400,
       "_default scope is not allowed"},
      {"DELETE", "/pools/default/buckets/default/scopes/nope", "", 404,
       "Scope with name \\\"nope\\\" is not found"},
      {"POST", "/pools/default/buckets/default/scopes/nope/collections", "name=c", 404,
       "Scope with name \\\"nope\\\" is not found"},
      {"POST", "/pools/default/buckets/default/scopes/_default/collections", "name=c&maxTTL=x", 400,
       "maxTTL"},
      {"POST", "/pools/default/buckets/default/scopes/_default/collections", "name=c&history=true",
       400, "Not allowed on this type of bucket"},
      {"DELETE", "/pools/default/buckets/default/scopes/_default/collections/nope", "", 404,
       "Collection with name \\\"nope\\\" in scope \\\"_default\\\" is not found"},
      {"GET", "/nothing/here", "", 404, ""},
  };
  for (const BadRequest& bad : table) {
    SCOPED_TRACE(std::string(bad.method) + " " + bad.path + " " + bad.body);
    httplib::Result result =
        std::string(bad.method) == "GET" ? http_.Get(bad.path)
        : std::string(bad.method) == "DELETE"
            ? http_.Delete(bad.path)
            : http_.Post(bad.path, bad.body, "application/x-www-form-urlencoded");
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, bad.status) << result->body;
    EXPECT_NE(result->body.find(bad.says), std::string::npos) << result->body;
  }
  // A body that is not a form, and one over the 1 MiB limit.
  EXPECT_EQ(status_of(http_.Post("/pools/default/buckets", "{\"name\":\"x\"}", "application/json")),
            400);
  EXPECT_EQ(status_of(http_.Post("/pools/default/buckets", std::string(1024 * 1024 + 1, 'a'),
                                 "application/x-www-form-urlencoded")),
            413);
  // Flush needs it enabled: "other" is created without.
  ASSERT_EQ(status_of(http_.Post("/pools/default/buckets",
                                 "name=other&ramQuotaMB=100&bucketType=ephemeral",
                                 "application/x-www-form-urlencoded")),
            202);
  const auto flush = http_.Post("/pools/default/buckets/other/controller/doFlush", "",
                                "application/x-www-form-urlencoded");
  ASSERT_EQ(status_of(flush), 400);
  EXPECT_NE(flush->body.find("Flush is disabled"), std::string::npos) << flush->body;
  // None of it touched the KV port.
  CouchbaseSession kv(server_.port());
  kv.open({kXerror});
  EXPECT_EQ(kv.call(store(Opcode::Set, "still", "here")).status, Status::Success);
}

TEST_F(ManagementPortTest, ABucketCreatedServesAtOnceAndADroppedOneClosesItsConnections) {
  ASSERT_EQ(status_of(http_.Post("/pools/default/buckets",
                                 "name=live&ramQuotaMB=100&bucketType=ephemeral&flushEnabled=1",
                                 "application/x-www-form-urlencoded")),
            202);
  CouchbaseSession kv(server_.port());
  kv.hello({kXerror});
  ASSERT_EQ(kv.login(), Status::Success);
  ASSERT_EQ(kv.select_bucket("live"), Status::Success);
  ASSERT_EQ(kv.call(store(Opcode::Set, "k", "v")).status, Status::Success);
  // Flush empties it.
  ASSERT_EQ(status_of(http_.Post("/pools/default/buckets/live/controller/doFlush", "",
                                 "application/x-www-form-urlencoded")),
            200);
  EXPECT_EQ(kv.call(simple(Opcode::Get, "k")).status, Status::KeyEnoent);
  const auto listed = http_.Get("/pools/default/buckets/live");
  ASSERT_EQ(status_of(listed), 200);
  EXPECT_NE(listed->body.find("\"bucketType\":\"ephemeral\""), std::string::npos) << listed->body;
  EXPECT_NE(listed->body.find("\"flush\":"), std::string::npos) << listed->body;

  ASSERT_EQ(status_of(http_.Delete("/pools/default/buckets/live")), 200);
  // The next request on the dropped bucket's connection ends it, as Couchbase does.
  kv.send(simple(Opcode::Get, "k"));
  EXPECT_FALSE(kv.receive().has_value());
  CouchbaseSession again(server_.port());
  again.hello({kXerror});
  ASSERT_EQ(again.login(), Status::Success);
  EXPECT_NE(again.select_bucket("live"), Status::Success);
  EXPECT_EQ(status_of(http_.Get("/pools/default/buckets/live")), 404);
}

TEST_F(ManagementPortTest, ACollectionCreatedIsUsableAtOnceOnAnOpenConnection) {
  CouchbaseSession kv(server_.port());
  kv.open({kXerror, kCollections});
  EXPECT_EQ(kv.call(simple(Opcode::GetCollectionId, "", "s1.c1")).status, Status::UnknownScope);
  ASSERT_EQ(status_of(http_.Post("/pools/default/buckets/default/scopes", "name=s1",
                                 "application/x-www-form-urlencoded")),
            200);
  const auto created = http_.Post("/pools/default/buckets/default/scopes/s1/collections",
                                  "name=c1&maxTTL=100", "application/x-www-form-urlencoded");
  ASSERT_EQ(status_of(created), 200);
  EXPECT_EQ(created->body, "{\"uid\":\"2\"}");
  const Response id = kv.call(simple(Opcode::GetCollectionId, "", "s1.c1"));
  ASSERT_EQ(id.status, Status::Success);
  ASSERT_EQ(id.extras.size(), 12u);
  const uint32_t collection = (uint8_t(id.extras[8]) << 24) | (uint8_t(id.extras[9]) << 16) |
                              (uint8_t(id.extras[10]) << 8) | uint8_t(id.extras[11]);
  EXPECT_EQ(kv.call(store(Opcode::Set, in_collection(collection, "k"), "v")).status,
            Status::Success);
  const auto scopes = http_.Get("/pools/default/buckets/default/scopes");
  ASSERT_EQ(status_of(scopes), 200);
  EXPECT_NE(scopes->body.find("{\"name\":\"c1\",\"uid\":\"8\",\"maxTTL\":100}"), std::string::npos)
      << scopes->body;
  // The map clients poll carries the new manifest uid.
  EXPECT_NE(
      kv.call(simple(Opcode::GetClusterConfig)).value.find("\"collectionsManifestUid\":\"2\""),
      std::string::npos);

  ASSERT_EQ(status_of(http_.Delete("/pools/default/buckets/default/scopes/s1/collections/c1")),
            200);
  EXPECT_EQ(kv.call(simple(Opcode::Get, in_collection(collection, "k"))).status,
            Status::UnknownCollection);
}

TEST_F(ManagementPortTest, ABucketsSettingsChangeWhileItServes) {
  ASSERT_EQ(status_of(http_.Post("/pools/default/buckets",
                                 "name=edit&ramQuotaMB=100&bucketType=ephemeral",
                                 "application/x-www-form-urlencoded")),
            202);
  CouchbaseSession kv(server_.port());
  kv.hello({kXerror});
  ASSERT_EQ(kv.login(), Status::Success);
  ASSERT_EQ(kv.select_bucket("edit"), Status::Success);
  const auto quota_of = [&kv] { return kv.client().stats()["limit_maxbytes"]; };
  EXPECT_EQ(quota_of(), std::to_string(100 * 1024 * 1024));
  ASSERT_EQ(status_of(http_.Post("/pools/default/buckets/edit",
                                 "ramQuotaMB=200&maxTTL=3600&durabilityMinLevel=majority",
                                 "application/x-www-form-urlencoded")),
            200);
  EXPECT_EQ(quota_of(), std::to_string(200 * 1024 * 1024));
  const auto settings = http_.Get("/pools/default/buckets/edit");
  ASSERT_EQ(status_of(settings), 200);
  EXPECT_NE(settings->body.find("\"rawRAM\":209715200"), std::string::npos) << settings->body;
  EXPECT_NE(settings->body.find("\"maxTTL\":3600"), std::string::npos) << settings->body;
  EXPECT_NE(settings->body.find("\"durabilityMinLevel\":\"majority\""), std::string::npos)
      << settings->body;
  EXPECT_EQ(kv.call(store(Opcode::Set, "k", "v")).status, Status::Success);
  // What cannot change is refused, naming the setting.
  const auto type = http_.Post("/pools/default/buckets/edit", "bucketType=couchbase",
                               "application/x-www-form-urlencoded");
  ASSERT_EQ(status_of(type), 400);
  EXPECT_NE(type->body.find("Cannot change bucket type"), std::string::npos) << type->body;
}

TEST(ManagementPortIdleTest, AClientThatSendsNothingIsClosed) {
  std::vector<std::string> args = dev_config_args();
  args.insert(args.end(), {"--mgmt-idle-timeout", "1"});
  TerndProcess server(args);
  Client silent(server.mgmt_port());  // a TCP connection that never sends a byte
  ASSERT_TRUE(silent.connected());
  // Closed after about a second; the bound (the client's 15 s read timeout) is generous.
  EXPECT_TRUE(silent.closed_by_peer());
  // The port still serves others.
  httplib::Client http("127.0.0.1", server.mgmt_port());
  http.set_basic_auth(kAdminUser, kAdminPassword);
  EXPECT_EQ(status_of(http.Get("/pools")), 200);
}

TEST(ManagementPortMapTest, TheMapListsTheManagementPortOnlyWhenItAnswers) {
  TerndProcess with(dev_config_args());
  CouchbaseSession a(with.port());
  a.open({kXerror});
  const std::string map = a.call(simple(Opcode::GetClusterConfig)).value;
  EXPECT_NE(map.find("\"mgmt\":" + std::to_string(with.mgmt_port())), std::string::npos) << map;
  EXPECT_NE(map.find("\"hostname\":\"$HOST:" + std::to_string(with.mgmt_port())), std::string::npos)
      << map;

  // Before any bucket is selected, the node's own map (Couchbase's global config) tells where
  // the management port is: what an SDK's bucket manager needs before it opens a bucket.
  CouchbaseSession no_bucket(with.port());
  no_bucket.hello({kXerror});
  ASSERT_EQ(no_bucket.login(), Status::Success);
  const Response global = no_bucket.call(simple(Opcode::GetClusterConfig));
  ASSERT_EQ(global.status, Status::Success);
  EXPECT_NE(global.value.find("\"mgmt\":" + std::to_string(with.mgmt_port())), std::string::npos)
      << global.value;
  EXPECT_EQ(global.value.find("vBucketServerMap"), std::string::npos) << global.value;

  std::vector<std::string> args = dev_config_args();
  args.insert(args.end(), {"--mgmt-port", "none"});
  TerndProcess without(args);
  EXPECT_EQ(without.mgmt_port(), 0);
  CouchbaseSession b(without.port());
  b.open({kXerror});
  EXPECT_EQ(b.call(simple(Opcode::GetClusterConfig)).value.find("\"mgmt\""), std::string::npos);
}

TEST(ManagementPortRestartTest, BucketsAndCollectionsMadeOverHttpSurviveARestart) {
  std::string data = ::testing::TempDir() + "ternd-mgmt-XXXXXX";
  ASSERT_NE(::mkdtemp(data.data()), nullptr);
  std::vector<std::string> args = dev_config_args();
  args.insert(args.end(), {"--data-dir", data});
  {
    TerndProcess first(args);
    httplib::Client http("127.0.0.1", first.mgmt_port());
    http.set_basic_auth(kAdminUser, kAdminPassword);
    ASSERT_EQ(status_of(http.Post("/pools/default/buckets",
                                  "name=kept&ramQuotaMB=100&bucketType=couchbase",
                                  "application/x-www-form-urlencoded")),
              202);
    ASSERT_EQ(status_of(http.Post("/pools/default/buckets/kept/scopes", "name=s",
                                  "application/x-www-form-urlencoded")),
              200);
    ASSERT_EQ(status_of(http.Post("/pools/default/buckets/kept/scopes/s/collections", "name=c",
                                  "application/x-www-form-urlencoded")),
              200);
    // Dropped over HTTP: it must stay dropped, although the config file declares it.
    ASSERT_EQ(
        status_of(http.Delete("/pools/default/buckets/default/scopes/app/collections/orders")),
        200);
    CouchbaseSession kv(first.port());
    kv.hello({kXerror, kCollections});
    ASSERT_EQ(kv.login(), Status::Success);
    ASSERT_EQ(kv.select_bucket("kept"), Status::Success);
    ASSERT_EQ(kv.call(store(Opcode::Set, in_collection(8, "doc"), "kept")).status, Status::Success);
    EXPECT_EQ(first.stop(SIGTERM), 0);
  }
  TerndProcess second(args);
  EXPECT_NE(second.log().find("win over the config file's"), std::string::npos) << second.log();
  CouchbaseSession kv(second.port());
  kv.hello({kXerror, kCollections});
  ASSERT_EQ(kv.login(), Status::Success);
  ASSERT_EQ(kv.select_bucket("kept"), Status::Success);
  EXPECT_EQ(kv.call(simple(Opcode::Get, in_collection(8, "doc"))).value, "kept");
  ASSERT_EQ(kv.select_bucket("default"), Status::Success);
  EXPECT_EQ(kv.call(simple(Opcode::GetCollectionId, "", "app.orders")).status,
            Status::UnknownCollection);
  EXPECT_EQ(kv.call(simple(Opcode::GetCollectionId, "", "app.users")).status, Status::Success);
  std::filesystem::remove_all(data);
}

}  // namespace
}  // namespace tern::e2e
