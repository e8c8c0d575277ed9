// ternd: serves the key-value engine over the memcached binary protocol until SIGINT/SIGTERM.

#include <csignal>
#include <exception>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands/dispatcher.h"
#include "common/log.h"
#include "engine/engine.h"
#include "engine/expiry_pager.h"
#include "engine/item_pager.h"
#include "executor/executor_pool.h"
#include "net/server.h"
#include "ternd/executor_stats.h"
#include "ternd/options.h"
#include "ternd/settings_stats.h"
#include "ternd/teardown_signals.h"
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
  tern::log::init(options->verbose);
  // A peer that vanishes mid-write must cost an error code, not the process.
  std::signal(SIGPIPE, SIG_IGN);

  try {
    // First, so that it outlives everything torn down after the server.
    tern::ternd::TeardownSignals teardown_signals;

    tern::engine::Config engine_config;
    engine_config.memory_quota_bytes = options->memory_mb * 1024 * 1024;
    engine_config.max_item_size = options->max_item_size;
    tern::engine::Engine engine(engine_config);

    // Background work: expired items are swept out, and memory pressure wakes the evictor.
    // Declared after the engine so that its tasks stop before the engine goes.
    tern::executor::ExecutorPool executor;
    executor.schedule(std::make_shared<tern::engine::ExpiryPager>(
                          engine, options->expiry_pager_interval, tern::executor::kServerOwner),
                      options->expiry_pager_interval);
    tern::engine::attach_item_pager(engine, executor, tern::executor::kServerOwner);
    tern::ternd::ExecutorStats executor_stats(executor);

    tern::commands::Dispatcher dispatcher(engine, kVersion);

    tern::net::ServerConfig server_config;
    server_config.listen = options->listen;
    server_config.port = options->port;
    server_config.threads = options->threads;
    server_config.max_item_size = options->max_item_size;
    server_config.max_connections = options->max_connections;
    tern::net::Server server(server_config, dispatcher, kVersion);
    teardown_signals.hold();

    auto endpoint = server.local_endpoint();
    tern::ternd::SettingsStats settings(*options, endpoint.port());
    dispatcher.add_stat_provider(server.stats());
    dispatcher.add_stat_provider(settings);
    dispatcher.add_stat_provider(executor_stats);

    spdlog::info("ternd {} listening on {} with {} threads", kVersion, endpoint_text(endpoint),
                 options->threads);
    server.run();
  } catch (const std::exception& error) {
    spdlog::error("ternd: {}", error.what());
    return 1;
  }
  return 0;
}
