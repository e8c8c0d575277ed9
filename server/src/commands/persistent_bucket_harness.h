#pragma once
// For tests of the commands against a real persistent bucket: a node whose one bucket,
// "default", is ephemeral or persistent (RocksDB in a temporary directory, its tasks on a
// ManualExecutor the test runs by hand), and connections to it that negotiated what durable
// writes and mutation tokens need. Shared by the commands/*_test.cc files that need a disk.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "commands/dispatcher.h"
#include "commands/dispatcher_harness.h"
#include "commands/features.h"
#include "commands/test_node.h"
#include "common/clock.h"
#include "engine/bucket.h"
#include "executor/manual_executor.h"
#include "protocol/status.h"
#include "storage/store.h"
#include "storage/temp_dir.h"

namespace tern::commands::testing {

class PersistentBucketTest : public ::testing::Test {
 protected:
  ~PersistentBucketTest() override { close(); }

  // A new node; a persistent bucket is not warm until start() ran its warmup (open_warm()).
  void open(bool persistent, engine::Config config = {}) {
    config.persistent = persistent;
    node_ = make_open_node(clock_, config);
    if (persistent) {
      bucket().make_persistent(
          storage::open_rocksdb_store(dir_.sub("default" + std::to_string(++opened_)), {}));
    }
    dispatcher_ = std::make_unique<Dispatcher>(*node_);
  }

  void open_warm(engine::Config config = {}) {
    open(true, config);
    bucket().persistence()->start(executor_, bucket().executor_owner());
    executor_.run_ready();
    ASSERT_TRUE(bucket().warm());
  }

  // A connection that negotiated what durable writes need, and mutation tokens.
  Connection& connect() {
    connections_.push_back(std::make_unique<Connection>(*dispatcher_, *node_));
    Connection& c = *connections_.back();
    EXPECT_EQ(c.hello({Feature::Xerror, Feature::AltRequestSupport, Feature::SyncReplication,
                       Feature::MutationSeqno, Feature::Json, Feature::Xattr})
                  .status,
              protocol::Status::Success);
    return c;
  }

  // Drops the connections, then the node, once its tasks are stopped.
  void close() {
    connections_.clear();
    if (node_ != nullptr) executor_.unregister(bucket().executor_owner());
    node_.reset();
  }

  // Runs what is due on the executor: the flusher persists (durable writes it covers are
  // committed), a background fetch reads.
  void flush() { executor_.run_ready(); }

  engine::Bucket& bucket() { return *node_->buckets().front(); }

  ManualClock clock_;
  storage::TempDir dir_;
  executor::ManualExecutor executor_{clock_};
  std::unique_ptr<Node> node_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::vector<std::unique_ptr<Connection>> connections_;
  int opened_ = 0;
};

}  // namespace tern::commands::testing
