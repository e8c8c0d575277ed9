#include "auth/failure_throttle.h"

#include <algorithm>

namespace tern::auth {

void FailureThrottle::failed(int64_t now_ms) {
  // Saturate well before the shift could overflow; the window is capped long before.
  failures_ = std::min(failures_ + 1, kFreeFailures + 32);
  int penalised = failures_ - kFreeFailures;
  if (penalised <= 0) return;
  int64_t penalty_ms = std::min(kFirstPenaltyMs << (penalised - 1), kMaxPenaltyMs);
  refused_until_ms_ = now_ms + penalty_ms;
}

void FailureThrottle::succeeded() {
  failures_ = 0;
  refused_until_ms_ = INT64_MIN;
}

}  // namespace tern::auth
