#include "storage/power_loss_file_system.h"

#include <algorithm>
#include <filesystem>
#include <random>
#include <system_error>
#include <utility>

namespace tern::storage {
namespace {

namespace fs = std::filesystem;

// One spelling per path, so that a file and its directory are found under the names
// RocksDB used for either.
std::string normal(const std::string& path) {
  std::string out = fs::path(path).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string directory_of(const std::string& normal_path) {
  return fs::path(normal_path).parent_path().string();
}

rocksdb::IOStatus unsupported(const char* what) {
  return rocksdb::IOStatus::NotSupported(std::string("PowerLossFileSystem: ") + what);
}

// A file opened for writing: tells the file system how long it is and what was synced.
class TrackedWritableFile final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  TrackedWritableFile(std::unique_ptr<rocksdb::FSWritableFile> file, PowerLossFileSystem& owner,
                      std::string name, uint64_t size)
      : FSWritableFileOwnerWrapper(std::move(file)),
        owner_(owner),
        name_(std::move(name)),
        size_(size) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    return grown(charged([&] { return FSWritableFileOwnerWrapper::Append(data, options, dbg); }),
                 size_ + data.size());
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* dbg) override {
    return grown(
        charged([&] { return FSWritableFileOwnerWrapper::Append(data, options, info, dbg); }),
        size_ + data.size());
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     rocksdb::IODebugContext* dbg) override {
    return grown(charged([&] {
                   return FSWritableFileOwnerWrapper::PositionedAppend(data, offset, options, dbg);
                 }),
                 std::max(size_, offset + data.size()));
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     const rocksdb::DataVerificationInfo& info,
                                     rocksdb::IODebugContext* dbg) override {
    return grown(charged([&] {
                   return FSWritableFileOwnerWrapper::PositionedAppend(data, offset, options, info,
                                                                       dbg);
                 }),
                 std::max(size_, offset + data.size()));
  }
  rocksdb::IOStatus Truncate(uint64_t size, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override {
    return grown(charged([&] { return FSWritableFileOwnerWrapper::Truncate(size, options, dbg); }),
                 size);
  }
  rocksdb::IOStatus Flush(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return charged([&] { return FSWritableFileOwnerWrapper::Flush(options, dbg); });
  }
  // The syncs are recorded, not passed on: durability is this file system's model, and a
  // real sync per call would make a test of hundreds of power failures take minutes.
  rocksdb::IOStatus Sync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return made_durable(owner_.charge());
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return made_durable(owner_.charge());
  }
  // sync_file_range starts writeback but promises nothing: the bytes stay unsynced.
  rocksdb::IOStatus RangeSync(uint64_t, uint64_t, const rocksdb::IOOptions&,
                              rocksdb::IODebugContext*) override {
    return owner_.charge();
  }
  rocksdb::IOStatus Allocate(uint64_t offset, uint64_t length, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override {
    return charged(
        [&] { return FSWritableFileOwnerWrapper::Allocate(offset, length, options, dbg); });
  }
  // Close is not charged: it changes nothing on the disk, and a dead machine's files are
  // closed all the same.

 private:
  // Makes the call only while the power is on (every call that changes the disk asks).
  template <typename Call>
  rocksdb::IOStatus charged(Call call) {
    if (auto status = owner_.charge(); !status.ok()) return status;
    return call();
  }
  rocksdb::IOStatus grown(rocksdb::IOStatus status, uint64_t new_size) {
    if (status.ok()) {
      size_ = new_size;
      owner_.appended(name_, new_size);
    }
    return status;
  }
  rocksdb::IOStatus made_durable(rocksdb::IOStatus status) {
    if (status.ok()) owner_.synced(name_);
    return status;
  }

  PowerLossFileSystem& owner_;
  const std::string name_;
  uint64_t size_;
};

class TrackedDirectory final : public rocksdb::FSDirectoryWrapper {
 public:
  TrackedDirectory(std::unique_ptr<rocksdb::FSDirectory> directory, PowerLossFileSystem& owner,
                   std::string name)
      : FSDirectoryWrapper(std::move(directory)), owner_(owner), name_(std::move(name)) {}

  // Recorded, not passed on, as a file's sync.
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    auto status = owner_.charge();
    if (status.ok()) owner_.directory_synced(name_);
    return status;
  }
  rocksdb::IOStatus FsyncWithDirOptions(const rocksdb::IOOptions& options,
                                        rocksdb::IODebugContext* dbg,
                                        const rocksdb::DirFsyncOptions&) override {
    return Fsync(options, dbg);
  }

 private:
  PowerLossFileSystem& owner_;
  const std::string name_;
};

}  // namespace

PowerLossFileSystem::PowerLossFileSystem(std::shared_ptr<rocksdb::FileSystem> base)
    : FileSystemWrapper(std::move(base)) {}

void PowerLossFileSystem::cut_power() {
  MutexLock lock(mutex_);
  power_on_ = false;
}

void PowerLossFileSystem::cut_power_after(uint64_t calls) {
  MutexLock lock(mutex_);
  calls_until_cut_ = calls;
  armed_thread_ = std::this_thread::get_id();
}

bool PowerLossFileSystem::power_is_on() const {
  MutexLock lock(mutex_);
  return power_on_;
}

rocksdb::IOStatus PowerLossFileSystem::charge() {
  MutexLock lock(mutex_);
  if (power_on_ && calls_until_cut_ != 0 && std::this_thread::get_id() == armed_thread_ &&
      --calls_until_cut_ == 0) {
    power_on_ = false;
  }
  if (!power_on_) return rocksdb::IOStatus::IOError("the power is off (PowerLossFileSystem)");
  return rocksdb::IOStatus::OK();
}

void PowerLossFileSystem::appended(const std::string& name, uint64_t new_size) {
  MutexLock lock(mutex_);
  FileState& file = files_[name];
  file.size = new_size;
  file.synced_size = std::min(file.synced_size, new_size);
}

void PowerLossFileSystem::synced(const std::string& name) {
  MutexLock lock(mutex_);
  FileState& file = files_[name];
  file.synced_size = file.size;
}

void PowerLossFileSystem::directory_synced(const std::string& directory) {
  MutexLock lock(mutex_);
  auto it = new_names_.find(directory);
  if (it == new_names_.end()) return;
  std::error_code ignored;
  for (const NewName& added : it->second) {
    if (!added.backup.empty()) fs::remove(added.backup, ignored);
  }
  new_names_.erase(it);
}

rocksdb::IOStatus PowerLossFileSystem::back_up_locked(const std::string& name,
                                                      std::string* backup) {
  backup->clear();
  std::error_code error;
  if (!fs::exists(name, error)) return rocksdb::IOStatus::OK();
  std::string aside = directory_of(name) + "/.power-loss-backup-" + std::to_string(++backups_);
  fs::rename(name, aside, error);
  if (error) {
    return rocksdb::IOStatus::IOError("PowerLossFileSystem: cannot keep " + name +
                                      " aside: " + error.message());
  }
  *backup = std::move(aside);
  return rocksdb::IOStatus::OK();
}

void PowerLossFileSystem::restore_backup_locked(const std::string& backup,
                                                const std::string& name) {
  std::error_code ignored;
  if (!backup.empty()) fs::rename(backup, name, ignored);
}

rocksdb::IOStatus PowerLossFileSystem::NewWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file, rocksdb::IODebugContext* dbg) {
  if (auto status = charge(); !status.ok()) return status;
  const std::string path = normal(name);
  MutexLock lock(mutex_);
  // A file written anew over an old one: the old one survives until the directory is synced.
  std::string backup;
  if (auto status = back_up_locked(path, &backup); !status.ok()) return status;
  auto status = target()->NewWritableFile(path, options, file, dbg);
  if (!status.ok()) {
    restore_backup_locked(backup, path);
    return status;
  }
  new_names_[directory_of(path)].push_back({path, "", std::move(backup)});
  files_[path] = FileState{0, 0};
  *file = std::make_unique<TrackedWritableFile>(std::move(*file), *this, path, 0);
  return status;
}

rocksdb::IOStatus PowerLossFileSystem::ReopenWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file, rocksdb::IODebugContext* dbg) {
  if (auto status = charge(); !status.ok()) return status;
  const std::string path = normal(name);
  MutexLock lock(mutex_);
  std::error_code error;
  const bool existed = fs::exists(path, error);
  auto status = target()->ReopenWritableFile(path, options, file, dbg);
  if (!status.ok()) return status;
  auto tracked = files_.find(path);
  uint64_t size = 0;
  if (tracked != files_.end()) {
    size = tracked->second.size;
  } else if (existed) {
    size = fs::file_size(path, error);
    files_[path] = FileState{size, size};  // on the disk before: durable
  } else {
    new_names_[directory_of(path)].push_back({path, "", ""});
    files_[path] = FileState{0, 0};
  }
  *file = std::make_unique<TrackedWritableFile>(std::move(*file), *this, path, size);
  return status;
}

rocksdb::IOStatus PowerLossFileSystem::ReuseWritableFile(const std::string&, const std::string&,
                                                         const rocksdb::FileOptions&,
                                                         std::unique_ptr<rocksdb::FSWritableFile>*,
                                                         rocksdb::IODebugContext*) {
  return unsupported("recycled log files");  // the store keeps recycle_log_file_num at 0
}

rocksdb::IOStatus PowerLossFileSystem::NewRandomRWFile(const std::string&,
                                                       const rocksdb::FileOptions&,
                                                       std::unique_ptr<rocksdb::FSRandomRWFile>*,
                                                       rocksdb::IODebugContext*) {
  return unsupported("files rewritten in place");  // the store's options never ask for one
}

rocksdb::IOStatus PowerLossFileSystem::NewDirectory(
    const std::string& name, const rocksdb::IOOptions& options,
    std::unique_ptr<rocksdb::FSDirectory>* directory, rocksdb::IODebugContext* dbg) {
  auto status = target()->NewDirectory(name, options, directory, dbg);
  if (status.ok()) {
    *directory = std::make_unique<TrackedDirectory>(std::move(*directory), *this, normal(name));
  }
  return status;
}

rocksdb::IOStatus PowerLossFileSystem::RenameFile(const std::string& from, const std::string& to,
                                                  const rocksdb::IOOptions& options,
                                                  rocksdb::IODebugContext* dbg) {
  if (auto status = charge(); !status.ok()) return status;
  const std::string source = normal(from);
  const std::string target_path = normal(to);
  MutexLock lock(mutex_);
  std::string backup;
  if (auto status = back_up_locked(target_path, &backup); !status.ok()) return status;
  auto status = target()->RenameFile(source, target_path, options, dbg);
  if (!status.ok()) {
    restore_backup_locked(backup, target_path);
    return status;
  }
  new_names_[directory_of(target_path)].push_back({target_path, source, std::move(backup)});
  if (auto node = files_.extract(source)) {
    node.key() = target_path;
    files_.insert_or_assign(target_path, node.mapped());
  }
  return status;
}

rocksdb::IOStatus PowerLossFileSystem::LinkFile(const std::string& from, const std::string& to,
                                                const rocksdb::IOOptions& options,
                                                rocksdb::IODebugContext* dbg) {
  if (auto status = charge(); !status.ok()) return status;
  const std::string path = normal(to);
  MutexLock lock(mutex_);
  auto status = target()->LinkFile(from, path, options, dbg);
  if (status.ok()) new_names_[directory_of(path)].push_back({path, "", ""});
  return status;
}

rocksdb::IOStatus PowerLossFileSystem::DeleteFile(const std::string& name,
                                                  const rocksdb::IOOptions& options,
                                                  rocksdb::IODebugContext* dbg) {
  if (auto status = charge(); !status.ok()) return status;
  const std::string path = normal(name);
  MutexLock lock(mutex_);
  auto status = target()->DeleteFile(path, options, dbg);
  if (!status.ok()) return status;
  // Durable at once (see the model): the name, and whatever it replaced, are gone for good.
  files_.erase(path);
  auto pending = new_names_.find(directory_of(path));
  if (pending != new_names_.end()) {
    std::erase_if(pending->second, [&path](const NewName& added) {
      if (added.name != path) return false;
      std::error_code ignored;
      if (!added.backup.empty()) fs::remove(added.backup, ignored);
      return true;
    });
  }
  return status;
}

rocksdb::IOStatus PowerLossFileSystem::Truncate(const std::string& name, size_t size,
                                                const rocksdb::IOOptions& options,
                                                rocksdb::IODebugContext* dbg) {
  if (auto status = charge(); !status.ok()) return status;
  const std::string path = normal(name);
  auto status = target()->Truncate(path, size, options, dbg);
  MutexLock lock(mutex_);
  if (status.ok()) {
    if (auto tracked = files_.find(path); tracked != files_.end()) {
      tracked->second.size = size;
      tracked->second.synced_size = std::min<uint64_t>(tracked->second.synced_size, size);
    }
  }
  return status;
}

rocksdb::IOStatus PowerLossFileSystem::CreateDir(const std::string& name,
                                                 const rocksdb::IOOptions& options,
                                                 rocksdb::IODebugContext* dbg) {
  if (auto status = charge(); !status.ok()) return status;
  return target()->CreateDir(name, options, dbg);
}

rocksdb::IOStatus PowerLossFileSystem::CreateDirIfMissing(const std::string& name,
                                                          const rocksdb::IOOptions& options,
                                                          rocksdb::IODebugContext* dbg) {
  if (auto status = charge(); !status.ok()) return status;
  return target()->CreateDirIfMissing(name, options, dbg);
}

rocksdb::IOStatus PowerLossFileSystem::DeleteDir(const std::string& name,
                                                 const rocksdb::IOOptions& options,
                                                 rocksdb::IODebugContext* dbg) {
  if (auto status = charge(); !status.ok()) return status;
  return target()->DeleteDir(name, options, dbg);
}

void PowerLossFileSystem::lose_unsynced(std::optional<uint64_t> torn_tail_seed) {
  MutexLock lock(mutex_);
  std::mt19937_64 random(torn_tail_seed.value_or(0));
  std::error_code ignored;
  // Bytes first, under the names the files have now; then the names, newest change first.
  for (const auto& [path, file] : files_) {
    uint64_t keep = file.synced_size;
    if (torn_tail_seed && file.size > file.synced_size) {
      keep += random() % (file.size - file.synced_size + 1);
    }
    std::error_code missing;
    const uint64_t on_disk = fs::file_size(path, missing);
    // Longer on the disk than written: space RocksDB preallocated, never written either.
    if (!missing && on_disk > keep) fs::resize_file(path, keep, ignored);
  }
  for (auto& [directory, added] : new_names_) {
    for (auto it = added.rbegin(); it != added.rend(); ++it) {
      if (it->from.empty()) {
        fs::remove(it->name, ignored);
      } else if (fs::exists(it->name, ignored)) {
        fs::rename(it->name, it->from, ignored);
      }
      restore_backup_locked(it->backup, it->name);
    }
  }
  new_names_.clear();
  files_.clear();
}

void PowerLossFileSystem::restore_power() {
  MutexLock lock(mutex_);
  std::error_code ignored;
  for (const auto& [directory, added] : new_names_) {
    for (const NewName& name : added) {
      if (!name.backup.empty()) fs::remove(name.backup, ignored);
    }
  }
  new_names_.clear();
  files_.clear();
  power_on_ = true;
  calls_until_cut_ = 0;
}

}  // namespace tern::storage
