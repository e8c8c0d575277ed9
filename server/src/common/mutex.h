#pragma once
// A std::mutex the thread-safety analysis knows (common/thread_annotations.h), and its two
// holders: MutexLock for a scope, UniqueLock where the holder unlocks and locks again midway or
// waits on a condition variable. SharedMutex is a std::shared_mutex the analysis knows, held
// for a scope by WriterLock (exclusively; the same ScopedLock as MutexLock) or ReaderLock
// (shared). Each costs exactly what the std type it wraps does.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "common/thread_annotations.h"

namespace tern {

class TERN_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() TERN_ACQUIRE() { mutex_.lock(); }
  void unlock() TERN_RELEASE() { mutex_.unlock(); }
  bool try_lock() TERN_TRY_ACQUIRE(true) { return mutex_.try_lock(); }

  // For the analysis only: tells it that this mutex is held where it cannot see that it is
  // (a callback run under a lock its caller took). Checks nothing at run time.
  void assert_held() const TERN_THREAD_ANNOTATION(assert_capability(this)) {}

 private:
  friend class UniqueLock;
  std::mutex mutex_;
};

// Holds `mutex` from construction, may release and take it again (unlock(), lock()), and
// releases it at the end of the scope if held then. wait() waits on a condition variable,
// released meanwhile, as std::condition_variable::wait does: the analysis cannot see inside a
// predicate lambda, so one that reads guarded fields is marked TERN_REQUIRES(mutex).
class TERN_SCOPED_CAPABILITY UniqueLock {
 public:
  explicit UniqueLock(Mutex& mutex) TERN_ACQUIRE(mutex) : lock_(mutex.mutex_) {}
  ~UniqueLock() TERN_RELEASE() = default;
  UniqueLock(const UniqueLock&) = delete;
  UniqueLock& operator=(const UniqueLock&) = delete;

  void lock() TERN_ACQUIRE() { lock_.lock(); }
  void unlock() TERN_RELEASE() { lock_.unlock(); }

  template <class Predicate>
  void wait(std::condition_variable& condition, Predicate done) {
    condition.wait(lock_, std::move(done));
  }
  // As wait(), until `deadline` at the latest; returns done().
  template <class Clock, class Duration, class Predicate>
  bool wait_until(std::condition_variable& condition,
                  const std::chrono::time_point<Clock, Duration>& deadline, Predicate done) {
    return condition.wait_until(lock_, deadline, std::move(done));
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

class TERN_CAPABILITY("mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void lock() TERN_ACQUIRE() { mutex_.lock(); }
  void unlock() TERN_RELEASE() { mutex_.unlock(); }
  void lock_shared() TERN_ACQUIRE_SHARED() { mutex_.lock_shared(); }
  void unlock_shared() TERN_RELEASE_SHARED() { mutex_.unlock_shared(); }

 private:
  std::shared_mutex mutex_;
};

// Holds `mutex` (a Mutex, or a SharedMutex exclusively) from construction to the end of the
// scope: as MutexLock and WriterLock.
template <class Lockable>
class TERN_SCOPED_CAPABILITY ScopedLock {
 public:
  explicit ScopedLock(Lockable& mutex) TERN_ACQUIRE(mutex) : mutex_(mutex) { mutex_.lock(); }
  ~ScopedLock() TERN_RELEASE() { mutex_.unlock(); }
  ScopedLock(const ScopedLock&) = delete;
  ScopedLock& operator=(const ScopedLock&) = delete;

 private:
  Lockable& mutex_;
};
using MutexLock = ScopedLock<Mutex>;
using WriterLock = ScopedLock<SharedMutex>;

// Holds `mutex` shared from construction to the end of the scope.
class TERN_SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(SharedMutex& mutex) TERN_ACQUIRE_SHARED(mutex) : mutex_(mutex) {
    mutex_.lock_shared();
  }
  ~ReaderLock() TERN_RELEASE() { mutex_.unlock_shared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  SharedMutex& mutex_;
};

}  // namespace tern
