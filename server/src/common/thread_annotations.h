#pragma once
// Clang's thread-safety analysis (-Wthread-safety), as LevelDB and Abseil spell it: a mutex is
// a capability, the data it guards says so, and a function that needs it held says so too.
// The compiler then refuses a read or write of guarded data without its lock, and a call to a
// function that needs a lock its caller does not hold. Every clang build checks (CMakeLists:
// -Werror=thread-safety); under GCC the macros expand to nothing.
//
//   class Shard {
//     Mutex mutex;
//     HashTable table TERN_GUARDED_BY(mutex);
//   };
//   void purge(Shard& shard) TERN_REQUIRES(shard.mutex);
//
// Use Mutex and its locks (common/mutex.h), not std::mutex: libstdc++'s carry no attributes.

#if defined(__clang__)
#define TERN_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define TERN_THREAD_ANNOTATION(x)
#endif

// On a class: its objects are locks (a Mutex).
#define TERN_CAPABILITY(name) TERN_THREAD_ANNOTATION(capability(name))
// On a class: an RAII holder of a lock (MutexLock, UniqueLock).
#define TERN_SCOPED_CAPABILITY TERN_THREAD_ANNOTATION(scoped_lockable)
// On a member: read or written only with `mutex` held.
#define TERN_GUARDED_BY(mutex) TERN_THREAD_ANNOTATION(guarded_by(mutex))
// On a pointer member: what it points to is read or written only with `mutex` held.
#define TERN_PT_GUARDED_BY(mutex) TERN_THREAD_ANNOTATION(pt_guarded_by(mutex))
// On a function: its caller must hold these locks.
#define TERN_REQUIRES(...) TERN_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// On a function: its caller must not hold these locks (it takes them itself).
#define TERN_EXCLUDES(...) TERN_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// On a function: it takes these locks and returns with them held.
#define TERN_ACQUIRE(...) TERN_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
// On a function: it releases these locks, held on entry.
#define TERN_RELEASE(...) TERN_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
// On a function: it takes these locks shared (a reader's hold), which it returns held.
#define TERN_ACQUIRE_SHARED(...) TERN_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
// On a function: it releases these locks, held shared on entry.
#define TERN_RELEASE_SHARED(...) TERN_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
// On a function: its caller must hold these locks, at least shared.
#define TERN_REQUIRES_SHARED(...) TERN_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
// On a function: it takes the lock when it returns `result`.
#define TERN_TRY_ACQUIRE(...) TERN_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
// On a function: returns a reference to this lock (an accessor the analysis can see through).
#define TERN_RETURN_CAPABILITY(mutex) TERN_THREAD_ANNOTATION(lock_returned(mutex))
// On a function: the analysis does not look inside. Only where it cannot follow the locking
// (say why beside it), never to silence a real finding.
#define TERN_NO_THREAD_SAFETY_ANALYSIS TERN_THREAD_ANNOTATION(no_thread_safety_analysis)
