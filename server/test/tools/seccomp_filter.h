#pragma once
// For the test tools that change what a program's system calls do (deny_io_uring,
// hold_fsync): one seccomp filter that answers `action` to each of some calls and allows the
// rest, installed on the calling thread and inherited by what it execs.

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace tern::test_tools {

// Call numbers are per architecture, so the filter checks it first, as seccomp asks. On an
// architecture it does not know, a filter would change nothing, silently.
#if defined(__x86_64__)
inline constexpr uint32_t kArchitecture = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
inline constexpr uint32_t kArchitecture = AUDIT_ARCH_AARCH64;
#else
#error "seccomp_filter.h: add this architecture's AUDIT_ARCH_ constant"
#endif

// Installs the filter; returns what seccomp(2) returns for `flags` (0, or with
// SECCOMP_FILTER_FLAG_NEW_LISTENER the listener's descriptor), or -1 with errno set.
inline int install_seccomp_filter(std::initializer_list<int> calls, uint32_t action,
                                  unsigned flags = 0) {
  std::vector<sock_filter> program = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArchitecture, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
  };
  // Each match jumps over the matches after it and the allow, to the action.
  auto left = static_cast<uint8_t>(calls.size());
  for (int call : calls) {
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(call), left, 0));
    --left;
  }
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  program.push_back(BPF_STMT(BPF_RET | BPF_K, action));
  sock_fprog filter{static_cast<unsigned short>(program.size()), program.data()};
  // Without no_new_privs an unprivileged process may not install a filter.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return static_cast<int>(::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &filter));
}

}  // namespace tern::test_tools
