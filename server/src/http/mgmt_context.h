#pragma once
// What every management route may use: the node (buckets, users), the admin side of the
// node (NodeAdmin), where the node listens, and the metrics exposition.

#include <cstdint>
#include <functional>
#include <string>

#include "commands/node.h"
#include "http/node_admin.h"

namespace tern::http {

struct NodeAddress {
  std::string host;  // the listen address, as clients reach it
  uint16_t kv_port = 0;
  uint16_t mgmt_port = 0;      // filled in once the management port is bound
  uint16_t mgmt_tls_port = 0;  // and the management TLS port (0: not open)
};

struct MgmtContext {
  commands::Node& node;
  NodeAdmin& admin;
  NodeAddress address;
  // Prometheus text of every metric (the metrics registry's view); empty until set.
  std::function<std::string()> metrics_text;
};

}  // namespace tern::http
