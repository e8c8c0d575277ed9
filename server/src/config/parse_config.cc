// parse_config and load_config (file_config.h): the document's top level, and the checks
// that span sections (names unique across the file). Each section has its own reader.

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "config/bucket_section.h"
#include "config/file_config.h"
#include "config/server_section.h"
#include "config/table_reader.h"
#include "config/tls_section.h"
#include "config/user_section.h"

namespace tern::config {

namespace {

toml::table parse_toml(std::string_view toml_text, std::string_view source_name) {
  try {
    return toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& error) {
    fail_at(source_name, error.source().begin, "",
            fmt::format("TOML syntax error: {}", error.description()));
  }
}

template <typename Spec>
bool has_name(const std::vector<Spec>& specs, std::string_view name) {
  for (const Spec& spec : specs) {
    if (spec.name == name) return true;
  }
  return false;
}

// Buckets come first: the [server] table and the users refer to them.
void read_buckets(const TableReader& document, FileConfig& config) {
  const auto bucket_tables = document.tables("bucket");
  if (bucket_tables.empty()) {
    fail_at(document.source_name(), nullptr, "bucket",
            "at least one [[bucket]] is required: ternd serves only the buckets the file "
            "declares");
  }
  for (size_t i = 0; i < bucket_tables.size(); ++i) {
    const TableReader bucket_table(*bucket_tables[i], fmt::format("bucket[{}]", i),
                                   document.source_name(), kBucketKeys);
    BucketSpec bucket = read_bucket(bucket_table);
    if (has_name(config.buckets, bucket.name)) {
      bucket_table.fail("name", fmt::format("bucket '{}' is declared twice", bucket.name));
    }
    config.buckets.push_back(std::move(bucket));
  }
}

void read_users(const TableReader& document, FileConfig& config) {
  const auto user_tables = document.tables("user");
  for (size_t i = 0; i < user_tables.size(); ++i) {
    const TableReader user_table(*user_tables[i], fmt::format("user[{}]", i),
                                 document.source_name(), kUserKeys);
    UserSpec user = read_user(user_table, config.buckets);
    if (has_name(config.users, user.name)) {
      user_table.fail("name", fmt::format("user '{}' is declared twice", user.name));
    }
    if (user.dev_password) {
      const auto where = user_table.node().get("password")->source().begin;
      config.warnings.push_back(located_message(
          document.source_name(), where.line, where.column, user_table.path_of("password"),
          fmt::format("user '{}' has a clear-text password, which is for development only: "
                      "replace it with the lines `ternd --hash-password` prints",
                      user.name)));
    }
    config.users.push_back(std::move(user));
  }
}

}  // namespace

FileConfig parse_config(std::string_view toml_text, std::string_view source_name) {
  const toml::table root = parse_toml(toml_text, source_name);
  const TableReader document(root, "", source_name, {"server", "tls", "bucket", "user"});
  FileConfig config;
  read_buckets(document, config);
  if (const toml::table* server_table = document.table("server")) {
    config.server =
        read_server(TableReader(*server_table, "server", source_name, kServerKeys), config.buckets);
  }
  if (const toml::table* tls_table = document.table("tls")) {
    config.tls = read_tls(TableReader(*tls_table, "tls", source_name, kTlsKeys));
  }
  read_users(document, config);
  return config;
}

FileConfig load_config(const std::string& path) {
  // A directory opens like a file and only fails to read, with a vaguer message.
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw ConfigError(path, 0, 0, "", "is a directory, not a configuration file");
  }
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file.is_open()) {
    throw ConfigError(
        path, 0, 0, "",
        fmt::format("cannot open the file: {}", std::strerror(errno != 0 ? errno : EIO)));
  }
  const std::string text{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  if (file.bad()) throw ConfigError(path, 0, 0, "", "cannot read the file");
  return parse_config(text, path);
}

}  // namespace tern::config
