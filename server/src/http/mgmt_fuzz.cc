// libFuzzer target: the management port, from the bytes of HTTP requests to the answers, with
// every route ternd registers (route_groups.h) on a real node and a NodeAdmin that keeps its
// buckets in memory. cpp-httplib parses the requests as it does on a socket (through its
// Server::process_request, on a stream over the input), then routes them to the handlers:
// Form::parse, the bucket and collection forms, the document browser, /metrics, ...
//
// Input: one byte picks the node (bit 0: open, as ternd without a config file; else users
// "Administrator" (admin) and "reader" (bucket "default"), password "password"), the rest is
// up to four pipelined requests. Each input starts from the same state: the buckets a
// request created or changed are put back (after any request but a GET). Checks: no handler throws,
// no answer is a 5xx, and every JSON answer parses.

#include <httplib.h>
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "auth/scram.h"
#include "auth/scram_algorithm.h"
#include "commands/node.h"
#include "common/fuzz_check.h"
#include "config/durability_levels.h"
#include "config/names.h"
#include "http/mgmt_context.h"
#include "http/mgmt_server.h"
#include "http/node_admin.h"
#include "http/route_groups.h"
#include "http/routes.h"

namespace {

using namespace tern;

// Buckets small enough to build for every input.
engine::Config small_bucket_config() {
  engine::Config config;
  config.shard_count = 4;
  config.memory_quota_bytes = 64ull * 1024 * 1024;
  return config;
}

// NodeAdmin on the node's own bucket list: creates ephemeral engine buckets whatever the
// type asked for (no disk), and keeps the settings it was given.
class MemoryAdmin final : public http::NodeAdmin {
 public:
  explicit MemoryAdmin(commands::Node& node) : node_(node) {}

  // Back to fresh buckets "default" (with scope "app": collections "users" 8 and "orders"
  // 9) and "other", as commands/test_node.h's secure node has.
  void reset() {
    for (const auto& bucket : node_.buckets()) node_.remove_bucket(bucket->name());
    settings_.clear();
    order_.clear();
    config::BucketSpec spec;
    spec.type = config::BucketType::Ephemeral;
    spec.memory_quota_bytes = 64ull * 1024 * 1024;
    spec.flush_enabled = true;
    spec.name = "default";
    add(spec, cluster::CollectionsManifest(2, {{"_default", 0, {{"_default", 0}}},
                                               {"app", 8, {{"users", 8}, {"orders", 9}}}}));
    spec.name = "other";
    add(spec);
  }

  std::vector<config::BucketSpec> bucket_settings() const override {
    std::vector<config::BucketSpec> all;
    for (const std::string& name : order_) all.push_back(settings_.at(name));
    return all;
  }
  std::optional<config::BucketSpec> bucket_settings(std::string_view name) const override {
    const auto it = settings_.find(std::string(name));
    if (it == settings_.end()) return std::nullopt;
    return it->second;
  }
  http::AdminResult create_bucket(const config::BucketSpec& spec) override {
    check_settings(spec);
    if (node_.find_bucket(spec.name)) return {http::AdminError::Exists, ""};
    add(spec);
    return {};
  }
  http::AdminResult update_bucket(const config::BucketSpec& spec) override {
    check_settings(spec);
    const auto it = settings_.find(spec.name);
    if (it == settings_.end()) return {http::AdminError::NotFound, ""};
    TERN_FUZZ_CHECK(spec.type == it->second.type);
    TERN_FUZZ_CHECK(spec.eviction_policy == it->second.eviction_policy);
    it->second = spec;
    return {};
  }
  http::AdminResult drop_bucket(std::string_view name) override {
    if (!node_.remove_bucket(name)) return {http::AdminError::NotFound, ""};
    settings_.erase(std::string(name));
    std::erase(order_, std::string(name));
    return {};
  }
  http::AdminResult flush_bucket(std::string_view name) override {
    return node_.find_bucket(name) ? http::AdminResult{}
                                   : http::AdminResult{http::AdminError::NotFound, ""};
  }
  bool changes_persist() const override { return false; }

 private:
  // What the bucket form (bucket_form.h) lets through must be settings a bucket can have.
  static void check_settings(const config::BucketSpec& spec) {
    TERN_FUZZ_CHECK(!config::bucket_name_problem(spec.name));
    TERN_FUZZ_CHECK(config::durability_level_number(spec.durability_min_level));
    TERN_FUZZ_CHECK(spec.memory_quota_bytes >= 1024 * 1024);
    TERN_FUZZ_CHECK(spec.memory_quota_bytes <= config::kMaxBucketQuotaMb * 1024 * 1024);
    TERN_FUZZ_CHECK(spec.type == config::BucketType::Couchbase ||
                    spec.eviction_policy == config::EvictionPolicy::Value);
  }

  void add(const config::BucketSpec& spec,
           cluster::CollectionsManifest manifest = cluster::CollectionsManifest::default_only()) {
    auto bucket =
        std::make_shared<engine::Bucket>(spec.name, small_bucket_config(), std::move(manifest), 1);
    // No cluster map: the management routes never read one, and making it costs more than
    // the rest of an input.
    TERN_FUZZ_CHECK(node_.add_bucket(bucket));
    settings_[spec.name] = spec;
    order_.push_back(spec.name);
  }

  commands::Node& node_;
  std::map<std::string, config::BucketSpec> settings_;
  std::vector<std::string> order_;
};

// cpp-httplib's server, made to serve one stream: process_request is protected.
class StreamServer : public httplib::Server {
 public:
  bool serve(httplib::Stream& stream, bool& closed) {
    return process_request(stream, false, closed, [](httplib::Request&) {});
  }
};

// The input as the request bytes a client sent, and what the server writes back.
class InputStream final : public httplib::Stream {
 public:
  explicit InputStream(std::string_view input) : input_(input) {}

  bool is_readable() const override { return true; }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    size = std::min(size, input_.size());
    std::memcpy(ptr, input_.data(), size);
    input_.remove_prefix(size);
    return static_cast<ssize_t>(size);
  }
  ssize_t write(const char*, size_t size) override { return static_cast<ssize_t>(size); }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 40000;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 8091;
  }
  socket_t socket() const override { return INVALID_SOCKET; }
  bool empty() const { return input_.empty(); }

 private:
  std::string_view input_;
};

void check_answer(const httplib::Response& res) {
  TERN_FUZZ_CHECK(res.status >= 100 && res.status < 500);
  if (res.get_header_value("Content-Type").starts_with("application/json")) {
    rapidjson::Document json;
    json.Parse(res.body.data(), res.body.size());
    TERN_FUZZ_CHECK(!json.HasParseError());
  }
}

// One node, its admin and a server with every route, set up once.
struct Port {
  explicit Port(std::unique_ptr<commands::Node> made)
      : node(std::move(made)), admin(*node), context{*node, admin, {"127.0.0.1", 11210, 8091}, [] {
                                                       return std::string(
                                                           "# TYPE kv_ops counter\nkv_ops 0\n");
                                                     }} {
    server.set_payload_max_length(http::kMaxBodyBytes);
    server.set_exception_handler([](const httplib::Request& req, httplib::Response&,
                                    std::exception_ptr error) {
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s %s threw: %s\n", req.method.c_str(), req.path.c_str(), e.what());
      }
      TERN_FUZZ_CHECK(!"a handler threw");
    });
    server.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response&) {
      if (req.method != "GET" && req.method != "HEAD") changed = true;
      return httplib::Server::HandlerResponse::Unhandled;
    });
    server.set_post_routing_handler(
        [](const httplib::Request&, httplib::Response& res) { check_answer(res); });
    http::Routes routes(server, *node);
    http::add_all_routes(routes, context);
  }

  std::unique_ptr<commands::Node> node;
  MemoryAdmin admin;
  http::MgmtContext context;
  StreamServer server;
  // Whether a request may have changed the buckets since the last reset. Building them costs
  // more than most requests, so only such a request makes the next input reset them.
  bool changed = true;
};

std::unique_ptr<commands::Node> make_node(bool open) {
  auth::UserDirectory users;
  auto user = [](const char* name, std::vector<std::string> buckets, bool admin) {
    auth::User made{.name = name, .credentials = {}, .buckets = std::move(buckets), .admin = admin};
    // One PBKDF2 round: every request checks the password.
    for (auth::ScramAlgorithm algorithm : auth::kScramAlgorithmsStrongestFirst) {
      made.credentials.push_back(auth::derive_credential(algorithm, "password", "salt", 1));
    }
    return made;
  };
  if (!open) {
    users.add(user("Administrator", {"*"}, true));
    users.add(user("reader", {"default"}, false));
  }
  return std::make_unique<commands::Node>(commands::NodeSettings{.open_access = open},
                                          std::vector<std::unique_ptr<engine::Bucket>>{},
                                          std::move(users));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Port open_port(make_node(true));
  static Port secure_port(make_node(false));
  if (size == 0) return 0;
  Port& port = (data[0] & 1) != 0 ? open_port : secure_port;
  if (port.changed) {
    port.admin.reset();
    port.changed = false;
  }
  InputStream stream(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  for (int request = 0; request < 4 && !stream.empty(); ++request) {
    bool closed = false;
    if (!port.server.serve(stream, closed) || closed) break;
  }
  return 0;
}
