#include "config/user_section.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "auth/base64.h"
#include "config/names.h"
#include "config/scram_mechanisms.h"

namespace tern::config {

namespace {

constexpr std::string_view kEveryBucket = "*";

std::string read_base64(const TableReader& secret, std::string_view key) {
  const std::string text = secret.required_string(key);
  std::optional<std::string> bytes = auth::base64_decode(text);
  if (!bytes) secret.fail(key, "is not valid base64 (copy the line --hash-password printed)");
  return *std::move(bytes);
}

CredentialSpec read_credential(const TableReader& secret, const ScramMechanism& mechanism) {
  CredentialSpec credential;
  credential.mechanism = std::string(mechanism.name);
  credential.salt = read_base64(secret, "salt");
  if (credential.salt.empty()) secret.fail("salt", "must not be empty");
  const auto iterations =
      secret.integer("iterations", kMinScramIterations, std::numeric_limits<uint32_t>::max());
  if (!iterations) secret.fail("iterations", "is required");
  credential.iterations = static_cast<uint32_t>(*iterations);
  for (auto [key, target] : {std::pair{"stored_key", &credential.stored_key},
                             std::pair{"server_key", &credential.server_key}}) {
    *target = read_base64(secret, key);
    if (target->size() != mechanism.digest_size) {
      secret.fail(key, fmt::format("must be {} bytes for {} (got {})", mechanism.digest_size,
                                   mechanism.name, target->size()));
    }
  }
  return credential;
}

std::vector<std::string> read_grants(const TableReader& user,
                                     const std::vector<BucketSpec>& buckets) {
  std::vector<std::string> grants;
  const auto entries = user.strings("buckets");
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& [name, node] = entries[i];
    std::string problem;
    if (std::find(grants.begin(), grants.end(), name) != grants.end()) {
      problem = fmt::format("'{}' is listed twice", name);
    } else if (name == kEveryBucket && entries.size() != 1) {
      problem = "'*' already grants every bucket: list it alone";
    } else if (name != kEveryBucket &&
               std::none_of(buckets.begin(), buckets.end(), [&granted = name](const BucketSpec& b) {
                 return b.name == granted;  // (clang 14 cannot capture a structured binding)
               })) {
      problem = fmt::format("no bucket '{}' is declared", name);
    }
    if (!problem.empty()) {
      fail_at(user.source_name(), node, fmt::format("{}[{}]", user.path_of("buckets"), i), problem);
    }
    grants.push_back(name);
  }
  return grants;
}

}  // namespace

UserSpec read_user(const TableReader& user_table, const std::vector<BucketSpec>& buckets) {
  UserSpec user;
  user.name = user_table.required_string("name");
  if (auto problem = user_name_problem(user.name)) {
    user_table.fail("name", fmt::format("user name '{}' {}", user.name, *problem));
  }
  user.buckets = read_grants(user_table, buckets);
  user.admin = user_table.boolean("admin").value_or(false);

  user.dev_password = user_table.string("password");
  if (user.dev_password && user.dev_password->empty()) {
    user_table.fail("password", "must not be empty");
  }
  for (const ScramMechanism& mechanism : kScramMechanisms) {
    const toml::table* secret_table = user_table.table(mechanism.toml_key);
    if (secret_table == nullptr) continue;
    TableReader secret(*secret_table, user_table.path_of(mechanism.toml_key),
                       user_table.source_name(),
                       {"salt", "iterations", "stored_key", "server_key"});
    user.credentials.push_back(read_credential(secret, mechanism));
  }
  if (user.dev_password && !user.credentials.empty()) {
    user_table.fail("password", "give either a password or scram_* secrets, not both");
  }
  if (!user.dev_password && user.credentials.empty()) {
    fail_at(user_table.source_name(), &user_table.node(), user_table.path(),
            fmt::format("user '{}' has no way to log in: give scram_sha512/scram_sha256/"
                        "scram_sha1 secrets (from ternd --hash-password) or, for development "
                        "only, a password",
                        user.name));
  }
  return user;
}

}  // namespace tern::config
