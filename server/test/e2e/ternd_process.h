#pragma once
// A ternd child process for end-to-end tests: started on a free port (found by reading the
// "listening on" line it logs) and stopped with SIGTERM at the end, which must end it cleanly.
// Started with --config and no --data-dir, it gets a fresh temporary data directory of its
// own, removed when it stops: tests never share a couchbase bucket's files, nor leave any.
// Started with --tls-certificate, its TLS ports are free ones too unless `args` name them.

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tern::e2e {

class TerndProcess {
 public:
  // Starts TERND_PATH with --port 0 and `args` (and a fresh --data-dir, see above); waits
  // until it listens (fails the test if it does not within 30 s). With a `launcher`, runs
  // that program instead, with TERND_PATH and the arguments after it.
  explicit TerndProcess(std::vector<std::string> args = {}, std::vector<std::string> launcher = {});
  // Stops the process if it is still running; a failed clean exit fails the test.
  ~TerndProcess();
  TerndProcess(const TerndProcess&) = delete;
  TerndProcess& operator=(const TerndProcess&) = delete;

  uint16_t port() const { return port_; }
  // The management (HTTP) port: a free one unless `args` gave --mgmt-port; 0 when off.
  uint16_t mgmt_port() const { return mgmt_port_; }
  // The TLS ports (KV, management), read from the lines that log them; 0 when off.
  uint16_t tls_port() const { return tls_port_; }
  uint16_t mgmt_tls_port() const { return mgmt_tls_port_; }
  pid_t pid() const { return pid_; }

  // Sends `signal` and waits for the process to exit; returns its exit status as
  // waitpid reports it, or -1 if it had not exited within the timeout (it is then killed).
  int stop(int signal);

  // Everything the process has written to stderr so far.
  std::string log() const;

  // Waits (30 s at most) until the process has logged `text`; false if it has not.
  bool wait_for_log(const std::string& text);

 private:
  void drain_stderr();

  pid_t pid_ = -1;
  int stderr_fd_ = -1;
  uint16_t port_ = 0;
  uint16_t mgmt_port_ = 0;
  uint16_t tls_port_ = 0;
  uint16_t mgmt_tls_port_ = 0;
  mutable std::mutex log_mutex_;
  std::condition_variable log_grew_;
  std::string log_;
  std::thread drainer_;
  std::string own_data_dir_;  // the fresh --data-dir given to the process, or empty
};

// A configuration file for a test's ternd: `text` in a fresh temporary .toml file, removed
// with the object.
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& text);
  ~ConfigFile();
  ConfigFile(const ConfigFile&) = delete;
  ConfigFile& operator=(const ConfigFile&) = delete;

  const std::string& path() const { return path_; }
  // --config and the path, to start a TerndProcess with.
  std::vector<std::string> args() const { return {"--config", path_}; }

 private:
  std::string path_;
};

}  // namespace tern::e2e
