#pragma once
// For the io_uring tests: connected TCP pairs on loopback, a client end that writes and
// reads without blocking (a test pumps it between turns of the loop it drives), and a
// transport owner that records what it hears. Test-only (header-only, so the library
// does not carry it).

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "net/transport.h"
#include "uring/uring_loop.h"
#include "uring/uring_loops.h"
#include "uring/uring_transport.h"

namespace tern::uring::testing {

// Whether this kernel refuses io_uring (locked-down containers answer EPERM): the tests
// then skip, as ternd falls back to epoll there.
inline bool uring_refused() {
  static const bool refused = [] {
    try {
      UringLoop probe;
      return false;
    } catch (const IoUringUnavailable&) {
      return true;
    }
  }();
  return refused;
}

#define TERN_SKIP_WITHOUT_URING()                                \
  if (::tern::uring::testing::uring_refused()) {                 \
    GTEST_SKIP() << "the kernel refuses io_uring here";          \
  }

inline void check(bool ok, const char* call) {
  if (!ok) throw std::system_error(errno, std::system_category(), call);
}

// A connected pair: `server` (blocking, as a server's accepted socket may be) and
// `client` (non-blocking). `client_receive_buffer`, if set, shrinks the client's receive
// buffer (before connecting, so the window honours it), making the kernel hold less.
struct SocketPair {
  int server = -1;
  int client = -1;
};

inline SocketPair connected_pair(std::optional<int> client_receive_buffer = std::nullopt) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  check(listener >= 0, "socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  check(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0, "bind");
  check(listen(listener, 16) == 0, "listen");
  socklen_t length = sizeof address;
  check(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0,
        "getsockname");
  SocketPair pair;
  pair.client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  check(pair.client >= 0, "socket");
  if (client_receive_buffer) {
    check(setsockopt(pair.client, SOL_SOCKET, SO_RCVBUF, &*client_receive_buffer,
                     sizeof(int)) == 0,
          "setsockopt");
  }
  check(connect(pair.client, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0,
        "connect");
  pair.server = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  check(pair.server >= 0, "accept");
  ::close(listener);
  const int one = 1;
  setsockopt(pair.server, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  check(fcntl(pair.client, F_SETFL, O_NONBLOCK) == 0, "fcntl");
  return pair;
}

// Bytes 0, 1, 2, ... shifted by `seed`, so any loss, repeat or reorder shows.
inline std::vector<uint8_t> pattern(size_t n, uint8_t seed = 0) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + seed + i / 251);
  return bytes;
}

// The client end: writes `out` as the socket takes it, keeps what arrives in `in`.
struct Client {
  int fd = -1;
  std::vector<uint8_t> out;
  size_t written = 0;
  std::vector<uint8_t> in;
  bool eof = false;
  int error = 0;

  // Writes and reads what the socket allows now, without blocking.
  void pump() {
    while (written < out.size()) {
      const ssize_t n = ::send(fd, out.data() + written, out.size() - written, MSG_NOSIGNAL);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    read_available();
  }

  void read_available() {
    uint8_t chunk[64 * 1024];
    while (!eof && error == 0) {
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n > 0) {
        in.insert(in.end(), chunk, chunk + n);
      } else if (n == 0) {
        eof = true;
      } else {
        if (errno != EAGAIN && errno != EWOULDBLOCK) error = errno;
        break;
      }
    }
  }

  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  // Closes with a reset (SO_LINGER 0): the server's next receive fails.
  void reset() {
    const linger abort{.l_onoff = 1, .l_linger = 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
    close();
  }
  ~Client() { close(); }
};

// A transport's owner that records what it hears, and behaves like a connection: it asks
// for input again after each delivery (unless told not to) and closes once ended.
class Recorder : public net::TransportEvents {
 public:
  static std::shared_ptr<Recorder> start(UringLoop& loop, int fd) {
    auto recorder = std::make_shared<Recorder>();
    recorder->transport = std::make_unique<UringTransport>(loop, fd);
    recorder->transport->start(recorder);
    return recorder;
  }

  std::span<uint8_t> receive_space(size_t at_least) override {
    input.resize(used + at_least);
    return {input.data() + used, at_least};
  }
  void received(size_t n) override {
    used += n;
    largest_delivery = std::max(largest_delivery, n);
    input.resize(used);
    ++deliveries;
    if (ask_again) transport->receive();
  }
  void peer_closed() override { peer_gone = true; }
  void sent() override { ++sends_done; }
  void ended(std::error_code error) override {
    end = error;
    transport->close();
  }

  std::unique_ptr<UringTransport> transport;
  bool ask_again = true;
  std::vector<uint8_t> input;
  size_t used = 0;
  int deliveries = 0;
  size_t largest_delivery = 0;
  bool peer_gone = false;
  int sends_done = 0;
  std::optional<std::error_code> end;
};

// Turns `loop` until `done()` (checked before each turn, after `between()`), or a bound
// only a broken loop reaches. Returns whether `done()` came true.
inline bool turn_until(UringLoop& loop, const std::function<bool()>& done,
                       const std::function<void()>& between = {}) {
  const auto limit = UringLoop::Clock::now() + std::chrono::seconds(30);
  while (true) {
    if (between) between();
    if (done()) return true;
    if (UringLoop::Clock::now() > limit) return false;
    loop.turn(std::chrono::milliseconds(5));
  }
}

}  // namespace tern::uring::testing
