#pragma once
// Keeps SIGINT and SIGTERM (and SIGHUP, when the server caught it) from killing ternd while
// it tears down. The server catches them
// while it serves, but its asio::signal_set restores their default action when destroyed;
// a second Ctrl-C or SIGTERM while the executor joins and the engine frees its memory would
// then end the process by signal instead of letting it finish its clean exit.

#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>

namespace tern::ternd {

class TeardownSignals {
 public:
  TeardownSignals() = default;
  TeardownSignals(const TeardownSignals&) = delete;
  TeardownSignals& operator=(const TeardownSignals&) = delete;
  // Leaves the signals blocked: this is the last object main() destroys.
  ~TeardownSignals();

  // Call once the server catches the signals, and keep this object alive longer than the
  // server: from then on a signal the server no longer wants is dropped. Not earlier, so
  // that a signal during start-up still stops the process.
  // `hangup`: the server catches SIGHUP too.
  void hold(bool hangup = false);

 private:
  asio::io_context context_;  // never run: what signals_ receives is dropped
  asio::signal_set signals_{context_};
};

}  // namespace tern::ternd
