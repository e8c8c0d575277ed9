#pragma once
// For tests: a fresh, empty directory under the system's temporary directory, removed with
// everything in it when the TempDir goes. Each test that opens a real store takes one, so no
// test sees another's files, even when test binaries run in parallel.

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace tern::storage {

class TempDir {
 public:
  // Throws std::runtime_error when the directory cannot be made.
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tern-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp " + pattern + " failed");
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // A path inside the directory (not created).
  std::string sub(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace tern::storage
