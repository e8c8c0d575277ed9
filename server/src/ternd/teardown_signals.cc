#include "ternd/teardown_signals.h"

#include <pthread.h>

#include <csignal>

namespace tern::ternd {

TeardownSignals::~TeardownSignals() {
  // Every other thread has been joined by now, so blocking the signals in this one keeps
  // them from the process while signals_ restores their default action as it goes; one
  // still pending when the process exits is discarded.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
}

void TeardownSignals::hold(bool hangup) {
  signals_.add(SIGINT);
  signals_.add(SIGTERM);
  if (hangup) signals_.add(SIGHUP);
}

}  // namespace tern::ternd
