// The range scans: RANGE_SCAN_CREATE (0xda), RANGE_SCAN_CONTINUE (0xdb) and RANGE_SCAN_CANCEL
// (0xdc), as kv_engine's docs/range_scans/*.md specify them and the official SDKs use them
// (collection.scan(): one scan per vbucket). What a scan is and returns is scan/'s; this file
// checks the requests and answers them:
// - create: Einval (with the reason as its error context) for a value that is no valid
//   configuration (scan/scan_config.h); Etmpfail while a persistent bucket warms up;
//   NotMyVbucket for a vbucket that is not active; UnknownCollection; VbUuidNotEqual when
//   the snapshot requirements name another vbucket uuid; Etmpfail when the bucket has its
//   most scans, or the vbucket has not reached the required seqno within the requirements'
//   timeout; NotStored when no document carries a seqno required to exist; KeyEnoent when
//   the range (or the collection, for a sample) holds no key, which the SDKs take as an empty
//   vbucket; else Success with the scan's 16-byte id as the value.
// - continue (extras: id, item limit u32, time limit ms u32, byte limit u32): KeyEnoent for
//   an id unknown on this bucket and vbucket, Ebusy while another continue of it runs,
//   RangeScanCancelled once cancelled; else frames of items, each with 4 bytes of extras
//   (1 for documents, 0 for keys), the last with RangeScanMore or RangeScanComplete.
// - cancel (extras: id): Success, or KeyEnoent for an id unknown there.
// Creates and continues do their work as tasks on the executor pool (a Reader's: under full
// eviction they read the disk), their requests parked meanwhile (parked_request.h), so no
// worker loop waits for them; a node without an executor for scans answers NotSupported.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "commands/command.h"
#include "commands/node.h"
#include "commands/parked_request.h"
#include "engine/bucket.h"
#include "executor/task.h"
#include "protocol/codec.h"
#include "scan/key_snapshot.h"
#include "scan/range_scan.h"
#include "scan/scan_config.h"
#include "scan/scan_registry.h"

namespace tern::commands {
namespace {

using protocol::Status;

// How often a create that waits for its vbucket to reach a seqno looks again.
constexpr double kSeqnoPollSeconds = 0.01;

// Couchbase's error context body: {"error":{"context":"..."}}.
std::string error_context(std::string_view context) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("error");
  writer.StartObject();
  writer.Key("context");
  writer.String(context.data(), static_cast<rapidjson::SizeType>(context.size()));
  writer.EndObject();
  writer.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

scan::ScanId scan_id_of(const uint8_t* bytes) {
  scan::ScanId id;
  std::memcpy(id.data(), bytes, id.size());
  return id;
}

std::string_view text_of(const scan::ScanId& id) {
  return {reinterpret_cast<const char*>(id.data()), id.size()};
}

// Why the request's vbucket cannot serve a scan (Success when it can).
Status check_vbucket(const Command& cmd) {
  const engine::VBucket* vbucket = cmd.bucket().vbucket(cmd.vbucket_id());
  if (vbucket == nullptr || vbucket->state() != cluster::VBucketState::Active) {
    cmd.reply.error_with_json(Status::NotMyVbucket, cmd.bucket().cluster_map()->json());
    return Status::NotMyVbucket;
  }
  return Status::Success;
}

// Whether scans can run here; answers NotSupported when they cannot.
bool scans_available(const Command& cmd) {
  if (cmd.node().range_scan_executor() != nullptr && cmd.session.parker != nullptr) return true;
  cmd.reply.error(Status::NotSupported);
  return false;
}

// A create's work: wait for the required seqno, take the keys, register the scan.
class CreateTask final : public executor::Task {
 public:
  CreateTask(std::shared_ptr<engine::Bucket> bucket, scan::ScanRegistry& registry,
             scan::ScanConfig config, uint16_t vbucket, ParkedNotifier notify)
      : executor::Task(executor::TaskType::Reader, "range scan create", bucket->executor_owner()),
        bucket_(std::move(bucket)),
        registry_(registry),
        config_(std::move(config)),
        vbucket_(vbucket),
        notify_(std::move(notify)),
        deadline_ms_(registry.clock().steady_ms() +
                     (config_.snapshot ? config_.snapshot->timeout_ms : 0)) {}

  bool run() override {
    const engine::VBucket* vbucket = bucket_->vbucket(vbucket_);
    if (config_.snapshot && vbucket->high_seqno() < config_.snapshot->seqno) {
      if (registry_.clock().steady_ms() < deadline_ms_) {
        snooze(kSeqnoPollSeconds);
        return true;
      }
      answer(Status::Etmpfail);
      return false;
    }
    scan::KeySnapshot snapshot;
    try {
      engine::Persistence* persistence = bucket_->persistence();
      snapshot = scan::take_key_snapshot(bucket_->documents(),
                                         persistence ? &persistence->store() : nullptr, vbucket_,
                                         config_, registry_.clock().unix_seconds());
    } catch (const std::exception&) {
      answer(Status::Einternal);  // the disk could not be read; the store logged why
      return false;
    }
    if (config_.snapshot && config_.snapshot->seqno_exists && !snapshot.required_seqno_found) {
      answer(Status::NotStored);
      return false;
    }
    if (config_.sampling()) scan::draw_sample(snapshot.keys, config_.samples, config_.seed);
    if (snapshot.keys.empty()) {
      answer(Status::KeyEnoent);
      return false;
    }
    const std::optional<scan::ScanId> id =
        registry_.add(bucket_.get(), vbucket_, config_.key_only, std::move(snapshot.keys));
    if (!id) {
      answer(Status::Etmpfail);
      return false;
    }
    notify_([id = *id](Reply& reply) { reply.success(ReplyBody{.value = text_of(id)}); });
    return false;
  }

 private:
  void answer(Status status) {
    notify_([status](Reply& reply) { reply.error(status); });
  }

  const std::shared_ptr<engine::Bucket> bucket_;
  scan::ScanRegistry& registry_;
  const scan::ScanConfig config_;
  const uint16_t vbucket_;
  const ParkedNotifier notify_;
  const int64_t deadline_ms_;
};

// A continue's work: the next items, answered as frames.
class ContinueTask final : public executor::Task {
 public:
  ContinueTask(std::shared_ptr<engine::Bucket> bucket, scan::ScanRegistry& registry,
               std::shared_ptr<scan::RangeScan> scan, scan::ContinueLimits limits,
               ParkedNotifier notify)
      : executor::Task(executor::TaskType::Reader, "range scan continue", bucket->executor_owner()),
        bucket_(std::move(bucket)),
        registry_(registry),
        scan_(std::move(scan)),
        limits_(limits),
        notify_(std::move(notify)) {}

  ~ContinueTask() override {
    // A task cancelled with its bucket before it ran leaves the scan busy no more either.
    if (!released_) registry_.release(scan_);
  }

  bool run() override {
    engine::Persistence* persistence = bucket_->persistence();
    auto answer = std::make_shared<scan::ContinueAnswer>(
        scan_->continue_scan(bucket_->documents(), persistence ? &persistence->store() : nullptr,
                             limits_, registry_.clock()));
    // Before the answer goes: a client may send the next continue as soon as it has it.
    registry_.release(scan_);
    released_ = true;
    const bool documents = !scan_->key_only();
    notify_([answer, documents](Reply& reply) {
      if (answer->frames.empty()) {
        reply.error(answer->status);
        return;
      }
      uint8_t extras[4];
      protocol::store_be32(extras, documents ? 1 : 0);
      for (size_t i = 0; i < answer->frames.size(); ++i) {
        const bool last = i + 1 == answer->frames.size();
        reply.append(last ? answer->status : Status::Success,
                     ReplyBody{.extras = extras, .value = answer->frames[i]});
      }
    });
    return false;
  }

 private:
  const std::shared_ptr<engine::Bucket> bucket_;
  scan::ScanRegistry& registry_;
  const std::shared_ptr<scan::RangeScan> scan_;
  const scan::ContinueLimits limits_;
  const ParkedNotifier notify_;
  bool released_ = false;
};

}  // namespace

Outcome range_scan_create(const Command& cmd) {
  if (!scans_available(cmd)) return Outcome::Continue;
  scan::ScanConfig config;
  if (const std::optional<std::string> why = scan::parse_scan_config(cmd.value(), config)) {
    cmd.reply.error_with_json(Status::Einval, error_context(*why));
    return Outcome::Continue;
  }
  engine::Bucket& bucket = cmd.bucket();
  if (!bucket.warm()) {
    cmd.reply.error(Status::Etmpfail);
    return Outcome::Continue;
  }
  if (check_vbucket(cmd) != Status::Success) return Outcome::Continue;
  const cluster::CollectionsManifest& manifest = bucket.manifest();
  if (!manifest.has_collection(config.collection_id)) {
    cmd.reply.error_with_manifest_uid(Status::UnknownCollection, manifest.uid());
    return Outcome::Continue;
  }
  if (config.snapshot && config.snapshot->vb_uuid != bucket.vbucket(cmd.vbucket_id())->uuid()) {
    cmd.reply.error(Status::VbUuidNotEqual);
    return Outcome::Continue;
  }
  Node& node = cmd.node();
  if (!node.range_scans().has_room(&bucket)) {
    cmd.reply.error(Status::Etmpfail);
    return Outcome::Continue;
  }
  ParkedNotifier notify = cmd.session.parker->park(cmd.reply.request(), cmd.reply.context());
  node.range_scan_executor()->schedule(
      std::make_shared<CreateTask>(cmd.session.bucket, node.range_scans(), std::move(config),
                                   cmd.vbucket_id(), std::move(notify)));
  return Outcome::WouldBlock;
}

Outcome range_scan_continue(const Command& cmd) {
  if (!scans_available(cmd)) return Outcome::Continue;
  if (check_vbucket(cmd) != Status::Success) return Outcome::Continue;
  const uint8_t* extras = cmd.extras();
  const scan::ContinueLimits limits{.items = protocol::load_be32(extras + 16),
                                    .time_ms = protocol::load_be32(extras + 20),
                                    .bytes = protocol::load_be32(extras + 24)};
  Node& node = cmd.node();
  scan::ScanRegistry::Claim why;
  std::shared_ptr<scan::RangeScan> scan =
      node.range_scans().claim(scan_id_of(extras), &cmd.bucket(), cmd.vbucket_id(), why);
  switch (why) {
    case scan::ScanRegistry::Claim::Claimed:
      break;
    case scan::ScanRegistry::Claim::Unknown:
      cmd.reply.error(Status::KeyEnoent);
      return Outcome::Continue;
    case scan::ScanRegistry::Claim::Busy:
      cmd.reply.error(Status::Ebusy);
      return Outcome::Continue;
    case scan::ScanRegistry::Claim::Cancelled:
      cmd.reply.error(Status::RangeScanCancelled);
      return Outcome::Continue;
  }
  ParkedNotifier notify = cmd.session.parker->park(cmd.reply.request(), cmd.reply.context());
  node.range_scan_executor()->schedule(std::make_shared<ContinueTask>(
      cmd.session.bucket, node.range_scans(), std::move(scan), limits, std::move(notify)));
  return Outcome::WouldBlock;
}

Outcome range_scan_cancel(const Command& cmd) {
  if (check_vbucket(cmd) != Status::Success) return Outcome::Continue;
  if (cmd.node().range_scans().cancel(scan_id_of(cmd.extras()), &cmd.bucket(), cmd.vbucket_id())) {
    cmd.reply.success();
  } else {
    cmd.reply.error(Status::KeyEnoent);
  }
  return Outcome::Continue;
}

}  // namespace tern::commands
