// GET /pools, /pools/default and /pools/nodes: what test harnesses and the SDKs read first
// about a cluster. ternd is a cluster of one node serving the data (kv) service only.

#include "http/answer.h"
#include "http/node_json.h"
#include "http/route_groups.h"

namespace tern::http {

namespace {

void answer_pools(const httplib::Request&, httplib::Response& res, const Caller& caller,
                  const MgmtContext& context) {
  rapidjson::StringBuffer buffer;
  JsonWriter out(buffer);
  out.StartObject();
  out.Key("isAdminCreds");
  out.Bool(caller.admin);
  out.Key("isEnterprise");
  out.Bool(false);
  out.Key("implementationVersion");
  out.String(reported_version(context).c_str());
  out.Key("componentsVersion");
  out.StartObject();
  out.Key("ternd");
  out.String(context.node.settings().version.c_str());
  out.EndObject();
  out.Key("pools");
  out.StartArray();
  out.StartObject();
  out.Key("name");
  out.String("default");
  out.Key("uri");
  out.String("/pools/default");
  out.EndObject();
  out.EndArray();
  out.EndObject();
  answer_json(res, 200, buffer.GetString());
}

void answer_pool(const httplib::Request& req, httplib::Response& res, const MgmtContext& context) {
  rapidjson::StringBuffer buffer;
  JsonWriter out(buffer);
  out.StartObject();
  out.Key("name");
  out.String("default");
  out.Key("nodes");
  out.StartArray();
  write_node(out, req, context);
  out.EndArray();
  out.Key("buckets");
  out.StartObject();
  out.Key("uri");
  out.String("/pools/default/buckets");
  out.EndObject();
  out.Key("clusterCapabilitiesVer");
  out.StartArray();
  out.Uint(1);
  out.Uint(0);
  out.EndArray();
  out.Key("clusterCapabilities");
  out.StartObject();
  out.EndObject();
  out.Key("balanced");
  out.Bool(true);
  out.Key("rebalanceStatus");
  out.String("none");
  out.EndObject();
  answer_json(res, 200, buffer.GetString());
}

}  // namespace

void add_cluster_routes(Routes& routes, MgmtContext& context) {
  routes.get("/pools", {Level::Authenticated, "cluster.pools!read"},
             [&context](const httplib::Request& req, httplib::Response& res, const Caller& caller) {
               answer_pools(req, res, caller, context);
             });
  for (const char* path : {"/pools/default", "/pools/nodes"}) {
    routes.get(path, {Level::Authenticated, "cluster.pools!read"},
               [&context](const httplib::Request& req, httplib::Response& res, const Caller&) {
                 answer_pool(req, res, context);
               });
  }
}

}  // namespace tern::http
