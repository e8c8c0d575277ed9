#pragma once
// Reads one [[user]] table into a UserSpec. Internal to config/.
//
//   [[user]]
//   name = "app"
//   buckets = ["default"]     # bucket names, or ["*"] for every bucket; optional
//   admin = false             # optional
//   password = "..."          # development only, or instead the output of --hash-password:
//   scram_sha512 = { salt = "...", iterations = 15000, stored_key = "...", server_key = "..." }
//   scram_sha256 = { ... }
//   scram_sha1 = { ... }

#include <string_view>
#include <vector>

#include "config/file_config.h"
#include "config/table_reader.h"

namespace tern::config {

// `buckets` are the file's buckets: a grant must name one of them. Throws ConfigError for a
// bad name, a grant of an unknown bucket, a user with no way to log in (or with both a
// password and SCRAM secrets), a damaged secret, too few iterations, or an unknown key in a
// secret.
UserSpec read_user(const TableReader& user, const std::vector<BucketSpec>& buckets);

// The keys a [[user]] table accepts, for its TableReader.
inline const std::vector<std::string_view> kUserKeys = {
    "name", "buckets", "admin", "password", "scram_sha512", "scram_sha256", "scram_sha1"};

}  // namespace tern::config
