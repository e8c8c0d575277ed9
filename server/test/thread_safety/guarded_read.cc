// The proof that the thread-safety analysis refuses what it should (common/thread_annotations.h).
// CMake compiles this file twice in every clang build: with TERN_TAKE_THE_LOCK it reads the
// guarded field under its lock and must compile (it is part of every build, so a mistake here
// breaks the build instead of passing the test below); without it the read has no lock, and
// ctest's ThreadSafety.AGuardedReadWithoutItsLockDoesNotCompile expects its build to fail.

#include "common/mutex.h"

namespace {

struct Counter {
  tern::Mutex mutex;
  int value TERN_GUARDED_BY(mutex) = 0;
};

}  // namespace

int main() {
  Counter counter;
#ifdef TERN_TAKE_THE_LOCK
  tern::MutexLock lock(counter.mutex);
#endif
  return counter.value;
}
