#pragma once
// Which I/O backend serves connections (--io), and starting its worker loops.

#include <memory>
#include <optional>
#include <string_view>

#include "net/worker_loops.h"

namespace tern::ternd {

enum class IoBackend { Epoll, Uring };

// "epoll" or "uring"; nullopt for anything else.
std::optional<IoBackend> parse_io_backend(std::string_view text);
std::string_view name_of(IoBackend backend);

// `threads` worker loops on `backend`. When the kernel refuses io_uring (EPERM in locked-down
// containers, or too old a kernel), logs one warning naming the reason and serves on epoll:
// `backend` is then set to Epoll, so that what is logged and reported is what runs.
std::unique_ptr<net::WorkerLoops> start_worker_loops(IoBackend& backend, unsigned threads);

}  // namespace tern::ternd
