// The console's document routes against a real ternd (http/document_routes.cc), checked
// against the KV port: what one writes the other reads, with the same CAS. And FLUSH on a
// couchbase bucket: empty at once, and still empty of what it dropped after a SIGKILL and a
// restart, while a write acknowledged after it survives.

#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "couchbase_session.h"
#include "storage/temp_dir.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

constexpr auto kWarmTimeout = std::chrono::seconds(60);
constexpr const char* kUsers = "/pools/default/buckets/default/scopes/app/collections/users/docs";

// The dev config's bucket and scope, and a user who may only read bucket default.
constexpr const char* kConfig = R"(
[[bucket]]
name = "default"
type = "couchbase"
memory_quota_mb = 64

[[bucket.scope]]
name = "app"
collections = ["users"]

[[user]]
name = "Administrator"
buckets = ["*"]
admin = true
password = "password"

[[user]]
name = "reader"
buckets = ["default"]
password = "reader-password"
)";

// Runs `request` until it answers something else than 503 (the bucket warming up).
template <class Request>
httplib::Result when_warm(Request&& request) {
  const auto deadline = std::chrono::steady_clock::now() + kWarmTimeout;
  httplib::Result result = request();
  while (result && result->status == 503 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    result = request();
  }
  return result;
}

httplib::Params value(const std::string& json, const std::string& cas = "") {
  httplib::Params params{{"value", json}};
  if (!cas.empty()) params.emplace("cas", cas);
  return params;
}

// The decimal CAS in a {"cas":"<decimal>"} answer.
std::string cas_of(const std::string& body) {
  const std::string prefix = "{\"cas\":\"";
  if (body.rfind(prefix, 0) != 0) return "";
  return body.substr(prefix.size(), body.find('"', prefix.size()) - prefix.size());
}

TEST(ManagementDocuments, TheConsoleAndTheKvPortSeeTheSameDocuments) {
  ConfigFile config(kConfig);
  TerndProcess server(config.args());
  ASSERT_NE(server.mgmt_port(), 0);
  httplib::Client http("127.0.0.1", server.mgmt_port());
  http.set_basic_auth("Administrator", "password");
  CouchbaseSession kv(server.port());
  kv.open({kXerror, kCollections, kJson, kMutationSeqno});

  // Saved over HTTP, read over KV with the same CAS, as a JSON document of app.users.
  const httplib::Result saved = when_warm(
      [&] { return http.Post(std::string(kUsers) + "/ada", value(R"({"name":"Ada"})")); });
  ASSERT_TRUE(saved);
  ASSERT_EQ(saved->status, 200) << saved->body;
  const std::string first_cas = cas_of(saved->body);
  const Response read =
      call_when_warm(kv, simple(Opcode::Get, in_collection(kUsersCollection, "ada")));
  ASSERT_EQ(read.status, Status::Success);
  EXPECT_EQ(read.value, R"({"name":"Ada"})");
  EXPECT_EQ(std::to_string(read.cas), first_cas);
  EXPECT_EQ(read.datatype & kDatatypeJson, kDatatypeJson);
  EXPECT_EQ(kv.call(simple(Opcode::Get, in_collection(0, "ada"))).status, Status::KeyEnoent)
      << "not in the default collection";

  // Written over KV, read over HTTP.
  const Response written =
      kv.call(store(Opcode::Set, in_collection(kUsersCollection, "kv-doc"), R"({"from":"kv"})", 7));
  ASSERT_EQ(written.status, Status::Success);
  const httplib::Result got = http.Get(std::string(kUsers) + "/kv-doc");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, R"({"meta":{"id":"kv-doc","cas":")" + std::to_string(written.cas) +
                           R"(","flags":7,"expiration":0},"json":{"from":"kv"}})");

  // Saved with a CAS: the wrong one is refused, the right one replaces the document.
  const httplib::Result stale =
      http.Post(std::string(kUsers) + "/ada", value(R"({"name":"Lovelace"})", "12345"));
  ASSERT_TRUE(stale);
  EXPECT_EQ(stale->status, 409);
  EXPECT_NE(stale->body.find("cas_mismatch"), std::string::npos) << stale->body;
  const httplib::Result replaced =
      http.Post(std::string(kUsers) + "/ada", value(R"({"name":"Lovelace"})", first_cas));
  ASSERT_TRUE(replaced);
  EXPECT_EQ(replaced->status, 200);
  EXPECT_NE(cas_of(replaced->body), first_cas);
  EXPECT_EQ(kv.call(simple(Opcode::Get, in_collection(kUsersCollection, "ada"))).value,
            R"({"name":"Lovelace"})");
  const httplib::Result not_json = http.Post(std::string(kUsers) + "/ada", value("{oops"));
  ASSERT_TRUE(not_json);
  EXPECT_EQ(not_json->status, 400);

  // Listed in byte order, page by page.
  for (const char* key : {"k2", "k0", "k1"}) {
    ASSERT_EQ(http.Post(std::string(kUsers) + "/" + key, value("[]"))->status, 200);
  }
  EXPECT_EQ(http.Get(std::string(kUsers) + "?limit=3")->body,
            R"({"rows":[{"id":"ada"},{"id":"k0"},{"id":"k1"}],"next":"k1"})");
  EXPECT_EQ(http.Get(std::string(kUsers) + "?limit=3&startAfter=k1")->body,
            R"({"rows":[{"id":"k2"},{"id":"kv-doc"}],"next":null})");
  EXPECT_EQ(http.Get(std::string(kUsers) + "?limit=0")->status, 400);

  // Deleted over HTTP: gone for KV too.
  EXPECT_EQ(http.Delete(std::string(kUsers) + "/ada")->status, 200);
  EXPECT_EQ(kv.call(simple(Opcode::Get, in_collection(kUsersCollection, "ada"))).status,
            Status::KeyEnoent);
  const httplib::Result missing = http.Get(std::string(kUsers) + "/ada");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->body.find(R"("error":"not_found")"), std::string::npos) << missing->body;
  EXPECT_EQ(http.Delete(std::string(kUsers) + "/ada")->status, 404);
  EXPECT_EQ(http.Get("/pools/default/buckets/default/scopes/app/collections/none/docs")->status,
            404);
  EXPECT_EQ(http.Get("/pools/default/buckets/nobucket/scopes/app/collections/users/docs")->status,
            404);

  // A user who may read the bucket reads, and may not write.
  httplib::Client reader("127.0.0.1", server.mgmt_port());
  reader.set_basic_auth("reader", "reader-password");
  EXPECT_EQ(reader.Get(std::string(kUsers) + "/k0")->status, 200);
  EXPECT_EQ(reader.Post(std::string(kUsers) + "/k0", value("[1]"))->status, 403);
  EXPECT_EQ(reader.Delete(std::string(kUsers) + "/k0")->status, 403);
}

TEST(ManagementDocuments, FlushEmptiesACouchbaseBucketAndAKillDoesNotBringItBack) {
  storage::TempDir data;
  ConfigFile config(kConfig);
  std::vector<std::string> args = config.args();
  args.insert(args.end(), {"--data-dir", data.sub("data")});
  {
    TerndProcess server(args);
    CouchbaseSession kv(server.port());
    kv.open({kXerror, kAltRequestSupport, kSyncReplication, kMutationSeqno});
    const Request durable_old = alt(store(Opcode::Set, "old", "before the flush"),
                                    durability_frame(kLevelPersistToMajority, 30'000));
    ASSERT_EQ(call_when_warm(kv, durable_old).status, Status::Success) << "on disk";
    ASSERT_EQ(kv.call(store(Opcode::Set, "queued", "v")).status, Status::Success);

    EXPECT_EQ(kv.call(simple(Opcode::Flush)).status, Status::Success);
    EXPECT_EQ(kv.call(simple(Opcode::Get, "old")).status, Status::KeyEnoent);
    EXPECT_EQ(kv.call(simple(Opcode::Get, "queued")).status, Status::KeyEnoent);
    const Request durable_new = alt(store(Opcode::Set, "new", "after the flush"),
                                    durability_frame(kLevelPersistToMajority, 30'000));
    ASSERT_EQ(kv.call(durable_new).status, Status::Success);
    const int status = server.stop(SIGKILL);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
  }
  TerndProcess again(args);
  CouchbaseSession kv(again.port());
  kv.open({kXerror});
  EXPECT_EQ(call_when_warm(kv, simple(Opcode::Get, "old")).status, Status::KeyEnoent);
  EXPECT_EQ(kv.call(simple(Opcode::Get, "queued")).status, Status::KeyEnoent);
  const Response kept = kv.call(simple(Opcode::Get, "new"));
  EXPECT_EQ(kept.status, Status::Success);
  EXPECT_EQ(kept.value, "after the flush");
}

}  // namespace
}  // namespace tern::e2e
