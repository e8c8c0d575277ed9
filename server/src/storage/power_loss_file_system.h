#pragma once
// For tests of what survives a power failure: a RocksDB FileSystem over the machine's that
// records what was made durable, and on demand throws away everything that was not, as a
// machine that loses power would. A killed process loses nothing the operating system
// already has; a power failure loses all the operating system had not yet written to the
// disk, which only fsync and its kin promise. So a test that only kills a process cannot tell
// a store that syncs from one that does not; this file system can.
//
// The model, as strict as POSIX allows (and as RocksDB's own fault-injection tests assume):
// - A file's bytes survive up to where it was last synced (Sync, Fsync). Bytes appended
//   since are lost, all of them (see lose_unsynced for torn tails).
// - A name in a directory survives only once the directory itself was synced after the name
//   appeared: a file created, or renamed into place, since the directory's last sync
//   vanishes, and a rename over an older file brings the older file back. (So does a file
//   created over an older one, whose truncation POSIX would let survive: RocksDB never
//   reuses a name that way, it writes anew and renames.)
// - Deletions are taken as durable at once (a deleted file never comes back). Only RocksDB's
//   obsolete files are deleted, so this hides nothing a reader of the store relies on.
// Only files opened for writing through this file system are tracked: anything already on
// the disk when it first sees it counts as durable.
//
// A test cuts the power, either now or at the n-th call that would change the disk. Only the
// arming thread's calls count, so that a seeded schedule cuts at the same foreground call
// however RocksDB's background threads (not counted) interleave. With the power off, every
// such call fails with an I/O error and changes nothing, as on a dead machine. Once the store
// is closed, lose_unsynced() makes the disk what the power failure left, and restore_power()
// lets the next open begin.
//
// Thread-safe: RocksDB calls it from its own threads.

#include <rocksdb/file_system.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.h"

namespace tern::storage {

class PowerLossFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  explicit PowerLossFileSystem(
      std::shared_ptr<rocksdb::FileSystem> base = rocksdb::FileSystem::Default());

  // The power fails now.
  void cut_power();

  // The power fails just before the `calls`-th call from now, made on the calling thread,
  // that would change the disk (write, sync, create, rename, delete...); that call and every
  // later one fail. 0 disarms.
  void cut_power_after(uint64_t calls);

  bool power_is_on() const;

  // Makes the disk what the power failure left (see the model above). Call with the power
  // off and no file of it open (the store closed). `torn_tail_seed`, when set, keeps a
  // seeded random part of each file's unsynced bytes instead of none, as a disk that had
  // written some sectors of a write when the power went.
  void lose_unsynced(std::optional<uint64_t> torn_tail_seed = std::nullopt);

  // Power is back: calls succeed again. What is on the disk now counts as durable.
  void restore_power();

  const char* Name() const override { return "PowerLossFileSystem"; }

  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* file,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* file,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& name, const std::string& old_name,
                                      const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* file,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomRWFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSRandomRWFile>* file,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& options,
                                 std::unique_ptr<rocksdb::FSDirectory>* directory,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& from, const std::string& to,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LinkFile(const std::string& from, const std::string& to,
                             const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& name, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Truncate(const std::string& name, size_t size,
                             const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDir(const std::string& name, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& name, const rocksdb::IOOptions& options,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteDir(const std::string& name, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;

  // For the file and directory wrappers (power_loss_file_system.cc): each call that would
  // change the disk asks first, and gets an error while the power is off.
  rocksdb::IOStatus charge();
  void appended(const std::string& name, uint64_t new_size);
  void synced(const std::string& name);
  void directory_synced(const std::string& directory);

 private:
  // A file opened for writing: its length now, and how much of it a sync made durable.
  struct FileState {
    uint64_t size = 0;
    uint64_t synced_size = 0;
  };
  // A name that appeared in a directory since the directory's last sync: created, or moved
  // there from `from` (a rename). `backup` holds what the name held before, if anything.
  struct NewName {
    std::string name;
    std::string from;
    std::string backup;
  };

  // Moves an existing `name` aside, for its pending NewName to keep, and sets `backup` to
  // where ("" when there is no such file).
  rocksdb::IOStatus back_up_locked(const std::string& name, std::string* backup)
      TERN_REQUIRES(mutex_);
  // Puts a backup (if any) back under `name`.
  void restore_backup_locked(const std::string& backup, const std::string& name)
      TERN_REQUIRES(mutex_);

  mutable Mutex mutex_;
  bool power_on_ TERN_GUARDED_BY(mutex_) = true;
  uint64_t calls_until_cut_ TERN_GUARDED_BY(mutex_) = 0;  // 0: not armed
  std::thread::id armed_thread_ TERN_GUARDED_BY(mutex_);
  uint64_t backups_ TERN_GUARDED_BY(mutex_) = 0;
  std::map<std::string, FileState> files_ TERN_GUARDED_BY(mutex_);
  // By directory, oldest first.
  std::map<std::string, std::vector<NewName>> new_names_ TERN_GUARDED_BY(mutex_);
};

}  // namespace tern::storage
