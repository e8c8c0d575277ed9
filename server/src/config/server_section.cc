#include "config/server_section.h"

#include <arpa/inet.h>

#include <algorithm>

#include <fmt/format.h>

namespace tern::config {

namespace {

// inet_pton rather than asio, which config/ does not depend on: the numeric forms are what
// a configuration needs (asio would also take an IPv6 zone such as "fe80::1%eth0").
bool is_ip_address(const std::string& text) {
  unsigned char address[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, text.c_str(), address) == 1 ||
         inet_pton(AF_INET6, text.c_str(), address) == 1;
}

// A port key that may also be "none": unset when missing, nullopt for "none".
std::optional<std::optional<uint16_t>> port_or_none(const TableReader& table,
                                                    std::string_view key) {
  if (const toml::node* value = table.node().get(key); value && value->is_string()) {
    if (value->value_or(std::string()) != "none") {
      table.fail(key, "must be a port number 0-65535 or \"none\"");
    }
    return std::optional<uint16_t>();
  }
  if (auto port = table.integer(key, 0, 65535)) return static_cast<uint16_t>(*port);
  return std::nullopt;
}

}  // namespace

ServerSpec read_server(const TableReader& server_table, const std::vector<BucketSpec>& buckets) {
  ServerSpec server;
  server.listen = server_table.string("listen");
  if (server.listen && !is_ip_address(*server.listen)) {
    server_table.fail("listen",
                      fmt::format("must be an IPv4 or IPv6 address (got '{}')", *server.listen));
  }
  if (auto port = server_table.integer("port", 0, 65535)) {
    server.port = static_cast<uint16_t>(*port);
  }
  server.mgmt_port = port_or_none(server_table, "mgmt_port");
  server.tls_port = port_or_none(server_table, "tls_port");
  server.mgmt_tls_port = port_or_none(server_table, "mgmt_tls_port");
  server.allow_plain_auth = server_table.boolean("allow_plain_auth").value_or(false);
  server.anonymous_bucket = server_table.string("anonymous_bucket");
  if (server.anonymous_bucket &&
      std::none_of(buckets.begin(), buckets.end(), [&server](const BucketSpec& bucket) {
        return bucket.name == *server.anonymous_bucket;
      })) {
    server_table.fail("anonymous_bucket",
                      fmt::format("no bucket '{}' is declared", *server.anonymous_bucket));
  }
  server.data_dir = server_table.string("data_dir");
  if (server.data_dir && server.data_dir->empty()) {
    server_table.fail("data_dir", "must not be empty (\".\" is the current directory)");
  }
  return server;
}

}  // namespace tern::config
