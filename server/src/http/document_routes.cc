// The console's document browser, on Couchbase 7's document editor paths: a collection's keys
// page by page (under full eviction, the keys on disk only too), one document, a JSON value
// saved with an optional CAS, and a removal.
// Writes take the engine's path that KV writes take (CAS, seqno, the flusher's queue), on the
// vbucket an SDK would route the key to. Handlers run on the HTTP server's threads, so they may
// wait for a background fetch of an evicted value (call_with_fetches); no KV worker loop waits.
//
//   GET    .../scopes/<s>/collections/<c>/docs?limit=N&startAfter=<key>
//          -> {"rows":[{"id":"k"},...],"next":"<last key of the page>"|null}
//   GET    .../docs/<id> -> {"meta":{"id","cas":"<decimal>","flags":N,"expiration":N},
//                            "json":<document>} (or "base64":"..." for a body not JSON)
//   POST   .../docs/<id>, form value=<JSON>[&cas=<decimal>] -> {"cas":"<decimal>"}
//   DELETE .../docs/<id> -> {}
// Failures: {"error":"<code>","reason":"..."}: 404 not_found (no such document, scope or
// collection; an unknown bucket answers Couchbase's 404 text), 409 cas_mismatch or locked,
// 400 for bad input, 503 while the bucket warms up or cannot take the write now.

#include <fmt/format.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/base64.h"
#include "cluster/vbucket_of.h"
#include "commands/request_checks.h"
#include "engine/blocking_fetch.h"
#include "engine/document_listing.h"
#include "http/answer.h"
#include "http/form.h"
#include "http/route_groups.h"
#include "protocol/codec.h"
#include "protocol/datatype.h"
#include "subdoc/json_document.h"
#include "xattr/blob.h"

namespace tern::http {

namespace {

constexpr const char* kDocs =
    R"(/pools/default/buckets/([^/]+)/scopes/([^/]+)/collections/([^/]+)/docs)";
// An id may hold any byte, '/' included (sent as %2F, which the server decodes).
constexpr const char* kDoc =
    R"(/pools/default/buckets/([^/]+)/scopes/([^/]+)/collections/([^/]+)/docs/(.+))";

const Access kRead{Level::ReadBucket, "cluster.collection[{bucket}].data.docs!read"};
const Access kWrite{Level::Admin, "cluster.collection[{bucket}].data.docs!upsert"};
const Access kDelete{Level::Admin, "cluster.collection[{bucket}].data.docs!delete"};

// The flags Couchbase SDKs give a JSON document (common flags, JSON format).
constexpr uint32_t kJsonFlags = 0x02000006;
constexpr size_t kDefaultPage = 50;
constexpr size_t kMaxPage = 1000;

void answer_failure(httplib::Response& res, int status, std::string_view error,
                    std::string_view reason) {
  answer_json(res, status,
              "{\"error\":" + json_string(error) + ",\"reason\":" + json_string(reason) + "}");
}

using JsonOut = rapidjson::Writer<rapidjson::StringBuffer>;

void write_text(JsonOut& out, std::string_view text) {
  out.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

// What the path names: its bucket, its collection, and the document's key in the bucket.
struct Target {
  std::shared_ptr<engine::Bucket> bucket;
  uint32_t collection_id = 0;
  std::string id;        // the document's key, as clients name it (empty for the list)
  std::string stored;    // the key the bucket files it under (decode_document_key)
  uint16_t vbucket = 0;  // where an SDK routes it, and a persistent bucket files it
};

// The stored key of `id` in the collection: the key a KV request with collections names,
// decoded as the dispatcher decodes it. nullopt for an empty or too long id.
std::optional<std::string> stored_key(uint32_t collection_id, std::string_view id) {
  std::vector<uint8_t> wire(5);
  wire.resize(protocol::leb128_encode(collection_id, wire));
  wire.insert(wire.end(), id.begin(), id.end());
  commands::DocumentKey key;
  commands::StoredKeyBuffer scratch;
  if (commands::decode_document_key(wire, true, key, scratch) != protocol::Status::Success) {
    return std::nullopt;
  }
  return std::string(key.stored);
}

// The id of a stored key of the collection: the inverse of stored_key().
std::string_view id_of(uint32_t collection_id, std::string_view stored) {
  if (collection_id != 0) {
    uint8_t prefix[5];
    return stored.substr(1 + protocol::leb128_encode(collection_id, prefix));
  }
  return stored.starts_with('\0') ? stored.substr(1) : stored;
}

// The bucket and collection the path names, warm; nullopt after answering 404 or 503.
std::optional<Target> resolve(const httplib::Request& req, httplib::Response& res,
                              const MgmtContext& context) {
  Target target;
  target.bucket = context.node.find_bucket(req.matches[1].str());
  if (!target.bucket) {
    answer_not_found(res);
    return std::nullopt;
  }
  const std::optional<uint32_t> collection =
      target.bucket->manifest().collection_id(req.matches[2].str() + "." + req.matches[3].str());
  if (!collection) {
    answer_failure(res, 404, "not_found", "no such scope or collection in the bucket");
    return std::nullopt;
  }
  target.collection_id = *collection;
  if (!target.bucket->warm()) {
    answer_failure(res, 503, "temporary_failure", "the bucket is loading from disk");
    return std::nullopt;
  }
  return target;
}

// resolve(), and the document the path names; nullopt after answering.
std::optional<Target> resolve_document(const httplib::Request& req, httplib::Response& res,
                                       const MgmtContext& context) {
  std::optional<Target> target = resolve(req, res, context);
  if (!target) return std::nullopt;
  target->id = req.matches[4].str();
  std::optional<std::string> stored = stored_key(target->collection_id, target->id);
  if (!stored) {
    answer_failure(res, 400, "invalid_key", "a document id is 1 to 246 bytes long");
    return std::nullopt;
  }
  target->stored = std::move(*stored);
  target->vbucket = cluster::vbucket_of(target->id, cluster::kVBucketCount);
  return target;
}

// Runs an engine call for the target's key, fetching an evicted value when it needs one.
template <class Call>
auto with_fetches(const Target& target, Call&& call) {
  engine::Persistence* persistence = target.bucket->persistence();
  return engine::call_with_fetches(persistence ? &persistence->bg_fetcher() : nullptr,
                                   target.stored, target.vbucket, std::forward<Call>(call));
}

// Answers an engine call that did not succeed; `id` is the document's.
void answer_engine_failure(httplib::Response& res, engine::Status status, std::string_view id) {
  using engine::Status;
  switch (status) {
    case Status::NotFound:
      return answer_failure(res, 404, "not_found", fmt::format("no document {}", json_string(id)));
    case Status::UnknownCollection:
      return answer_failure(res, 404, "not_found", "the collection was dropped");
    case Status::Exists:
    case Status::CasMismatch:
      return answer_failure(
          res, 409, "cas_mismatch",
          "the document changed since it was read (its CAS is not the one given)");
    case Status::Locked:
      return answer_failure(res, 409, "locked", "the document is locked");
    case Status::TooBig:
      return answer_failure(res, 400, "too_big", "the value is larger than the bucket allows");
    default:
      return answer_failure(
          res, 503, "temporary_failure",
          fmt::format("the bucket cannot do it now ({}); try again", engine::status_name(status)));
  }
}

void list(const httplib::Request& req, httplib::Response& res, const MgmtContext& context) {
  const std::optional<Target> target = resolve(req, res, context);
  if (!target) return;
  size_t limit = kDefaultPage;
  if (req.has_param("limit")) {
    const std::string text = req.get_param_value("limit");
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), limit);
    if (error != std::errc() || end != text.data() + text.size() || limit == 0 ||
        limit > kMaxPage) {
      return answer_failure(res, 400, "invalid_limit",
                            fmt::format("limit must be a whole number from 1 to {}", kMaxPage));
    }
  }
  std::string after;
  if (req.has_param("startAfter")) {
    std::optional<std::string> stored =
        stored_key(target->collection_id, req.get_param_value("startAfter"));
    if (!stored) return answer_failure(res, 400, "invalid_key", "startAfter is not a document id");
    after = std::move(*stored);
  }
  // One more than the page: whether another page follows.
  engine::Persistence* persistence = target->bucket->persistence();
  std::vector<std::string> keys;
  try {
    keys = engine::list_document_keys(
        target->bucket->documents(), persistence ? &persistence->store() : nullptr,
        target->collection_id, after, limit + 1, context.node.clock().unix_seconds());
  } catch (const storage::StoreError& e) {
    return answer_failure(res, 503, "temporary_failure", e.what());
  }
  const bool more = keys.size() > limit;
  if (more) keys.resize(limit);
  rapidjson::StringBuffer buffer;
  JsonOut out(buffer);
  out.StartObject();
  out.Key("rows");
  out.StartArray();
  for (const std::string& key : keys) {
    const std::string_view id = id_of(target->collection_id, key);
    out.StartObject();
    out.Key("id");
    write_text(out, id);
    out.EndObject();
  }
  out.EndArray();
  out.Key("next");
  if (more) {
    const std::string_view next = id_of(target->collection_id, keys.back());
    write_text(out, next);
  } else {
    out.Null();
  }
  out.EndObject();
  answer_json(res, 200, {buffer.GetString(), buffer.GetSize()});
}

void get(const httplib::Request& req, httplib::Response& res, const MgmtContext& context) {
  const std::optional<Target> target = resolve_document(req, res, context);
  if (!target) return;
  engine::Engine& documents = target->bucket->documents();
  const engine::GetResult got = with_fetches(
      *target, [&] { return documents.get_document(target->stored, /*include_deleted=*/false); });
  if (got.status != engine::Status::Success) {
    return answer_engine_failure(res, got.status, target->id);
  }
  const engine::Item& item = *got.item;
  xattr::Split split;
  if (!xattr::split(item.value(), item.datatype, split)) split.body = item.value();
  rapidjson::StringBuffer buffer;
  JsonOut out(buffer);
  out.StartObject();
  out.Key("meta");
  out.StartObject();
  out.Key("id");
  write_text(out, target->id);
  out.Key("cas");
  write_text(out, std::to_string(item.cas));
  out.Key("flags");
  out.Uint(item.flags);
  out.Key("expiration");
  out.Uint(documents.expiry_unix_seconds(item));
  out.EndObject();
  if (subdoc::is_json(split.body)) {
    out.Key("json");
    out.RawValue(split.body.data(), split.body.size(), rapidjson::kObjectType);
  } else {
    out.Key("base64");
    write_text(out, auth::base64_encode(split.body));
  }
  out.EndObject();
  answer_json(res, 200, {buffer.GetString(), buffer.GetSize()});
}

void save(const httplib::Request& req, httplib::Response& res, const MgmtContext& context) {
  const std::optional<Target> target = resolve_document(req, res, context);
  if (!target) return;
  std::string error;
  const std::optional<Form> form = Form::parse(req, error);
  if (!form) return answer_failure(res, 400, "invalid_form", error);
  const std::optional<std::string> value = form->text("value");
  if (!value || !subdoc::is_json(*value)) {
    return answer_failure(res, 400, "invalid_value", "value must be one JSON value");
  }
  uint64_t cas = 0;
  if (const std::optional<std::string> text = form->text("cas")) {
    const auto [end, failure] = std::from_chars(text->data(), text->data() + text->size(), cas);
    if (failure != std::errc() || end != text->data() + text->size()) {
      return answer_failure(res, 400, "invalid_cas", "cas must be a whole number");
    }
  }
  engine::Engine& documents = target->bucket->documents();
  // A new value keeps the document's expiry, as an edit in the console should.
  const engine::MutationOptions options{.preserve_ttl = true,
                                        .vbucket = target->bucket->vbucket(target->vbucket)};
  const engine::MutationResult saved = with_fetches(*target, [&] {
    return documents.store(engine::StoreMode::Set, target->stored, *value, kJsonFlags, 0,
                           protocol::datatype::kJson, cas, options);
  });
  if (saved.status != engine::Status::Success) {
    return answer_engine_failure(res, saved.status, target->id);
  }
  answer_json(res, 200, "{\"cas\":\"" + std::to_string(saved.cas) + "\"}");
}

void remove(const httplib::Request& req, httplib::Response& res, const MgmtContext& context) {
  const std::optional<Target> target = resolve_document(req, res, context);
  if (!target) return;
  engine::Engine& documents = target->bucket->documents();
  const engine::MutationOptions options{.vbucket = target->bucket->vbucket(target->vbucket)};
  const engine::MutationResult removed =
      with_fetches(*target, [&] { return documents.remove(target->stored, 0, options); });
  if (removed.status != engine::Status::Success) {
    return answer_engine_failure(res, removed.status, target->id);
  }
  answer_json(res, 200, "{}");
}

}  // namespace

void add_document_routes(Routes& routes, MgmtContext& context) {
  routes.get(kDocs, kRead,
             [&context](const httplib::Request& req, httplib::Response& res, const Caller&) {
               list(req, res, context);
             });
  routes.get(kDoc, kRead,
             [&context](const httplib::Request& req, httplib::Response& res, const Caller&) {
               get(req, res, context);
             });
  routes.post(kDoc, kWrite,
              [&context](const httplib::Request& req, httplib::Response& res, const Caller&) {
                save(req, res, context);
              });
  routes.del(kDoc, kDelete,
             [&context](const httplib::Request& req, httplib::Response& res, const Caller&) {
               remove(req, res, context);
             });
}

}  // namespace tern::http
