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
#include "common/log.h"
#include "engine/engine.h"
#include "engine/persistence.h"
#include "engine/expiry_pager.h"
#include "engine/item_pager.h"
#include "executor/executor_pool.h"
#include "net/server.h"
#include "config/file_config.h"
#include "ternd/bucket_tasks_stop.h"
#include "ternd/executor_stats.h"
#include "ternd/hash_password.h"
#include "ternd/node_builder.h"
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
    }
    // Background work: in each bucket, expired items are swept out, and memory pressure
    // wakes the evictor; persistent buckets warm up, flush and time durable writes out.
    // Declared before the node, so that it outlives the buckets, whose destructors cancel
    // their own tasks; `stop_bucket_tasks` stops every bucket's tasks before the buckets go.
    tern::executor::ExecutorPool executor;
    auto node = tern::ternd::build_node(*options, file ? &*file : nullptr);
    tern::ternd::BucketTasksStop stop_bucket_tasks(executor, *node);
    // "ready" is logged once every persistent bucket is warm (at once without one): until
    // then their data commands answer Etmpfail, so scripts and test harnesses wait for it.
    size_t persistent_buckets = 0;
    for (const auto& bucket : node->buckets()) persistent_buckets += bucket->persistence() ? 1 : 0;
    std::atomic<size_t> warming = persistent_buckets;
    const auto log_ready = [] { spdlog::info("ternd ready: every bucket is warm"); };
    const auto bucket_warm = [&warming, log_ready] {
      if (warming.fetch_sub(1) == 1) log_ready();
    };
    for (const auto& bucket : node->buckets()) {
      tern::engine::Engine& documents = bucket->documents();
      executor.schedule(std::make_shared<tern::engine::ExpiryPager>(
                            documents, options->expiry_pager_interval, bucket->executor_owner()),
                        options->expiry_pager_interval);
      tern::engine::attach_item_pager(documents, executor, bucket->executor_owner());
      // A persistent bucket warms up from disk, then flushes what changes.
      if (tern::engine::Persistence* persistence = bucket->persistence()) {
        persistence->start(executor, bucket->executor_owner(), bucket_warm);
        persistence->flusher()->set_fsync_per_write(options->fsync_per_write);
      }
    }
    tern::ternd::ExecutorStats executor_stats(executor);

    tern::commands::Dispatcher dispatcher(*node);

    tern::net::ServerConfig server_config;
    server_config.listen = options->listen;
    server_config.port = options->port;
    server_config.threads = options->threads;
    server_config.max_item_size = options->max_item_size;
    server_config.max_connections = options->max_connections;
    tern::ternd::IoBackend io = options->io;
    auto loops = tern::ternd::start_worker_loops(io, options->threads);
    tern::net::Server server(server_config, dispatcher, kVersion, std::move(loops));
    teardown_signals.hold();

    auto endpoint = server.local_endpoint();
    tern::ternd::install_single_node_maps(*node, endpoint.port());
    tern::ternd::SettingsStats settings(*options, endpoint.port());
    dispatcher.add_stat_provider(server.stats());
    dispatcher.add_stat_provider(settings);
    dispatcher.add_stat_provider(executor_stats);

    spdlog::info("ternd {} listening on {} with {} threads on {}", kVersion,
                 endpoint_text(endpoint), options->threads, tern::ternd::name_of(io));
    if (persistent_buckets == 0) log_ready();
    server.run();

    // A clean stop loses nothing acknowledged: no request runs any more, so once a bucket's
    // tasks are stopped (unregister waits for a running flush) what is still queued is the
    // last of it.
    for (const auto& bucket : node->buckets()) {
      tern::engine::Persistence* persistence = bucket->persistence();
      if (persistence == nullptr) continue;
      executor.unregister(bucket->executor_owner());
      persistence->flush_before_exit();
      spdlog::info("bucket {}: flushed to disk", bucket->name());
    }
  } catch (const std::exception& error) {
    spdlog::error("ternd: {}", error.what());
    return 1;
  }
  // The last line of a clean stop: what scripts/cluster.sh checks for the nodes it stops,
  // whose exit status it cannot see.
  spdlog::info("ternd stopped cleanly");
  return 0;
}
