#pragma once
// ternd's command line. Buckets, users and the [server] settings can also come from a TOML
// file (--config, see docs/configuration.md); where both set something, the command line wins.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "config/file_config.h"
#include "ternd/io_backend.h"

namespace tern::ternd {

inline constexpr size_t kMaxMemoryMb = size_t{1} << 30;                  // 1 PiB
inline constexpr size_t kMaxItemSizeLimit = size_t{1024} * 1024 * 1024;  // 1 GiB, as memcached

// The backend that won `make bench-server` (docs/performance.md: io_uring, by 1.2x in
// throughput and 0.83x in CPU per request against epoll). A kernel that refuses io_uring
// gets one warning and epoll.
inline constexpr IoBackend kDefaultIoBackend = IoBackend::Uring;

struct Options {
  uint16_t port = 11210;  // 0 picks a free port
  // The management (HTTP) port; nullopt when turned off ("none"); 0 picks a free port.
  std::optional<uint16_t> mgmt_port = 8091;
  // The TLS ports, KV and management: nullopt when off ("none"); 0 picks a free port. They
  // open only with a certificate (resolve_tls).
  std::optional<uint16_t> tls_port = 11207;
  std::optional<uint16_t> mgmt_tls_port = 18091;
  // The --tls-* flags, then the config file's [tls] for what they left unset.
  config::TlsSpec tls;
  // Seconds a management-port connection may stay idle between requests before it is
  // closed (http::MgmtServerConfig::idle_timeout).
  unsigned mgmt_idle_timeout = 2;
  std::string listen = "127.0.0.1";
  unsigned threads = 0;  // 0 until parsed: then the number of cores unless given
  IoBackend io = kDefaultIoBackend;
  size_t memory_mb = 1024;                     // at most kMaxMemoryMb
  size_t max_item_size = 20ull * 1024 * 1024;  // at most kMaxItemSizeLimit
  size_t max_connections = 4096;
  double expiry_pager_interval = 60;  // pause between sweeps that remove expired items
  size_t range_scan_max = 128;          // range scans a bucket holds at once
  unsigned range_scan_idle_timeout = 60;  // seconds a range scan may go without a continue
  bool verbose = false;
  // --fsync-per-write: every persistent bucket's flusher writes each change in a synced write
  // of its own (Flusher::set_fsync_per_write). A benchmark baseline, not for use.
  bool fsync_per_write = false;
  // --config: a file that existed and was readable when the command line was parsed.
  std::optional<std::string> config_path;
  // Where couchbase buckets keep their files (one directory per bucket): --data-dir, else
  // the config file's [server] data_dir. Only with --config: without one, ternd serves an
  // ephemeral bucket and --data-dir is a usage error.
  std::optional<std::string> data_dir;
  // --hash-password: run run_hash_password (hash_password.h) instead of a server.
  bool hash_password = false;
  // Whether --listen and --port were given, so that the config file's do not replace them.
  bool listen_given = false;
  bool port_given = false;
  bool mgmt_port_given = false;
  bool tls_port_given = false;
  bool mgmt_tls_port_given = false;
  // Whether a TLS port number was asked for, by a flag or by the config file: without a
  // certificate that is an error, not a port silently left closed.
  bool tls_ports_asked = false;
};

// Parses the command line. After --help or --version it prints what was asked and returns
// nullopt with exit code 0; after a usage error it prints the error, naming the flag and
// what it accepts, and returns nullopt with exit code 64 (EX_USAGE).
// A --config file that is missing, a directory or unreadable is a usage error too (64); what
// is inside it is checked later, by config::load_config.
std::optional<Options> parse_options(int argc, char** argv, int& exit_code);

// Takes listen, port and data_dir from a config file's [server] table, except those the
// command line gave: the file holds a deployment's settings, a flag a one-off change.
void apply_server_settings(const config::ServerSpec& server, Options& options);

// Takes the [tls] settings the command line left unset from a config file.
void apply_tls_settings(const config::TlsSpec& tls, Options& options);

// Settles the TLS ports once the flags and the file are merged: without a certificate both
// are turned off (returns false; the caller logs it). Throws std::runtime_error, naming the
// flags and keys, for a TLS port asked for without a certificate, a certificate without a
// private key (or the reverse), or client_auth "enabled"/"mandatory" without a client CA.
bool resolve_tls(Options& options);

}  // namespace tern::ternd
