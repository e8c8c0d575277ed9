// deny_io_uring PROGRAM [ARGS...]: runs PROGRAM with io_uring_setup refused (EPERM), as a
// locked-down container's seccomp profile refuses it, so that tests can see ternd fall back
// to epoll on a kernel that would allow io_uring.
#include <errno.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "seccomp_filter.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: deny_io_uring PROGRAM [ARGS...]\n");
    return 64;
  }
  if (tern::test_tools::install_seccomp_filter(
          {__NR_io_uring_setup}, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)) != 0) {
    std::fprintf(stderr, "deny_io_uring: cannot install the filter: %s\n", std::strerror(errno));
    return 1;
  }
  ::execv(argv[1], argv + 1);
  std::fprintf(stderr, "deny_io_uring: cannot run %s: %s\n", argv[1], std::strerror(errno));
  return 127;
}
