#pragma once
// Every group of management routes, one file each; MgmtServer registers them all with
// add_all_routes(). A new group declares its function here and adds one call to
// add_all_routes() (route_groups.cc).

#include "http/mgmt_context.h"
#include "http/routes.h"

namespace tern::http {

// GET /pools, /pools/default, /pools/nodes (cluster_routes.cc).
void add_cluster_routes(Routes& routes, MgmtContext& context);
// /pools/default/buckets[/<b>[/controller/doFlush]] (bucket_routes.cc).
void add_bucket_routes(Routes& routes, MgmtContext& context);
// /pools/default/buckets/<b>/scopes[/<s>[/collections[/<c>]]] (collection_routes.cc).
void add_collection_routes(Routes& routes, MgmtContext& context);
// GET /metrics, the Prometheus text of MgmtContext::metrics_text (metrics_routes.cc).
void add_metrics_routes(Routes& routes, MgmtContext& context);
// .../scopes/<s>/collections/<c>/docs[/<id>]: the console's document browser
// (document_routes.cc).
void add_document_routes(Routes& routes, MgmtContext& context);
// /, /ui and /ui/<file>: the web console's embedded files, public (console_routes.cc).
void add_console_routes(Routes& routes, MgmtContext& context);

// Every group above: the management port's whole routing table.
void add_all_routes(Routes& routes, MgmtContext& context);

}  // namespace tern::http
