#include "http/node_json.h"

#include <fmt/format.h>

namespace tern::http {

namespace {

bool is_wildcard(const std::string& host) { return host == "0.0.0.0" || host == "::"; }

std::string bracketed(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

// The host part of a Host header: "[::1]:8091" -> "[::1]", "localhost:8091" -> "localhost".
std::string host_of(const std::string& header) {
  if (header.starts_with('[')) return header.substr(0, header.find(']') + 1);
  return header.substr(0, header.find(':'));
}

}  // namespace

std::string node_hostname(const httplib::Request& req, const MgmtContext& context) {
  std::string host = bracketed(context.address.host);
  if (is_wildcard(context.address.host)) {
    const std::string header = host_of(req.get_header_value("Host"));
    host = header.empty() ? "127.0.0.1" : header;
  }
  return fmt::format("{}:{}", host, context.address.mgmt_port);
}

std::string reported_version(const MgmtContext& context) {
  return "7.6.0-" + context.node.settings().version;
}

void write_node(JsonWriter& out, const httplib::Request& req, const MgmtContext& context) {
  out.StartObject();
  out.Key("hostname");
  out.String(node_hostname(req, context).c_str());
  out.Key("thisNode");
  out.Bool(true);
  out.Key("clusterMembership");
  out.String("active");
  out.Key("status");
  out.String("healthy");
  out.Key("version");
  out.String(reported_version(context).c_str());
  out.Key("os");
  out.String("x86_64-pc-linux-gnu");
  out.Key("services");
  out.StartArray();
  out.String("kv");
  out.EndArray();
  out.Key("ports");
  out.StartObject();
  out.Key("direct");
  out.Uint(context.address.kv_port);
  // Couchbase Server's name for its management TLS port.
  if (context.address.mgmt_tls_port != 0) {
    out.Key("httpsMgmt");
    out.Uint(context.address.mgmt_tls_port);
  }
  out.EndObject();
  out.EndObject();
}

}  // namespace tern::http
