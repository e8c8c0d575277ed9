#pragma once
// For tests of the commands: builds request frames, runs them through a Dispatcher on one
// connection's Session, and decodes what it answers. Shared by the commands/*_test.cc files.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <ostream>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth/scram_algorithm.h"
#include "auth/test_scram_client.h"
#include "commands/dispatcher.h"
#include "commands/features.h"
#include "commands/node.h"
#include "commands/parked_request.h"
#include "commands/session.h"
#include "commands/test_node.h"
#include "common/clock.h"
#include "protocol/codec.h"
#include "protocol/opcode.h"
#include "protocol/status.h"

namespace tern::protocol {

// How GoogleTest shows a status: "0x88 (Unknown collection)".
inline void PrintTo(Status status, std::ostream* os) {
  char code[8];
  std::snprintf(code, sizeof code, "0x%02x", static_cast<unsigned>(status));
  *os << code << " (" << status_text(status) << ")";
}

}  // namespace tern::protocol

namespace tern::commands::testing {

using Bytes = std::vector<uint8_t>;

inline constexpr uint32_t kOpaque = 0xdeadbeef;
inline constexpr uint8_t kJsonDatatype = 0x01;
inline constexpr uint8_t kSnappyDatatype = 0x02;

inline std::span<const uint8_t> bytes_of(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

inline std::string text_of(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

inline Bytes be16(uint16_t v) {
  Bytes out(2);
  protocol::store_be16(out.data(), v);
  return out;
}

inline Bytes be32(uint32_t v) {
  Bytes out(4);
  protocol::store_be32(out.data(), v);
  return out;
}

inline Bytes be64(uint64_t v) {
  Bytes out(8);
  protocol::store_be64(out.data(), v);
  return out;
}

inline Bytes concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

inline Bytes storage_extras(uint32_t flags, uint32_t expiry) {
  return concat({be32(flags), be32(expiry)});
}

inline Bytes arithmetic_extras(uint64_t delta, uint64_t initial, uint32_t expiry) {
  return concat({be64(delta), be64(initial), be32(expiry)});
}

// A value made of u16 codes, as HELLO takes them.
inline std::string u16_list(std::initializer_list<uint16_t> codes) {
  std::string out;
  for (uint16_t code : codes) {
    out += static_cast<char>(code >> 8);
    out += static_cast<char>(code & 0xff);
  }
  return out;
}

inline std::vector<uint16_t> u16s_of(std::string_view value) {
  std::vector<uint16_t> out;
  for (size_t i = 0; i + 1 < value.size(); i += 2) {
    out.push_back(protocol::load_be16(bytes_of(value).data() + i));
  }
  return out;
}

// A key as a client with Collections sends it: the collection id in LEB128, then the key.
inline std::string collection_key(uint32_t collection_id, std::string_view key) {
  uint8_t prefix[5];
  const size_t n = protocol::leb128_encode(collection_id, prefix);
  return std::string(reinterpret_cast<const char*>(prefix), n) + std::string(key);
}

struct Request {
  protocol::Opcode opcode = protocol::Opcode::Noop;
  std::string key = {};
  std::string value = {};
  Bytes extras = {};
  uint64_t cas = 0;
  uint8_t datatype = 0;
  Bytes framing_extras = {};  // non-empty: sent with the alt magic
  uint32_t opaque = kOpaque;
  uint16_t vbucket = 0;
};

struct Response {
  uint8_t magic = 0;
  uint8_t opcode = 0;
  protocol::Status status = protocol::Status::Success;
  uint8_t datatype = 0;
  uint32_t opaque = 0;
  uint64_t cas = 0;
  Bytes framing_extras;
  Bytes extras;
  std::string key;
  std::string value;
};

// Every response in `out`, in order; a failure if any does not decode.
inline std::vector<Response> decode_all(const Bytes& out) {
  std::vector<Response> answers;
  std::span<const uint8_t> rest(out);
  while (!rest.empty()) {
    protocol::Frame f;
    if (protocol::decode_frame(rest, f) != protocol::DecodeResult::Ok) {
      ADD_FAILURE() << "undecodable response";
      break;
    }
    answers.push_back(Response{f.magic, f.opcode, static_cast<protocol::Status>(f.vbucket_or_status),
                               f.datatype, f.opaque, f.cas,
                               Bytes(f.framing_extras.begin(), f.framing_extras.end()),
                               Bytes(f.extras.begin(), f.extras.end()), text_of(f.key),
                               text_of(f.value)});
    rest = rest.subspan(f.size());
  }
  return answers;
}

// The wire bytes of a request.
inline Bytes encode(const Request& r) {
  protocol::FrameParts parts;
  parts.magic = r.framing_extras.empty() ? 0x80 : 0x08;
  parts.opcode = static_cast<uint8_t>(r.opcode);
  parts.datatype = r.datatype;
  parts.vbucket_or_status = r.vbucket;
  parts.opaque = r.opaque;
  parts.cas = r.cas;
  parts.framing_extras = r.framing_extras;
  parts.extras = r.extras;
  parts.key = bytes_of(r.key);
  parts.value = bytes_of(r.value);
  Bytes wire;
  protocol::append_frame(parts, wire);
  return wire;
}

// An error response as Reply::error() sends it: the status and its text, nothing else.
inline void expect_error(const Response& r, protocol::Status status) {
  EXPECT_EQ(r.status, status);
  EXPECT_EQ(r.value, protocol::status_text(status));
  EXPECT_EQ(r.cas, 0u);
  EXPECT_TRUE(r.extras.empty());
  EXPECT_TRUE(r.key.empty());
}

// Parks requests as a network connection does, but finishes them only when the test asks
// (finish_ready()), on the test's thread. Single-threaded, as tests on a ManualExecutor are.
class TestParker final : public RequestParker {
 public:
  // Executes a request parked to run again (run_again()), appending its answer to the bytes.
  using RunAgain = std::function<void(const ParkedRequest&, Bytes&)>;

  explicit TestParker(RunAgain run_again) : run_again_(std::move(run_again)) {}

  ParkedNotifier park(const protocol::Frame& request, const ReplyContext& context) override {
    auto slot = std::make_shared<Slot>(request, context);
    slots_.push_back(slot);
    return [slot](Completion completion) {
      if (slot->ended) return;
      slot->ended = true;
      slot->completion = std::move(completion);
    };
  }

  // Requests parked and not yet finished.
  size_t waiting() const { return slots_.size(); }

  // The answers of the parked requests whose wait has ended, in the order they were parked;
  // those parked to run again run now (and may park again).
  std::vector<Response> finish_ready() {
    std::vector<std::shared_ptr<Slot>> ready;
    std::erase_if(slots_, [&ready](const std::shared_ptr<Slot>& slot) {
      if (slot->ended) ready.push_back(slot);
      return slot->ended;
    });
    Bytes out;
    for (const std::shared_ptr<Slot>& slot : ready) {
      if (slot->completion) {
        slot->request.finish(slot->completion, out);
      } else {
        run_again_(slot->request, out);
      }
    }
    return decode_all(out);
  }

 private:
  struct Slot {
    Slot(const protocol::Frame& frame, const ReplyContext& context) : request(frame, context) {}
    ParkedRequest request;
    bool ended = false;
    Completion completion;  // empty: run again
  };
  const RunAgain run_again_;
  std::vector<std::shared_ptr<Slot>> slots_;
};

// One client connection: its own Session on a node, and the dispatcher every connection of
// the node shares. Its requests may wait (parker()).
class Connection {
 public:
  Connection(Dispatcher& dispatcher, Node& node)
      : dispatcher_(dispatcher),
        parker_([this](const ParkedRequest& parked, Bytes& out) {
          last_outcome_ = dispatcher_.execute_again(parked, session_, out);
        }),
        session_(node) {
    session_.parker = &parker_;
  }

  Session& session() { return session_; }
  TestParker& parker() { return parker_; }
  Outcome last_outcome() const { return last_outcome_; }

  // Executes one request; returns what it answered (zero or more responses).
  std::vector<Response> run(const Request& r) {
    const Bytes wire = encode(r);
    protocol::Frame frame;
    EXPECT_EQ(protocol::decode_frame(wire, frame), protocol::DecodeResult::Ok);
    Bytes out;
    last_outcome_ = dispatcher_.execute(frame, session_, out);
    return decode_all(out);
  }

  // Executes a request that must answer exactly once.
  Response one(const Request& r) {
    std::vector<Response> answers = run(r);
    EXPECT_EQ(answers.size(), 1u) << protocol::opcode_name(r.opcode);
    return answers.empty() ? Response{} : answers.front();
  }

  // HELLO with raw feature codes.
  Response hello_codes(std::initializer_list<uint16_t> codes) {
    return one({.opcode = protocol::Opcode::Hello, .key = "test-agent", .value = u16_list(codes)});
  }

  Response hello(std::initializer_list<Feature> features) {
    std::string value;
    for (Feature feature : features) {
      const auto code = static_cast<uint16_t>(feature);
      value += static_cast<char>(code >> 8);
      value += static_cast<char>(code & 0xff);
    }
    return one({.opcode = protocol::Opcode::Hello, .key = "test-agent", .value = value});
  }

  // A whole SCRAM exchange; returns the last answer (Success, or the failure).
  Response authenticate(std::string_view user, std::string_view password,
                        auth::ScramAlgorithm algorithm = auth::ScramAlgorithm::Sha512) {
    const std::string mechanism(auth::mechanism_name(algorithm));
    auth::TestScramClient client(algorithm, std::string(user), std::string(password));
    const Response first =
        one({.opcode = protocol::Opcode::SaslAuth, .key = mechanism, .value = client.first()});
    if (first.status != protocol::Status::AuthContinue) return first;
    const Response last = one({.opcode = protocol::Opcode::SaslStep, .key = mechanism,
                               .value = client.final(first.value)});
    if (last.status == protocol::Status::Success) {
      EXPECT_EQ(last.value, client.expected_server_final());
    }
    return last;
  }

  Response select_bucket(std::string_view name) {
    return one({.opcode = protocol::Opcode::SelectBucket, .key = std::string(name)});
  }

  Response set(const std::string& key, const std::string& value, uint32_t flags = 0,
               uint32_t expiry = 0, uint8_t datatype = 0) {
    return one({.opcode = protocol::Opcode::Set, .key = key, .value = value,
                .extras = storage_extras(flags, expiry), .datatype = datatype});
  }

  Response get(const std::string& key) { return one({.opcode = protocol::Opcode::Get, .key = key}); }

 private:
  Dispatcher& dispatcher_;
  TestParker parker_;
  Session session_;
  Outcome last_outcome_ = Outcome::Continue;
};

// The settings of a node with a config file: authentication required.
inline NodeSettings secure_settings(bool allow_plain_auth = false,
                                    std::string anonymous_bucket = {}) {
  NodeSettings settings;
  settings.open_access = false;
  settings.allow_plain_auth = allow_plain_auth;
  settings.anonymous_bucket = std::move(anonymous_bucket);
  return settings;
}

// A fixture with a node (open or secure, on a ManualClock), its dispatcher, and as many
// connections to it as a test opens.
class CommandsTest : public ::testing::Test {
 protected:
  CommandsTest() { use_secure_node(); }

  // Replaces the node (and drops every connection to the old one).
  void use_secure_node(NodeSettings settings = secure_settings()) {
    connections_.clear();
    dispatcher_.reset();
    node_ = make_secure_node(clock_, std::move(settings));
    dispatcher_ = std::make_unique<Dispatcher>(*node_);
  }

  void use_open_node() {
    connections_.clear();
    dispatcher_.reset();
    node_ = make_open_node(clock_);
    dispatcher_ = std::make_unique<Dispatcher>(*node_);
  }

  // A new connection that has sent nothing yet.
  Connection& connect() {
    connections_.push_back(std::make_unique<Connection>(*dispatcher_, *node_));
    return *connections_.back();
  }

  // A new connection that said HELLO with `features`, authenticated as `user` (password
  // "password") and selected `bucket` (none if empty).
  Connection& connect_as(std::string_view user, std::string_view bucket,
                         std::initializer_list<Feature> features = {Feature::Xerror}) {
    Connection& c = connect();
    EXPECT_EQ(c.hello(features).status, protocol::Status::Success);
    EXPECT_EQ(c.authenticate(user, "password").status, protocol::Status::Success);
    if (!bucket.empty()) {
      EXPECT_EQ(c.select_bucket(bucket).status, protocol::Status::Success);
    }
    return c;
  }

  engine::Bucket& bucket(std::string_view name) { return *node_->find_bucket(name); }

  ManualClock clock_;
  std::unique_ptr<Node> node_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::vector<std::unique_ptr<Connection>> connections_;
};

}  // namespace tern::commands::testing
