#include "couchbase_session.h"

#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "auth/test_scram_client.h"
#include "protocol/codec.h"

namespace tern::e2e {

std::string dev_config_path() { return TERN_TESTDATA_DIR "/../server/config/dev.toml"; }

std::vector<std::string> dev_config_args() { return {"--config", dev_config_path()}; }

StrictDevConfig::StrictDevConfig() {
  std::ifstream dev(dev_config_path());
  EXPECT_TRUE(dev) << "cannot read " << dev_config_path();
  std::ostringstream strict;
  for (std::string line; std::getline(dev, line);) {
    if (line.find("anonymous_bucket") == std::string::npos) strict << line << '\n';
  }
  const char* tmp = ::getenv("TMPDIR");
  std::string name = std::string(tmp && *tmp ? tmp : "/tmp") + "/tern-e2e-strict-XXXXXX.toml";
  const int fd = ::mkstemps(name.data(), 5);
  EXPECT_GE(fd, 0) << "cannot create " << name;
  if (fd < 0) return;
  const std::string text = strict.str();
  EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
  path_ = name;
}

StrictDevConfig::~StrictDevConfig() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

std::string durability_frame(uint8_t level, uint16_t timeout_ms) {
  return std::string{'\x13', static_cast<char>(level), static_cast<char>(timeout_ms >> 8),
                     static_cast<char>(timeout_ms & 0xff)};
}

std::string in_collection(uint32_t id, const std::string& key) {
  uint8_t prefix[5];
  const size_t n = protocol::leb128_encode(id, prefix);
  return std::string(reinterpret_cast<const char*>(prefix), n) + key;
}

std::vector<uint16_t> CouchbaseSession::hello(const std::vector<uint16_t>& features,
                                              const std::string& agent) {
  std::string codes;
  for (uint16_t feature : features) {
    codes.push_back(static_cast<char>(feature >> 8));
    codes.push_back(static_cast<char>(feature & 0xff));
  }
  Response answer = client_.call(simple(Opcode::Hello, agent, codes));
  EXPECT_EQ(answer.status, Status::Success) << "HELLO";
  EXPECT_EQ(answer.value.size() % 2, 0u) << "HELLO answers u16 codes";
  std::vector<uint16_t> acknowledged;
  for (size_t i = 0; i + 1 < answer.value.size(); i += 2) {
    acknowledged.push_back(static_cast<uint16_t>(
        (static_cast<uint8_t>(answer.value[i]) << 8) | static_cast<uint8_t>(answer.value[i + 1])));
  }
  return acknowledged;
}

Status CouchbaseSession::login(const std::string& user, const std::string& password,
                               auth::ScramAlgorithm algorithm) {
  const std::string mechanism(auth::mechanism_name(algorithm));
  auth::TestScramClient scram(algorithm, user, password);
  Response first = client_.call(simple(Opcode::SaslAuth, mechanism, scram.first()));
  if (first.status != Status::AuthContinue) return first.status;
  Response last = client_.call(simple(Opcode::SaslStep, mechanism, scram.final(first.value)));
  if (last.status == Status::Success) {
    EXPECT_EQ(last.value, scram.expected_server_final()) << "the server's SCRAM signature";
  }
  return last.status;
}

Status CouchbaseSession::select_bucket(const std::string& bucket) {
  return client_.call(simple(Opcode::SelectBucket, bucket)).status;
}

std::vector<uint16_t> CouchbaseSession::open(const std::vector<uint16_t>& features) {
  std::vector<uint16_t> acknowledged = hello(features);
  EXPECT_EQ(login(), Status::Success) << "login as " << kAdminUser;
  EXPECT_EQ(select_bucket(), Status::Success) << "SELECT_BUCKET " << kDefaultBucket;
  return acknowledged;
}

Response call_when_warm(CouchbaseSession& session, const Request& request) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  Response answer = session.call(request);
  while (answer.status == Status::Etmpfail && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    answer = session.call(request);
  }
  return answer;
}

}  // namespace tern::e2e
