#pragma once
// Reads the [server] table into a ServerSpec. Internal to config/.
//
//   [server]
//   listen = "127.0.0.1"        # an IPv4 or IPv6 address
//   port = 11210                # 0 picks a free port
//   allow_plain_auth = false    # SASL PLAIN
//   anonymous_bucket = "default"
//   data_dir = "data"           # couchbase buckets' files; relative to the current directory
//   mgmt_port = 8091            # 0 picks a free port, "none" turns it off
//   tls_port = 11207            # as mgmt_port; TLS ports open only with a [tls] certificate
//   mgmt_tls_port = 18091       # as tls_port

#include <string_view>
#include <vector>

#include "config/file_config.h"
#include "config/table_reader.h"

namespace tern::config {

// `buckets` are the file's buckets: anonymous_bucket must name one of them. Throws
// ConfigError for an address that is not an IP address, a port out of range, or an unknown
// anonymous bucket, or an empty data_dir.
ServerSpec read_server(const TableReader& server, const std::vector<BucketSpec>& buckets);

// The keys the [server] table accepts, for its TableReader.
inline const std::vector<std::string_view> kServerKeys = {
    "listen",   "port",      "allow_plain_auth", "anonymous_bucket",
    "data_dir", "mgmt_port", "tls_port",         "mgmt_tls_port"};

}  // namespace tern::config
