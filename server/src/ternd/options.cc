#include "ternd/options.h"

#include <algorithm>
#include <thread>

#include <CLI/CLI.hpp>

namespace tern::ternd {

std::optional<Options> parse_options(int argc, char** argv, int& exit_code) {
  Options options;
  options.threads = std::max(1u, std::thread::hardware_concurrency());

  CLI::App app{"ternd: a key-value server speaking the memcached binary protocol"};
  app.add_option("--port", options.port, "TCP port to listen on (0 picks a free one)")
      ->capture_default_str();
  app.add_option("--listen", options.listen, "address to listen on")->capture_default_str();
  app.add_option("--threads", options.threads, "worker threads (default: number of cores)")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  // Bounds keep the byte arithmetic in range: the quota in bytes must fit 64 bits with room,
  // and a value must fit the protocol's 32-bit body length with its header parts.
  app.add_option("--memory-mb", options.memory_mb, "memory quota for items, in MiB")
      ->check(CLI::Range(size_t{1}, kMaxMemoryMb))
      ->capture_default_str();
  app.add_option("--max-item-size", options.max_item_size, "largest value accepted, in bytes")
      ->check(CLI::Range(size_t{1}, kMaxItemSizeLimit))
      ->capture_default_str();
  app.add_option("--max-connections", options.max_connections,
                 "connections beyond this are refused")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--expiry-pager-interval", options.expiry_pager_interval,
                 "pause between sweeps that remove expired items")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--verbose,-v", options.verbose, "log at debug level");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    exit_code = app.exit(error);
    return std::nullopt;
  }
  return options;
}

}  // namespace tern::ternd
