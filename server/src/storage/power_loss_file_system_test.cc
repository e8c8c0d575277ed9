// The power-loss file system's model, call by call, and the RocksDB store through it: a
// batch the store wrote survives a power failure because the store syncs it, and would not
// if it did not.

#include "storage/power_loss_file_system.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "storage/store.h"
#include "storage/store_rocksdb.h"
#include "storage/temp_dir.h"

namespace tern::storage {
namespace {

namespace fs = std::filesystem;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class PowerLossFileSystemTest : public ::testing::Test {
 protected:
  std::unique_ptr<rocksdb::FSWritableFile> create(const std::string& name) {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    EXPECT_TRUE(disk_->NewWritableFile(path(name), {}, &file, nullptr).ok());
    return file;
  }
  void append(rocksdb::FSWritableFile& file, std::string_view data) {
    ASSERT_TRUE(file.Append(rocksdb::Slice(data.data(), data.size()), {}, nullptr).ok());
  }
  void sync(rocksdb::FSWritableFile& file) { ASSERT_TRUE(file.Sync({}, nullptr).ok()); }
  void sync_directory() {
    std::unique_ptr<rocksdb::FSDirectory> directory;
    ASSERT_TRUE(disk_->NewDirectory(dir_.path().string(), {}, &directory, nullptr).ok());
    ASSERT_TRUE(directory->Fsync({}, nullptr).ok());
  }
  std::string path(const std::string& name) const { return dir_.sub(name); }

  // The power fails with `file` open, which is then closed, as a dead process's files are.
  void power_failure(std::unique_ptr<rocksdb::FSWritableFile> file = nullptr) {
    disk_->cut_power();
    if (file) (void)file->Close({}, nullptr);
    disk_->lose_unsynced();
    disk_->restore_power();
  }

  TempDir dir_;
  std::shared_ptr<PowerLossFileSystem> disk_ = std::make_shared<PowerLossFileSystem>();
};

TEST_F(PowerLossFileSystemTest, BytesSurviveUpToTheLastSync) {
  auto file = create("log");
  sync_directory();
  append(*file, "synced;");
  sync(*file);
  append(*file, "not synced");
  ASSERT_EQ(contents(path("log")), "synced;not synced") << "the process itself sees it all";
  power_failure(std::move(file));
  EXPECT_EQ(contents(path("log")), "synced;");
}

TEST_F(PowerLossFileSystemTest, ANewFileVanishesUnlessItsDirectoryWasSynced) {
  auto lost = create("lost");
  append(*lost, "data");
  sync(*lost);  // its bytes, but not its name
  power_failure(std::move(lost));
  EXPECT_FALSE(fs::exists(path("lost")));

  auto kept = create("kept");
  append(*kept, "data");
  sync(*kept);
  sync_directory();
  power_failure(std::move(kept));
  EXPECT_EQ(contents(path("kept")), "data");
}

TEST_F(PowerLossFileSystemTest, ARenameOverAFileIsUndoneUnlessTheDirectoryWasSynced) {
  for (const char* name : {"CURRENT", "next"}) {
    auto file = create(name);
    append(*file, std::string(name) + " content");
    sync(*file);
    ASSERT_TRUE(file->Close({}, nullptr).ok());
  }
  sync_directory();
  ASSERT_TRUE(disk_->RenameFile(path("next"), path("CURRENT"), {}, nullptr).ok());
  ASSERT_EQ(contents(path("CURRENT")), "next content");
  power_failure();
  EXPECT_EQ(contents(path("CURRENT")), "CURRENT content");
  EXPECT_EQ(contents(path("next")), "next content");

  ASSERT_TRUE(disk_->RenameFile(path("next"), path("CURRENT"), {}, nullptr).ok());
  sync_directory();
  power_failure();
  EXPECT_EQ(contents(path("CURRENT")), "next content");
  EXPECT_FALSE(fs::exists(path("next")));
}

TEST_F(PowerLossFileSystemTest, ATornTailKeepsSomeOfTheUnsyncedBytesAndNeverTheSyncedLess) {
  auto file = create("log");
  sync_directory();
  append(*file, "synced;");
  sync(*file);
  append(*file, std::string(1000, 'x'));
  disk_->cut_power();
  (void)file->Close({}, nullptr);
  disk_->lose_unsynced(/*torn_tail_seed=*/7);
  const std::string left = contents(path("log"));
  EXPECT_GE(left.size(), 7u);
  EXPECT_LE(left.size(), 1007u);
  EXPECT_EQ(left.substr(0, 7), "synced;");
}

TEST_F(PowerLossFileSystemTest, ThePowerFailsAtTheArmedCallAndEveryCallAfterItFails) {
  auto file = create("log");
  disk_->cut_power_after(3);
  append(*file, "one;");
  append(*file, "two;");
  EXPECT_FALSE(file->Append("three", {}, nullptr).ok());
  EXPECT_FALSE(disk_->power_is_on());
  EXPECT_FALSE(file->Sync({}, nullptr).ok());
  std::unique_ptr<rocksdb::FSWritableFile> other;
  EXPECT_FALSE(disk_->NewWritableFile(path("other"), {}, &other, nullptr).ok());
  EXPECT_EQ(contents(path("log")), "one;two;") << "a refused call changes nothing";
  EXPECT_FALSE(fs::exists(path("other")));
}

// The store itself: what a power failure leaves of a batch it acknowledged.
class StoreUnderPowerLossTest : public PowerLossFileSystemTest {
 protected:
  std::unique_ptr<Store> open(bool sync_writes = true) {
    return open_rocksdb_store(dir_.sub("bucket"), {},
                              {.file_system = disk_, .sync_writes = sync_writes});
  }
  void write_one(Store& store, std::string_view key, uint64_t seqno) {
    const Record record{{.cas = 100 + seqno, .seqno = seqno, .vbucket = 3}, key, "value"};
    const VBucketSeqno high{3, seqno};
    store.write({&record, 1}, {&high, 1});
  }
  // The power fails with the store open; it closes on the dead disk, and is opened again.
  std::unique_ptr<Store> after_power_failure(std::unique_ptr<Store> store,
                                             bool sync_writes = true) {
    disk_->cut_power();
    store.reset();
    disk_->lose_unsynced();
    disk_->restore_power();
    return open(sync_writes);
  }
};

TEST_F(StoreUnderPowerLossTest, AWrittenBatchSurvivesAPowerFailure) {
  auto store = open();
  write_one(*store, "first", 1);
  write_one(*store, "second", 2);
  store = after_power_failure(std::move(store));
  ASSERT_TRUE(store->get(3, "first").has_value());
  ASSERT_TRUE(store->get(3, "second").has_value());
  EXPECT_EQ(store->get(3, "second")->cas, 102u);
  ASSERT_EQ(store->high_seqnos().size(), 1u);
  EXPECT_EQ(store->high_seqnos()[0].seqno, 2u);
}

// What the test above would miss without this file system: a store that does not sync loses
// the batch it acknowledged, though a killed process would not have.
TEST_F(StoreUnderPowerLossTest, WithoutSyncTheBatchIsLost) {
  auto store = open(/*sync_writes=*/false);
  write_one(*store, "first", 1);
  store = after_power_failure(std::move(store), /*sync_writes=*/false);
  EXPECT_FALSE(store->get(3, "first").has_value());
  EXPECT_TRUE(store->high_seqnos().empty());
}

}  // namespace
}  // namespace tern::storage
