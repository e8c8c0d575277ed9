#pragma once
// The node as the cluster manager describes it (one entry of /pools/default's "nodes"), and
// the host clients reach it by.

#include <httplib.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "http/mgmt_context.h"

namespace tern::http {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// "host:port" of the management port as this request reached it: the listen address, or,
// when that is a wildcard (0.0.0.0, ::), the host the client named in its Host header.
std::string node_hostname(const httplib::Request& req, const MgmtContext& context);

// Writes one node object: hostname, version, services, ports, status, membership.
void write_node(JsonWriter& out, const httplib::Request& req, const MgmtContext& context);

// The version the node reports to clients: a Couchbase Server 7.6 release line (the SDKs
// gate features on it), with ternd's own version after it.
std::string reported_version(const MgmtContext& context);

}  // namespace tern::http
