#include "ternd/io_backend.h"

#include <spdlog/spdlog.h>

#include "uring/uring_loops.h"

namespace tern::ternd {

std::optional<IoBackend> parse_io_backend(std::string_view text) {
  if (text == "epoll") return IoBackend::Epoll;
  if (text == "uring") return IoBackend::Uring;
  return std::nullopt;
}

std::string_view name_of(IoBackend backend) {
  return backend == IoBackend::Uring ? "uring" : "epoll";
}

std::unique_ptr<net::WorkerLoops> start_worker_loops(IoBackend& backend, unsigned threads) {
  if (backend == IoBackend::Uring) {
    try {
      return uring::start_uring_loops(threads);
    } catch (const uring::IoUringUnavailable& refused) {
      spdlog::warn("io_uring is not available ({}): serving on epoll instead", refused.what());
      backend = IoBackend::Epoll;
    }
  }
  return net::start_epoll_loops(threads);
}

}  // namespace tern::ternd
