#include "ternd/teardown_signals.h"

#include <csignal>

namespace tern::ternd {

TeardownSignals::~TeardownSignals() = default;

TeardownSignals::IgnoreOnExit::~IgnoreOnExit() {
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_IGN);
}

void TeardownSignals::hold() {
  signals_.add(SIGINT);
  signals_.add(SIGTERM);
}

}  // namespace tern::ternd
