// hold_fsync HOLD_FILE PROGRAM [ARGS...]: runs PROGRAM (looked up in PATH) with every call
// that makes data durable (fsync, fdatasync, sync_file_range, syncfs, sync) held while
// HOLD_FILE exists. A held call waits, then goes on as usual once the file is removed. So a
// test can stop a real ternd from persisting anything (its flusher blocks in the write-ahead
// log's sync) for as long as it likes, with no hook in ternd, and let it persist again.
//
// How: a seccomp filter sends those system calls to a supervisor (SECCOMP_RET_USER_NOTIF),
// which answers each with "continue" once the file is gone. PROGRAM keeps this process's PID,
// standard streams, signals and exit status: the caller sees PROGRAM alone. The supervisor is
// a child forked before the filter is installed (so that its own calls are not filtered),
// which gets the filter's listener over a socket, and ends when PROGRAM does.
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "seccomp_filter.h"

namespace {

// The calls that make data durable, held while the hold file exists.
int install_filter() {
  return tern::test_tools::install_seccomp_filter(
      {__NR_fsync, __NR_fdatasync, __NR_sync_file_range, __NR_syncfs, __NR_sync},
      SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER);
}

// One byte of data with room for one descriptor beside it: what send_fd and receive_fd pass.
struct FdMessage {
  FdMessage() {
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
  }
  FdMessage(const FdMessage&) = delete;
  FdMessage& operator=(const FdMessage&) = delete;

  char byte = 0;
  iovec data{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{};
};

bool send_fd(int socket, int fd) {
  FdMessage out;
  cmsghdr* header = CMSG_FIRSTHDR(&out.message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(header), &fd, sizeof(int));
  return ::sendmsg(socket, &out.message, 0) == 1;
}

int receive_fd(int socket) {
  FdMessage in;
  if (::recvmsg(socket, &in.message, 0) != 1) return -1;
  cmsghdr* header = CMSG_FIRSTHDR(&in.message);
  if (header == nullptr || header->cmsg_type != SCM_RIGHTS) return -1;
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(header), sizeof(int));
  return fd;
}

// Answers every held call, each once HOLD_FILE is gone, until the filtered program has ended
// (the listener then reports a hang-up).
[[noreturn]] void supervise(int listener, const char* hold_file) {
  while (true) {
    pollfd ready{listener, POLLIN, 0};
    if (::poll(&ready, 1, -1) < 0) {
      if (errno == EINTR) continue;
      ::_exit(1);
    }
    if (ready.revents & (POLLHUP | POLLERR | POLLNVAL)) ::_exit(0);
    seccomp_notif call{};
    if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &call) != 0) {
      if (errno == EINTR || errno == ENOENT) continue;  // ENOENT: the caller died meanwhile
      ::_exit(1);
    }
    // Polled, not watched: a held call waits at most a millisecond past the file's removal,
    // and one held call at a time is enough (the others queue in the kernel).
    while (::access(hold_file, F_OK) == 0 &&
           ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &call.id) == 0) {
      ::usleep(1000);
    }
    seccomp_notif_resp answer{};
    answer.id = call.id;
    answer.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;  // run the call itself, as if never held
    (void)::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &answer);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: hold_fsync HOLD_FILE PROGRAM [ARGS...]\n");
    return 64;
  }
  const char* hold_file = argv[1];
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
    std::perror("hold_fsync: socketpair");
    return 1;
  }
  const pid_t program_pid = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("hold_fsync: fork");
    return 1;
  }
  if (child == 0) {
    ::close(sockets[0]);
    // Ends with the program even if the listener's hang-up were missed.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != program_pid) ::_exit(0);
    const int listener = receive_fd(sockets[1]);
    if (listener < 0) ::_exit(0);  // the program's side failed and said why
    // Keep none of the program's streams open: a caller reading them to the end must see
    // their end when the program ends.
    const int null = ::open("/dev/null", O_RDWR);
    for (int stream = 0; stream <= 2; ++stream) ::dup2(null, stream);
    supervise(listener, hold_file);
  }
  ::close(sockets[1]);
  const int listener = install_filter();
  if (listener < 0) {
    std::fprintf(stderr, "hold_fsync: cannot install the filter: %s\n", std::strerror(errno));
    return 1;
  }
  if (!send_fd(sockets[0], listener)) {
    std::fprintf(stderr, "hold_fsync: cannot hand the listener over: %s\n", std::strerror(errno));
    return 1;
  }
  ::close(listener);
  ::close(sockets[0]);
  ::execvp(argv[2], argv + 2);
  std::fprintf(stderr, "hold_fsync: cannot run %s: %s\n", argv[2], std::strerror(errno));
  return 127;
}
