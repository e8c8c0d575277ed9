#pragma once
// A Couchbase client connection for end-to-end tests, on top of the raw test client: HELLO
// with a feature list, SCRAM login (with the test's own SCRAM client, independent of the
// server's), SELECT_BUCKET. So a test reads as its scenario:
//
//   TerndProcess server = couchbase_server();
//   CouchbaseSession a(server.port());
//   a.hello({kXerror, kMutationSeqno});
//   a.login();            // Administrator / password, SCRAM-SHA512
//   a.select_bucket();    // "default"
//   a.call(store(Opcode::Set, "k", "v"));

#include <cstdint>
#include <string>
#include <vector>

#include "auth/scram_algorithm.h"
#include "test_client.h"

namespace tern::e2e {

// HELLO feature codes, as the protocol numbers them (written out here, not taken from the
// server's headers, so that the tests check the server against the protocol).
inline constexpr uint16_t kTcpNodelay = 0x03;
inline constexpr uint16_t kMutationSeqno = 0x04;
inline constexpr uint16_t kXattr = 0x06;
inline constexpr uint16_t kXerror = 0x07;
inline constexpr uint16_t kSelectBucket = 0x08;
inline constexpr uint16_t kSnappy = 0x0a;
inline constexpr uint16_t kJson = 0x0b;
inline constexpr uint16_t kDuplex = 0x0c;
inline constexpr uint16_t kClustermapChangeNotification = 0x0d;
inline constexpr uint16_t kUnorderedExecution = 0x0e;
inline constexpr uint16_t kTracing = 0x0f;
inline constexpr uint16_t kAltRequestSupport = 0x10;
inline constexpr uint16_t kSyncReplication = 0x11;
inline constexpr uint16_t kCollections = 0x12;
inline constexpr uint16_t kPreserveTtl = 0x14;

// Durability levels (frame info id 1), as the protocol numbers them.
inline constexpr uint8_t kLevelMajority = 1;
inline constexpr uint8_t kLevelMajorityAndPersistToActive = 2;
inline constexpr uint8_t kLevelPersistToMajority = 3;

// A durability requirement as framing extras for alt(): frame id 1 with the level and a
// timeout in milliseconds (three bytes of data).
std::string durability_frame(uint8_t level, uint16_t timeout_ms);

// Datatype bits.
inline constexpr uint8_t kDatatypeJson = 0x01;
inline constexpr uint8_t kDatatypeSnappy = 0x02;

// The development configuration checked in at server/config/dev.toml: user Administrator
// (admin, every bucket), bucket "default" with scope app (users = 8, orders = 9).
std::string dev_config_path();
inline constexpr const char* kAdminUser = "Administrator";
inline constexpr const char* kAdminPassword = "password";
inline constexpr const char* kDefaultBucket = "default";
inline constexpr uint32_t kUsersCollection = 8;  // app.users

// Arguments that start ternd from the development configuration.
std::vector<std::string> dev_config_args();

// dev.toml without its anonymous_bucket line: a configuration in which unauthenticated
// connections may use no bucket. Written to a temporary file, removed with this object.
class StrictDevConfig {
 public:
  StrictDevConfig();
  ~StrictDevConfig();
  StrictDevConfig(const StrictDevConfig&) = delete;
  StrictDevConfig& operator=(const StrictDevConfig&) = delete;

  std::vector<std::string> args() const { return {"--config", path_}; }

 private:
  std::string path_;
};

// A key in collection `id`: its LEB128 prefix, then `key`.
std::string in_collection(uint32_t id, const std::string& key);

class CouchbaseSession {
 public:
  explicit CouchbaseSession(uint16_t port) : client_(port) {}

  Client& client() { return client_; }
  bool connected() const { return client_.connected(); }

  // HELLO asking for `features`, in that order; returns the features acknowledged.
  std::vector<uint16_t> hello(const std::vector<uint16_t>& features,
                              const std::string& agent = "tern-e2e");

  // A whole SCRAM exchange (SASL_AUTH, then SASL_STEP); returns the status of the last
  // answer: Success, or the error that ended the exchange. On Success, the server's
  // signature has been checked (a mismatch fails the test).
  Status login(const std::string& user = kAdminUser, const std::string& password = kAdminPassword,
               auth::ScramAlgorithm algorithm = auth::ScramAlgorithm::Sha512);

  Status select_bucket(const std::string& bucket = kDefaultBucket);

  // HELLO, login as the administrator and SELECT_BUCKET "default"; a step that fails fails
  // the test. Returns the acknowledged features.
  std::vector<uint16_t> open(const std::vector<uint16_t>& features);

  Response call(const Request& request) { return client_.call(request); }
  bool send(const Request& request) { return client_.send(request); }
  std::optional<Response> receive() { return client_.receive(); }

 private:
  Client client_;
};

// Sends `request` over `session` until the bucket is warm (a couchbase bucket answers
// Etmpfail while it loads from disk), for 60 s at most; returns the last answer.
Response call_when_warm(CouchbaseSession& session, const Request& request);

}  // namespace tern::e2e
