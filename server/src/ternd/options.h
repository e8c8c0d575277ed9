#pragma once
// ternd's command line.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tern::ternd {

inline constexpr size_t kMaxMemoryMb = size_t{1} << 30;               // 1 PiB
inline constexpr size_t kMaxItemSizeLimit = size_t{1024} * 1024 * 1024;  // 1 GiB, as memcached

struct Options {
  uint16_t port = 11210;  // 0 picks a free port
  std::string listen = "127.0.0.1";
  unsigned threads = 0;  // 0 until parsed: then the number of cores unless given
  size_t memory_mb = 1024;  // at most kMaxMemoryMb
  size_t max_item_size = 20ull * 1024 * 1024;  // at most kMaxItemSizeLimit
  size_t max_connections = 4096;
  double expiry_pager_interval = 60;  // pause between sweeps that remove expired items
  bool verbose = false;
};

// Parses the command line. After --help or --version it prints what was asked and returns
// nullopt with exit code 0; after a usage error it prints the error, naming the flag and
// what it accepts, and returns nullopt with exit code 64 (EX_USAGE).
std::optional<Options> parse_options(int argc, char** argv, int& exit_code);

}  // namespace tern::ternd
