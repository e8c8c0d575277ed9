// The bucket manager's routes: list, read, create, edit, drop and flush buckets.

#include <memory>

#include "http/answer.h"
#include "http/bucket_form.h"
#include "http/bucket_json.h"
#include "http/route_groups.h"

namespace tern::http {

namespace {

constexpr const char* kBucketPattern = R"(/pools/default/buckets/([^/]+))";

// Couchbase names every change to a bucket this way in a refusal.
const Access kCreate{Level::Admin, "cluster.buckets!create"};
const Access kWrite{Level::Admin, "cluster.bucket[{bucket}].settings!write"};
const Access kDelete{Level::Admin, "cluster.bucket[{bucket}]!delete"};
const Access kFlush{Level::Admin, "cluster.bucket[{bucket}]!flush"};
const Access kRead{Level::ReadBucket, "cluster.bucket[{bucket}].settings!read"};

void answer_errors(httplib::Response& res, const FieldErrors& errors) {
  std::string body = "{\"errors\":{";
  for (const auto& [field, message] : errors) {
    if (body.back() != '{') body += ',';
    body += json_string(field) + ":" + json_string(message);
  }
  answer_json(res, 400, body + "}}");
}

// Without a data directory a change is lost at the next restart; say so, as the issue asks.
void warn_if_transient(httplib::Response& res, const MgmtContext& context) {
  if (!context.admin.changes_persist()) {
    res.set_header("Warning",
                   "299 ternd \"no data directory: this change lasts until ternd stops\"");
  }
}

void answer_admin_failure(httplib::Response& res, const AdminResult& result) {
  switch (result.error) {
    case AdminError::None:
      return;
    case AdminError::Exists:
      return answer_field_error(res, 400, "name", "Bucket with given name already exists");
    case AdminError::NotFound:
      return answer_not_found(res);
    case AdminError::Refused:
      return answer_message(res, 400, result.message);
  }
}

class BucketRoutes {
 public:
  explicit BucketRoutes(MgmtContext& context) : context_(context) {}

  void list(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    rapidjson::StringBuffer buffer;
    JsonWriter out(buffer);
    out.StartArray();
    for (const config::BucketSpec& settings : context_.admin.bucket_settings()) {
      if (!caller.may_read(settings.name)) continue;
      write_one(out, settings, req);
    }
    out.EndArray();
    answer_json(res, 200, buffer.GetString());
  }

  void get(const httplib::Request& req, httplib::Response& res, const Caller&) {
    const std::optional<config::BucketSpec> settings =
        context_.admin.bucket_settings(req.matches[1].str());
    if (!settings) return answer_not_found(res);
    rapidjson::StringBuffer buffer;
    JsonWriter out(buffer);
    if (!write_one(out, *settings, req)) return answer_not_found(res);
    answer_json(res, 200, buffer.GetString());
  }

  void create(const httplib::Request& req, httplib::Response& res, const Caller&) {
    const std::optional<Form> form = Form::parse_or_answer(req, res);
    if (!form) return;
    FieldErrors errors;
    std::optional<config::BucketSpec> spec = bucket_spec_from_form(*form, nullptr, errors);
    if (!spec) return answer_errors(res, errors);
    const AdminResult result = context_.admin.create_bucket(*spec);
    if (result.error != AdminError::None) return answer_admin_failure(res, result);
    warn_if_transient(res, context_);
    res.status = 202;
  }

  void update(const httplib::Request& req, httplib::Response& res, const Caller&) {
    const std::optional<config::BucketSpec> current =
        context_.admin.bucket_settings(req.matches[1].str());
    if (!current) return answer_not_found(res);
    const std::optional<Form> form = Form::parse_or_answer(req, res);
    if (!form) return;
    FieldErrors errors;
    std::optional<config::BucketSpec> spec = bucket_spec_from_form(*form, &*current, errors);
    if (!spec) return answer_errors(res, errors);
    const AdminResult result = context_.admin.update_bucket(*spec);
    if (result.error != AdminError::None) return answer_admin_failure(res, result);
    warn_if_transient(res, context_);
    res.status = 200;
  }

  void drop(const httplib::Request& req, httplib::Response& res, const Caller&) {
    const AdminResult result = context_.admin.drop_bucket(req.matches[1].str());
    if (result.error != AdminError::None) return answer_admin_failure(res, result);
    warn_if_transient(res, context_);
    res.status = 200;
  }

  void flush(const httplib::Request& req, httplib::Response& res, const Caller&) {
    const std::optional<config::BucketSpec> settings =
        context_.admin.bucket_settings(req.matches[1].str());
    if (!settings) return answer_not_found(res);
    if (!settings->flush_enabled) {
      return answer_field_error(res, 400, "_", "Flush is disabled for the bucket");
    }
    const AdminResult result = context_.admin.flush_bucket(settings->name);
    if (result.error != AdminError::None) return answer_admin_failure(res, result);
    res.status = 200;
  }

 private:
  // False when the bucket went away between reading its settings and finding it.
  bool write_one(JsonWriter& out, const config::BucketSpec& settings, const httplib::Request& req) {
    const std::shared_ptr<engine::Bucket> bucket = context_.node.find_bucket(settings.name);
    if (!bucket) return false;
    const double rate = ops_rate_.sample(settings.name, total_ops(bucket->documents().stats()),
                                         OpsRate::Clock::now());
    write_bucket(out, settings, *bucket, rate, req, context_);
    return true;
  }

  MgmtContext& context_;
  OpsRate ops_rate_;
};

template <typename Method>
Handler handler_of(std::shared_ptr<BucketRoutes> routes, Method method) {
  return [routes, method](const httplib::Request& req, httplib::Response& res,
                          const Caller& caller) { ((*routes).*method)(req, res, caller); };
}

}  // namespace

void add_bucket_routes(Routes& routes, MgmtContext& context) {
  auto buckets = std::make_shared<BucketRoutes>(context);
  routes.get("/pools/default/buckets", {Level::Authenticated, "cluster.bucket[].settings!read"},
             handler_of(buckets, &BucketRoutes::list));
  routes.post("/pools/default/buckets", kCreate, handler_of(buckets, &BucketRoutes::create));
  routes.get(kBucketPattern, kRead, handler_of(buckets, &BucketRoutes::get));
  routes.post(kBucketPattern, kWrite, handler_of(buckets, &BucketRoutes::update));
  routes.del(kBucketPattern, kDelete, handler_of(buckets, &BucketRoutes::drop));
  routes.post(std::string(kBucketPattern) + "/controller/doFlush", kFlush,
              handler_of(buckets, &BucketRoutes::flush));
}

}  // namespace tern::http
