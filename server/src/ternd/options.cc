#include "ternd/options.h"

#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include <CLI/CLI.hpp>
#include <asio/ip/address.hpp>
#include <fmt/format.h>

#include "ternd/version.h"

namespace tern::ternd {

namespace {

// Beyond any default descriptor limit (Linux's fs.nr_open), so never a real constraint.
constexpr size_t kMaxConnectionsLimit = size_t{1} << 20;
// The pager's pause must be a finite, positive number of milliseconds for the executor.
constexpr double kMinPagerSeconds = 0.001;
constexpr double kMaxPagerSeconds = 365.0 * 24 * 3600;

// --help shows what each flag accepts beside it, and its default at the end of its line,
// flags without a value included.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* option) const override {
    const std::string& accepted = option->get_option_text();
    return accepted.empty() ? "" : " " + accepted;
  }

  std::string make_option_desc(const CLI::Option* option) const override {
    const std::string& default_text = option->get_default_str();
    if (default_text.empty()) return option->get_description();
    return option->get_description() + " (default: " + default_text + ")";
  }
};

// Reads the value itself, so that every bad value (not a number, negative, too big) gets the
// same message naming the allowed range; CLI11 puts the flag's name in front of it.
template <typename Number>
CLI::Validator within(Number min, Number max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        Number value{};
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        // Written so that NaN fails the range test.
        if (error == std::errc{} && stop == end && value >= min && value <= max) return "";
        const char* kind = std::is_integral_v<Number> ? "a whole number" : "a number";
        return fmt::format("must be {} {}-{} (got '{}')", kind, min, max, text);
      },
      "");
}

CLI::Validator ip_address() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        asio::error_code error;
        asio::ip::make_address(text, error);
        if (!error) return "";
        return fmt::format("must be an IPv4 or IPv6 address (got '{}')", text);
      },
      "");
}

// Checked when the command line is read, so that a mistyped path is a usage error at once;
// whether the contents make sense is config::load_config's business.
CLI::Validator readable_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        struct stat info {};
        if (::stat(path.c_str(), &info) != 0 || ::access(path.c_str(), R_OK) != 0) {
          return fmt::format("cannot read '{}': {}", path, std::strerror(errno));
        }
        if (S_ISDIR(info.st_mode)) return fmt::format("'{}' is a directory, not a file", path);
        return "";
      },
      "");
}

CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "must not be empty (\".\" is the current directory)" : "";
      },
      "");
}

CLI::Validator io_backend() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (parse_io_backend(text)) return "";
        return fmt::format("must be epoll or uring (got '{}')", text);
      },
      "");
}

// "none", or a port number 0-65535.
std::optional<uint16_t> parse_port_or_none(const std::string& text) {
  unsigned port = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text == "none" || error != std::errc() || end != text.data() + text.size() || port > 65535) {
    return std::nullopt;
  }
  return static_cast<uint16_t>(port);
}

CLI::Validator port_or_none() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text == "none" || parse_port_or_none(text)) return "";
        return fmt::format("must be a whole number 0-65535 or none (got '{}')", text);
      },
      "");
}

CLI::Validator client_auth_mode() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        for (std::string_view mode : config::kClientAuthModes) {
          if (text == mode) return "";
        }
        return fmt::format("must be disabled, enabled or mandatory (got '{}')", text);
      },
      "");
}

// A bare --verbose reaches the check as "true"; --verbose=VALUE as VALUE.
CLI::Validator switch_value() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        for (const char* accepted : {"true", "false", "yes", "no", "on", "off", "1", "0"}) {
          if (text == accepted) return "";
        }
        return fmt::format("takes no value, or one of true/false/yes/no/on/off/1/0 (got '{}')",
                           text);
      },
      "");
}

template <typename Number>
CLI::Option* add_number(CLI::App& app, const std::string& flag, Number& target, Number min,
                        Number max, const std::string& description) {
  return app.add_option(flag, target, description)
      ->check(within(min, max))
      ->option_text(fmt::format("{}-{}", min, max))
      ->capture_default_str();
}

}  // namespace

std::optional<Options> parse_options(int argc, char** argv, int& exit_code) {
  Options options;
  options.threads = std::max(1u, std::thread::hardware_concurrency());

  CLI::App app{"ternd: a key-value server speaking the memcached binary protocol", "ternd"};
  app.formatter(std::make_shared<HelpFormatter>());
  app.get_formatter()->column_width(32);
  app.set_help_flag("-h,--help", "print this help and exit");
  app.set_version_flag("--version", std::string("ternd ") + kVersion, "print the version and exit");

  CLI::Option* config =
      app.add_option("--config", options.config_path, "TOML file of buckets, users and settings")
          ->check(readable_file())
          ->option_text("FILE")
          ->default_str("one bucket 'default', no login");
  // Requires --config: without a file the one bucket is ephemeral, and a data directory that
  // silently held nothing would mislead whoever expects their documents there.
  app.add_option("--data-dir", options.data_dir,
                 "directory of the couchbase buckets' files, one folder per bucket")
      ->check(non_empty())
      ->needs(config)
      ->option_text("DIR")
      ->default_str("[server] data_dir of --config");
  app.add_flag("--hash-password", options.hash_password,
               "read a password on stdin, print its SCRAM lines for --config, and exit")
      ->check(switch_value());
  CLI::Option* port = add_number<uint16_t>(app, "--port", options.port, 0, 65535,
                                           "TCP port to listen on; 0 picks a free one");
  std::string mgmt_port_text = "8091";
  CLI::Option* mgmt_port =
      app.add_option("--mgmt-port", mgmt_port_text,
                     "management (HTTP) port: REST, /metrics, console; 0 picks a free one")
          ->check(port_or_none())
          ->option_text("0-65535|none")
          ->capture_default_str();
  std::string tls_port_text = "11207";
  CLI::Option* tls_port =
      app.add_option("--tls-port", tls_port_text,
                     "KV port over TLS (with --tls-certificate); 0 picks a free one")
          ->check(port_or_none())
          ->option_text("0-65535|none")
          ->capture_default_str();
  std::string mgmt_tls_port_text = "18091";
  CLI::Option* mgmt_tls_port =
      app.add_option("--mgmt-tls-port", mgmt_tls_port_text,
                     "management port over TLS (HTTPS, with --tls-certificate)")
          ->check(port_or_none())
          ->option_text("0-65535|none")
          ->capture_default_str();
  app.add_option("--tls-certificate", options.tls.certificate,
                 "PEM certificate chain (leaf first) of the TLS ports")
      ->check(readable_file())
      ->option_text("FILE")
      ->default_str("[tls] certificate of --config; none: TLS ports off");
  app.add_option("--tls-private-key", options.tls.private_key, "PEM private key of the certificate")
      ->check(readable_file())
      ->option_text("FILE")
      ->default_str("[tls] private_key of --config");
  app.add_option("--tls-client-ca", options.tls.client_ca,
                 "PEM CAs that client certificates must chain to")
      ->check(readable_file())
      ->option_text("FILE")
      ->default_str("[tls] client_ca of --config");
  app.add_option("--tls-client-auth", options.tls.client_auth,
                 "client certificates: ignored, accepted (log in as their CN) or required")
      ->check(client_auth_mode())
      ->option_text("disabled|enabled|mandatory")
      ->default_str("disabled");
  add_number(app, "--mgmt-idle-timeout", options.mgmt_idle_timeout, 1u, 3600u,
             "seconds an idle management-port connection stays open");
  CLI::Option* listen =
      app.add_option("--listen", options.listen, "IPv4 or IPv6 address to listen on")
          ->check(ip_address())
          ->option_text("ADDRESS")
          ->capture_default_str();
  add_number(app, "--threads", options.threads, 1u, 1024u, "network worker threads")
      ->default_str("number of cores");
  std::string io_text(name_of(options.io));
  app.add_option("--io", io_text,
                 "I/O backend: uring (io_uring; epoll if the kernel refuses it) or epoll")
      ->check(io_backend())
      ->option_text("epoll|uring")
      ->capture_default_str();
  // Bounds keep the byte arithmetic in range: the quota in bytes must fit 64 bits with room,
  // and a value must fit the protocol's 32-bit body length with its header parts.
  add_number(app, "--memory-mb", options.memory_mb, size_t{1}, kMaxMemoryMb,
             "memory quota for items, in MiB");
  add_number(app, "--max-item-size", options.max_item_size, size_t{1}, kMaxItemSizeLimit,
             "largest value accepted, in bytes");
  add_number(app, "--max-connections", options.max_connections, size_t{1}, kMaxConnectionsLimit,
             "connections beyond this are refused");
  add_number(app, "--range-scan-max", options.range_scan_max, size_t{1}, size_t{100000},
             "range scans a bucket holds at once; a create beyond them answers Etmpfail");
  add_number(app, "--range-scan-idle-timeout", options.range_scan_idle_timeout, 1u, 86400u,
             "seconds a range scan may go without a continue before it is cancelled");
  add_number(app, "--expiry-pager-interval", options.expiry_pager_interval, kMinPagerSeconds,
             kMaxPagerSeconds, "seconds between sweeps that remove expired items");
  app.add_flag("-v,--verbose", options.verbose, "log at debug level")
      ->check(switch_value())
      ->default_str("off");
  app.add_flag("--fsync-per-write", options.fsync_per_write,
               "benchmark baseline, not for use: flush each change with its own fsync")
      ->check(switch_value())
      ->default_str("off");
  app.footer(
      "--listen and --port override the [server] settings of a --config file, and\n"
      "--data-dir its data_dir; the --tls-* flags its [tls] settings. SIGHUP reloads the\n"
      "TLS certificate and key.\n\n"
      "Exit status: 0 after a clean stop (SIGINT or SIGTERM), 64 for a usage error\n"
      "(a --config file that cannot be read included), 1 if start-up fails (for example,\n"
      "the port is in use, the --config file is invalid, or a couchbase bucket has no data\n"
      "directory or cannot open it).");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // CLI11 prints help, the version or the error; its own exit codes for errors vary by kind.
    exit_code = app.exit(error) == 0 ? 0 : EX_USAGE;
    return std::nullopt;
  }
  options.listen_given = listen->count() > 0;
  options.port_given = port->count() > 0;
  options.mgmt_port_given = mgmt_port->count() > 0;
  options.mgmt_port = parse_port_or_none(mgmt_port_text);
  options.tls_port_given = tls_port->count() > 0;
  options.mgmt_tls_port_given = mgmt_tls_port->count() > 0;
  options.tls_port = parse_port_or_none(tls_port_text);
  options.mgmt_tls_port = parse_port_or_none(mgmt_tls_port_text);
  options.tls_ports_asked = (options.tls_port_given && options.tls_port) ||
                            (options.mgmt_tls_port_given && options.mgmt_tls_port);
  options.io = *parse_io_backend(io_text);
  return options;
}

void apply_server_settings(const config::ServerSpec& server, Options& options) {
  if (server.listen && !options.listen_given) options.listen = *server.listen;
  if (server.port && !options.port_given) options.port = *server.port;
  if (server.data_dir && !options.data_dir) options.data_dir = *server.data_dir;
  if (server.mgmt_port && !options.mgmt_port_given) options.mgmt_port = *server.mgmt_port;
  if (server.tls_port && !options.tls_port_given) {
    options.tls_port = *server.tls_port;
    options.tls_ports_asked = options.tls_ports_asked || options.tls_port.has_value();
  }
  if (server.mgmt_tls_port && !options.mgmt_tls_port_given) {
    options.mgmt_tls_port = *server.mgmt_tls_port;
    options.tls_ports_asked = options.tls_ports_asked || options.mgmt_tls_port.has_value();
  }
}

void apply_tls_settings(const config::TlsSpec& tls, Options& options) {
  config::TlsSpec& mine = options.tls;
  if (!mine.certificate) mine.certificate = tls.certificate;
  if (!mine.private_key) mine.private_key = tls.private_key;
  if (!mine.client_ca) mine.client_ca = tls.client_ca;
  if (!mine.client_auth) mine.client_auth = tls.client_auth;
}

bool resolve_tls(Options& options) {
  const config::TlsSpec& tls = options.tls;
  if (tls.certificate && !tls.private_key) {
    throw std::runtime_error(
        "the TLS certificate needs its private key: --tls-private-key or [tls] private_key");
  }
  if (tls.private_key && !tls.certificate) {
    throw std::runtime_error(
        "the TLS private key needs its certificate: --tls-certificate or [tls] certificate");
  }
  if (tls.client_auth && *tls.client_auth != "disabled" && !tls.client_ca) {
    throw std::runtime_error(fmt::format(
        "TLS client_auth {} needs the client certificates' CA: --tls-client-ca or [tls] "
        "client_ca",
        *tls.client_auth));
  }
  if (tls.certificate) return true;
  if (options.tls_ports_asked) {
    throw std::runtime_error(
        "a TLS port needs a certificate: --tls-certificate and --tls-private-key, or [tls] "
        "certificate and private_key");
  }
  options.tls_port.reset();
  options.mgmt_tls_port.reset();
  return false;
}

}  // namespace tern::ternd
