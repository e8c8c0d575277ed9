// GET /metrics: every statistic of the node in the Prometheus text format 0.0.4, for an
// administrator or a user granted some bucket (as Couchbase's stats reader role may scrape).
// The text comes from MgmtContext::metrics_text (commands::render_prometheus over the node's
// buckets and the KV port's statistics, wired by main).

#include <string>

#include "http/route_groups.h"
#include "metrics/prometheus_view.h"

namespace tern::http {

void add_metrics_routes(Routes& routes, MgmtContext& context) {
  routes.get("/metrics", Access{Level::ReadAny, "cluster.stats!read"},
             [&context](const httplib::Request&, httplib::Response& res, const Caller&) {
               const std::string text = context.metrics_text ? context.metrics_text() : "";
               res.set_content(text, std::string(metrics::kPrometheusContentType));
             });
}

}  // namespace tern::http
