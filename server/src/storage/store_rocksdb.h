#pragma once
// What only tests change about the RocksDB store: the file system it runs on, and whether it
// syncs. The server opens it with open_rocksdb_store (store.h), which never changes either.

#include <rocksdb/file_system.h>

#include <memory>
#include <string>

#include "storage/store.h"

namespace tern::storage {

struct RocksDBTestHooks {
  // The file system under the store (power_loss_file_system.h); null for the machine's.
  std::shared_ptr<rocksdb::FileSystem> file_system;
  // False leaves each batch in the operating system's cache, unsynced: the store a power
  // failure test must catch. Never false in the server.
  bool sync_writes = true;
  // False leaves compaction to Store::compact(). After a failed compaction RocksDB waits a
  // second before the next, and its close waits for that: a test that cuts the power hundreds
  // of times compacts in the foreground instead.
  bool auto_compactions = true;
};

// open_rocksdb_store, with the test's hooks.
std::unique_ptr<Store> open_rocksdb_store(const std::string& directory, StoreOptions options,
                                          const RocksDBTestHooks& hooks);

}  // namespace tern::storage
