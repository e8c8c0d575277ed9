#pragma once
// Time as the engine sees it. An interface so that tests can control it.

#include <atomic>
#include <cstdint>

namespace tern {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock Unix time in seconds; used only to interpret absolute expiry times.
  virtual int64_t unix_seconds() const = 0;
  // Wall-clock Unix time in nanoseconds; seeds a persistent bucket's CAS values, so that
  // they keep growing across restarts.
  virtual int64_t unix_nanoseconds() const = 0;
  // Monotonic milliseconds since an arbitrary origin; used for every deadline.
  virtual int64_t steady_ms() const = 0;
};

// The real clocks of the machine.
class SystemClock final : public Clock {
 public:
  int64_t unix_seconds() const override;
  int64_t unix_nanoseconds() const override;
  int64_t steady_ms() const override;
  // A process-wide instance.
  static const SystemClock& instance();
};

// A clock that moves only when told to. Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t unix_seconds = 1'700'000'000, int64_t steady_ms = 1'000'000)
      : unix_(unix_seconds), steady_(steady_ms) {}
  int64_t unix_seconds() const override { return unix_.load(); }
  int64_t unix_nanoseconds() const override { return unix_.load() * 1'000'000'000; }
  int64_t steady_ms() const override { return steady_.load(); }
  void advance_ms(int64_t ms) {
    steady_ += ms;
    unix_ += (ms / 1000);
  }
  void advance_seconds(int64_t s) { advance_ms(s * 1000); }

 private:
  std::atomic<int64_t> unix_;
  std::atomic<int64_t> steady_;
};

}  // namespace tern
