#include "http/route_groups.h"

namespace tern::http {

void add_all_routes(Routes& routes, MgmtContext& context) {
  add_cluster_routes(routes, context);
  add_bucket_routes(routes, context);
  add_collection_routes(routes, context);
  add_document_routes(routes, context);
  add_metrics_routes(routes, context);
  add_console_routes(routes, context);
}

}  // namespace tern::http
