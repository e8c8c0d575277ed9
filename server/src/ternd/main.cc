// ternd: serves the key-value engine over the memcached binary protocol until SIGINT/SIGTERM.

#include <atomic>
#include <csignal>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <spdlog/spdlog.h>

#include "commands/dispatcher.h"
#include "commands/node_metrics.h"
#include "common/log.h"
#include "engine/engine.h"
#include "engine/persistence.h"
#include "engine/expiry_pager.h"
#include "engine/item_pager.h"
#include "executor/executor_pool.h"
#include "http/mgmt_server.h"
#include "net/server.h"
#include "config/file_config.h"
#include "ternd/bucket_lifecycle.h"
#include "ternd/executor_stats.h"
#include "ternd/hash_password.h"
#include "ternd/node_builder.h"
#include "ternd/options.h"
#include "ternd/settings_stats.h"
#include "ternd/teardown_signals.h"
#include "ternd/tls_setup.h"
#include "ternd/version.h"

namespace {

using tern::ternd::kVersion;

std::string endpoint_text(const asio::ip::tcp::endpoint& endpoint) {
  auto address = endpoint.address();
  std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return host + ":" + std::to_string(endpoint.port());
}

}  // namespace

int main(int argc, char** argv) {
  int exit_code = 0;
  auto options = tern::ternd::parse_options(argc, argv, exit_code);
  if (!options) return exit_code;
  if (options->hash_password) return tern::ternd::run_hash_password(std::cin, std::cout, std::cerr);
  tern::log::init(options->verbose);
  // A peer that vanishes mid-write must cost an error code, not the process.
  std::signal(SIGPIPE, SIG_IGN);

  try {
    // First, so that it outlives everything torn down after the server.
    tern::ternd::TeardownSignals teardown_signals;

    std::optional<tern::config::FileConfig> file;
    if (options->config_path) {
      file = tern::config::load_config(*options->config_path);
      for (const std::string& warning : file->warnings) spdlog::warn("{}", warning);
      tern::ternd::apply_server_settings(file->server, *options);
      tern::ternd::apply_tls_settings(file->tls, *options);
    }
    if (!tern::ternd::resolve_tls(*options)) {
      spdlog::info("TLS ports off: no certificate (--tls-certificate or [tls] certificate)");
    }
    // Before the listeners, which use it, and so that a bad file stops start-up at once.
    const std::unique_ptr<tern::tls::TlsContext> tls = tern::ternd::make_tls_context(*options);
    // Background work: in each bucket, expired items are swept out, and memory pressure
    // wakes the evictor; persistent buckets warm up, flush and time durable writes out.
    // Declared before the node and the buckets' owner, so that it outlives the buckets,
    // whose tasks the owner stops before they go.
    tern::executor::ExecutorPool executor;
    auto node = tern::ternd::build_node(*options, file ? &*file : nullptr);
    node->start_range_scans(executor);
    tern::ternd::BucketLifecycle buckets(*options, executor, *node);
    // "ready" is logged once every persistent bucket is warm (at once without one): until
    // then their data commands answer Etmpfail, so scripts and test harnesses wait for it.
    buckets.open(tern::ternd::configured_buckets(*options, file ? &*file : nullptr),
                 [] { spdlog::info("ternd ready: every bucket is warm"); });
    tern::ternd::ExecutorStats executor_stats(executor);

    tern::commands::Dispatcher dispatcher(*node);

    tern::net::ServerConfig server_config;
    server_config.listen = options->listen;
    server_config.port = options->port;
    server_config.threads = options->threads;
    server_config.max_item_size = options->max_item_size;
    server_config.max_connections = options->max_connections;
    server_config.tls_port = options->tls_port;
    server_config.tls = tls.get();
    tern::ternd::IoBackend io = options->io;
    auto loops = tern::ternd::start_worker_loops(io, options->threads);
    tern::net::Server server(server_config, dispatcher, kVersion, std::move(loops));
    if (tls) server.on_hangup([&tls] { tern::ternd::reload_tls(*tls); });
    teardown_signals.hold(/*hangup=*/tls != nullptr);

    auto endpoint = server.local_endpoint();
    tern::http::MgmtContext mgmt_context{*node, buckets, {options->listen, endpoint.port(), 0}, {}};
    // GET /metrics: every bucket as it is at the scrape, then the node's statistics.
    mgmt_context.metrics_text = [&node, &dispatcher] {
      return tern::commands::render_prometheus(*node, dispatcher.stat_providers());
    };
    // The management port, and its twin over TLS: same routes, same context.
    auto management_port =
        [&](std::optional<uint16_t> port,
            const tern::tls::TlsContext* with) -> std::unique_ptr<tern::http::MgmtServer> {
      if (!port) return nullptr;
      tern::http::MgmtServerConfig mgmt_config;
      mgmt_config.listen = options->listen;
      mgmt_config.port = *port;
      mgmt_config.idle_timeout = std::chrono::seconds(options->mgmt_idle_timeout);
      mgmt_config.tls = with;
      return std::make_unique<tern::http::MgmtServer>(mgmt_config, mgmt_context);
    };
    std::unique_ptr<tern::http::MgmtServer> mgmt = management_port(options->mgmt_port, nullptr);
    std::unique_ptr<tern::http::MgmtServer> mgmt_tls =
        management_port(options->mgmt_tls_port, tls.get());
    const std::optional<asio::ip::tcp::endpoint> tls_endpoint = server.tls_endpoint();
    const tern::ternd::BoundPorts ports{
        .kv = endpoint.port(),
        .kv_tls = tls_endpoint ? std::optional<uint16_t>(tls_endpoint->port()) : std::nullopt,
        .mgmt = mgmt ? std::optional<uint16_t>(mgmt->port()) : std::nullopt,
        .mgmt_tls = mgmt_tls ? std::optional<uint16_t>(mgmt_tls->port()) : std::nullopt};
    buckets.set_ports(ports.kv, ports.mgmt, {.kv = ports.kv_tls, .mgmt = ports.mgmt_tls});
    tern::ternd::SettingsStats settings(*options, ports);
    dispatcher.add_stat_provider(server.stats());
    dispatcher.add_stat_provider(settings);
    dispatcher.add_stat_provider(executor_stats);

    spdlog::info("ternd {} listening on {} with {} threads on {}", kVersion,
                 endpoint_text(endpoint), options->threads, tern::ternd::name_of(io));
    if (mgmt) {
      mgmt->start();
      spdlog::info("management port listening on {}",
                   endpoint_text({endpoint.address(), mgmt->port()}));
    }
    if (tls_endpoint) spdlog::info("TLS listening on {}", endpoint_text(*tls_endpoint));
    if (mgmt_tls) {
      mgmt_tls->start();
      spdlog::info("management TLS port listening on {}",
                   endpoint_text({endpoint.address(), mgmt_tls->port()}));
    }
    server.run();

    // No management request changes anything from here on; then every bucket's tasks stop
    // and what persistent buckets still have queued is written.
    mgmt.reset();
    mgmt_tls.reset();
    buckets.stop_all();
  } catch (const std::exception& error) {
    spdlog::error("ternd: {}", error.what());
    return 1;
  }
  // The last line of a clean stop: what scripts/cluster.sh checks for the nodes it stops,
  // whose exit status it cannot see.
  spdlog::info("ternd stopped cleanly");
  return 0;
}
