#include "state/node_state.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "config/durability_levels.h"
#include "config/names.h"

namespace tern::state {

namespace {

constexpr int kVersion = 1;

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void write_string(Writer& out, std::string_view text) {
  out.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void write_manifest(Writer& out, const cluster::CollectionsManifest& manifest) {
  out.StartObject();
  out.Key("uid");
  out.Uint64(manifest.uid());
  out.Key("next_scope_id");
  out.Uint(manifest.next_scope_id());
  out.Key("next_collection_id");
  out.Uint(manifest.next_collection_id());
  out.Key("scopes");
  out.StartArray();
  for (const cluster::Scope& scope : manifest.scopes()) {
    out.StartObject();
    out.Key("name");
    write_string(out, scope.name);
    out.Key("id");
    out.Uint(scope.id);
    out.Key("collections");
    out.StartArray();
    for (const cluster::Collection& collection : scope.collections) {
      out.StartObject();
      out.Key("name");
      write_string(out, collection.name);
      out.Key("id");
      out.Uint(collection.id);
      out.Key("max_ttl");
      out.Uint(collection.max_ttl);
      out.EndObject();
    }
    out.EndArray();
    out.EndObject();
  }
  out.EndArray();
  out.EndObject();
}

void write_bucket(Writer& out, const BucketState& bucket) {
  const config::BucketSpec& settings = bucket.settings;
  out.StartObject();
  out.Key("name");
  write_string(out, settings.name);
  out.Key("type");
  out.String(settings.type == config::BucketType::Ephemeral ? "ephemeral" : "couchbase");
  out.Key("eviction");
  out.String(settings.eviction_policy == config::EvictionPolicy::Full ? "full" : "value");
  out.Key("quota_bytes");
  out.Uint64(settings.memory_quota_bytes);
  out.Key("flush_enabled");
  out.Bool(settings.flush_enabled);
  out.Key("max_ttl");
  out.Uint(settings.max_ttl_seconds);
  out.Key("durability_min_level");
  write_string(out, settings.durability_min_level);
  out.Key("directory");
  write_string(out, bucket.directory);
  out.Key("manifest");
  write_manifest(out, bucket.manifest);
  out.EndObject();
}

// Reads the members of a parsed state, throwing StateError with the path of what is wrong.
class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}

  [[noreturn]] void fail(std::string_view what) const {
    throw StateError(fmt::format("{}: {}", source_, what));
  }

  const rapidjson::Value& member(const rapidjson::Value& object, const char* name,
                                 std::string_view where) const {
    if (!object.IsObject() || !object.HasMember(name))
      fail(fmt::format("{} has no {}", where, name));
    return object[name];
  }
  std::string text(const rapidjson::Value& object, const char* name, std::string_view where) const {
    const rapidjson::Value& value = member(object, name, where);
    if (!value.IsString()) fail(fmt::format("{}.{} is not a string", where, name));
    return {value.GetString(), value.GetStringLength()};
  }
  uint64_t number(const rapidjson::Value& object, const char* name, std::string_view where,
                  uint64_t max) const {
    const rapidjson::Value& value = member(object, name, where);
    if (!value.IsUint64() || value.GetUint64() > max) {
      fail(fmt::format("{}.{} is not a whole number up to {}", where, name, max));
    }
    return value.GetUint64();
  }
  bool flag(const rapidjson::Value& object, const char* name, std::string_view where) const {
    const rapidjson::Value& value = member(object, name, where);
    if (!value.IsBool()) fail(fmt::format("{}.{} is not true or false", where, name));
    return value.GetBool();
  }
  const rapidjson::Value::ConstArray array(const rapidjson::Value& object, const char* name,
                                           std::string_view where) const {
    const rapidjson::Value& value = member(object, name, where);
    if (!value.IsArray()) fail(fmt::format("{}.{} is not an array", where, name));
    return value.GetArray();
  }

 private:
  std::string_view source_;
};

constexpr uint64_t kMaxU32 = 0xffffffffu;

cluster::CollectionsManifest read_manifest(const Reader& in, const rapidjson::Value& value,
                                           const std::string& where) {
  std::vector<cluster::Scope> scopes;
  for (const rapidjson::Value& scope : in.array(value, "scopes", where)) {
    const std::string scope_where = where + ".scopes[]";
    cluster::Scope parsed{in.text(scope, "name", scope_where),
                          static_cast<uint32_t>(in.number(scope, "id", scope_where, kMaxU32)),
                          {}};
    for (const rapidjson::Value& collection : in.array(scope, "collections", scope_where)) {
      const std::string collection_where = scope_where + ".collections[]";
      cluster::Collection entry;
      entry.name = in.text(collection, "name", collection_where);
      entry.id = static_cast<uint32_t>(in.number(collection, "id", collection_where, kMaxU32));
      entry.max_ttl =
          static_cast<uint32_t>(in.number(collection, "max_ttl", collection_where, kMaxU32));
      parsed.collections.push_back(std::move(entry));
    }
    scopes.push_back(std::move(parsed));
  }
  try {
    return cluster::CollectionsManifest(
        in.number(value, "uid", where, UINT64_MAX), std::move(scopes),
        static_cast<uint32_t>(in.number(value, "next_scope_id", where, kMaxU32)),
        static_cast<uint32_t>(in.number(value, "next_collection_id", where, kMaxU32)));
  } catch (const std::invalid_argument& error) {
    in.fail(fmt::format("{}: {}", where, error.what()));
  }
}

// Whether `name` names one entry of the data directory: ternd joins it to the data
// directory's path and removes what that names, so "", ".", "..", and anything with a '/'
// (an absolute path too) would reach outside the bucket's own directory.
bool is_plain_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of(std::string_view("/\0", 2)) == std::string_view::npos;
}

BucketState read_bucket(const Reader& in, const rapidjson::Value& value) {
  BucketState bucket;
  config::BucketSpec& settings = bucket.settings;
  settings.name = in.text(value, "name", "bucket");
  if (const std::optional<std::string> problem = config::bucket_name_problem(settings.name)) {
    in.fail(fmt::format("bucket name '{}' {}", settings.name, *problem));
  }
  const std::string where = fmt::format("bucket '{}'", settings.name);
  const std::string type = in.text(value, "type", where);
  if (type != "couchbase" && type != "ephemeral") in.fail(where + ": unknown type " + type);
  settings.type =
      type == "ephemeral" ? config::BucketType::Ephemeral : config::BucketType::Couchbase;
  const std::string eviction = in.text(value, "eviction", where);
  if (eviction != "value" && eviction != "full") in.fail(where + ": unknown eviction " + eviction);
  settings.eviction_policy =
      eviction == "full" ? config::EvictionPolicy::Full : config::EvictionPolicy::Value;
  settings.memory_quota_bytes = in.number(value, "quota_bytes", where, UINT64_MAX);
  settings.flush_enabled = in.flag(value, "flush_enabled", where);
  settings.max_ttl_seconds = static_cast<uint32_t>(in.number(value, "max_ttl", where, kMaxU32));
  settings.durability_min_level = in.text(value, "durability_min_level", where);
  if (!config::durability_level_number(settings.durability_min_level)) {
    in.fail(where + ": unknown durability_min_level " + settings.durability_min_level);
  }
  bucket.directory = in.text(value, "directory", where);
  if (settings.type == config::BucketType::Couchbase && bucket.directory.empty()) {
    in.fail(where + ": a couchbase bucket needs a directory");
  }
  if (!bucket.directory.empty() && !is_plain_name(bucket.directory)) {
    in.fail(where + ": directory '" + bucket.directory + "' is not a name in the data directory");
  }
  bucket.manifest = read_manifest(in, in.member(value, "manifest", where), where + ".manifest");
  return bucket;
}

[[noreturn]] void fail_io(const std::filesystem::path& path, std::string_view doing) {
  throw StateError(fmt::format("{}: cannot {}: {}", path.string(), doing, std::strerror(errno)));
}

void sync_path(const std::filesystem::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) fail_io(path, "open");
  const int synced = ::fsync(fd);
  ::close(fd);
  if (synced != 0) fail_io(path, "sync");
}

}  // namespace

std::string to_json(const NodeState& state) {
  rapidjson::StringBuffer buffer;
  Writer out(buffer);
  out.StartObject();
  out.Key("version");
  out.Int(kVersion);
  out.Key("buckets");
  out.StartArray();
  for (const BucketState& bucket : state.buckets) write_bucket(out, bucket);
  out.EndArray();
  out.Key("pending_removal");
  out.StartArray();
  for (const std::string& directory : state.pending_removal) write_string(out, directory);
  out.EndArray();
  out.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

NodeState parse_node_state(std::string_view json, std::string_view source) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  const Reader in(source);
  if (document.HasParseError() || !document.IsObject()) in.fail("not a JSON object");
  if (in.number(document, "version", "state", 1000) != kVersion) {
    in.fail(fmt::format("version is not {}: written by another ternd", kVersion));
  }
  NodeState state;
  std::set<std::string> names;
  std::set<std::string> directories;
  for (const rapidjson::Value& bucket : in.array(document, "buckets", "state")) {
    BucketState read = read_bucket(in, bucket);
    // Two buckets of one name, or on one directory, would be one bucket twice.
    if (!names.insert(read.settings.name).second) {
      in.fail(fmt::format("bucket '{}' is listed twice", read.settings.name));
    }
    if (!read.directory.empty() && !directories.insert(read.directory).second) {
      in.fail(fmt::format("bucket '{}': directory '{}' is another bucket's", read.settings.name,
                          read.directory));
    }
    state.buckets.push_back(std::move(read));
  }
  for (const rapidjson::Value& directory : in.array(document, "pending_removal", "state")) {
    if (!directory.IsString()) in.fail("pending_removal holds a non-string");
    std::string name(directory.GetString(), directory.GetStringLength());
    if (!is_plain_name(name)) {
      in.fail("pending_removal: '" + name + "' is not a name in the data directory");
    }
    state.pending_removal.push_back(std::move(name));
  }
  return state;
}

std::optional<NodeState> read_node_state(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(file)) return std::nullopt;
    fail_io(file, "read");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_node_state(text.str(), file.string());
}

void write_node_state(const std::filesystem::path& file, const NodeState& state) {
  const std::filesystem::path temporary = file.string() + ".tmp";
  const std::string json = to_json(state);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail_io(temporary, "create");
  size_t written = 0;
  while (written < json.size()) {
    const ssize_t n = ::write(fd, json.data() + written, json.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      fail_io(temporary, "write");
    }
    written += static_cast<size_t>(n);
  }
  const int synced = ::fsync(fd);
  ::close(fd);
  if (synced != 0) fail_io(temporary, "sync");
  if (::rename(temporary.c_str(), file.c_str()) != 0) fail_io(file, "replace");
  sync_path(file.parent_path().empty() ? "." : file.parent_path(), O_RDONLY | O_DIRECTORY);
}

}  // namespace tern::state
