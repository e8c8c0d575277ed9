#include "uring/ring.h"

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>

#include "uring/uring_loops.h"

namespace tern::uring {

namespace {

[[noreturn]] void refused(const std::string& call, int error) {
  throw IoUringUnavailable(call + ": " + std::strerror(error));
}

void require(io_uring_probe& probe, int opcode, const char* name) {
  if (!io_uring_opcode_supported(&probe, opcode)) {
    throw IoUringUnavailable(std::string("io_uring_get_probe_ring: ") + name + " not supported");
  }
}

// The next completion, waiting at most a second (the probe's answers are immediate).
io_uring_cqe* next_completion(io_uring& ring) {
  io_uring_cqe* cqe = nullptr;
  __kernel_timespec timeout{.tv_sec = 1, .tv_nsec = 0};
  const int result = io_uring_wait_cqe_timeout(&ring, &cqe, &timeout);
  if (result < 0) refused("io_uring_wait_cqe_timeout (multishot receive probe)", -result);
  return cqe;
}

}  // namespace

Ring::Ring(const RingOptions& options) : options_(options) {
  // Multishot receive is probed on a small ring of its own: this one, set up for a single
  // issuer, accepts no request until the loop's thread enables it.
  {
    Ring probe(RingOptions{.entries = 8, .buffer_count = 1, .buffer_size = 64}, kProbeOnly);
    multishot_limit_ = probe.multishot_limit_ && options.multishot_limit;
  }
  // Single issuer, deferred task running (kernel 6.1): the kernel finishes completions only
  // when the loop enters it to wait, in a batch, never interrupting the thread for them.
  // Older kernels get cooperative task running (5.19), else no flags.
  set_up({IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED,
          IORING_SETUP_COOP_TASKRUN, 0});
}

Ring::Ring(const RingOptions& options, ProbeOnly) : options_(options) {
  set_up({0});
  try {
    enable_here();
    multishot_limit_ = probe_multishot_receive();
  } catch (...) {
    release();
    throw;
  }
}

Ring::~Ring() { release(); }

void Ring::set_up(std::initializer_list<unsigned> flag_choices) {
  int result = -EINVAL;
  for (const unsigned flags : flag_choices) {
    io_uring_params params{};
    params.flags = flags | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_CQSIZE;
    params.cq_entries = options_.entries * 4;
    result = io_uring_queue_init_params(options_.entries, &ring_, &params);
    if (result != -EINVAL) {
      enabled_ = !(flags & IORING_SETUP_R_DISABLED);
      break;
    }
  }
  if (result < 0) refused("io_uring_queue_init", -result);
  try {
    std::unique_ptr<io_uring_probe, void (*)(io_uring_probe*)> probe(
        io_uring_get_probe_ring(&ring_), io_uring_free_probe);
    if (probe == nullptr) refused("io_uring_get_probe_ring", EINVAL);
    require(*probe, IORING_OP_RECV, "IORING_OP_RECV");
    require(*probe, IORING_OP_SEND, "IORING_OP_SEND");
    require(*probe, IORING_OP_READ, "IORING_OP_READ");
    require(*probe, IORING_OP_ASYNC_CANCEL, "IORING_OP_ASYNC_CANCEL");

    buffer_ring_bytes_ = options_.buffer_count * sizeof(io_uring_buf);
    void* ring_memory = mmap(nullptr, buffer_ring_bytes_, PROT_READ | PROT_WRITE,
                             MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (ring_memory == MAP_FAILED) refused("mmap (provided buffer ring)", errno);
    buffer_ring_ = static_cast<io_uring_buf_ring*>(ring_memory);
    io_uring_buf_reg registration{};
    registration.ring_addr = reinterpret_cast<uint64_t>(buffer_ring_);
    registration.ring_entries = options_.buffer_count;
    registration.bgid = kBufferGroup;
    result = io_uring_register_buf_ring(&ring_, &registration, 0);
    if (result < 0) refused("io_uring_register_buf_ring", -result);
    io_uring_buf_ring_init(buffer_ring_);
    buffers_ = new uint8_t[options_.buffer_count * options_.buffer_size];
    for (unsigned id = 0; id < options_.buffer_count; ++id) {
      io_uring_buf_ring_add(buffer_ring_, buffers_ + id * options_.buffer_size,
                            options_.buffer_size, id, io_uring_buf_ring_mask(options_.buffer_count),
                            id);
    }
    io_uring_buf_ring_advance(buffer_ring_, options_.buffer_count);
  } catch (...) {
    release();
    throw;
  }
}

// Multishot receive (kernel 6.0): an older kernel answers EINVAL for the flag. One byte
// through a socket pair must come back as a completion that promises more. Its limit
// (kernel 6.17) shares the field of a file index, which older kernels refuse (EINVAL): a
// receive limited to one byte must end after it.
bool Ring::probe_multishot_receive() {
  const auto [first, flags] = probe_receive(0);
  if (first != 1 || !(flags & IORING_CQE_F_MORE)) {
    refused("io_uring_prep_recv_multishot", first < 0 ? -first : EINVAL);
  }
  const auto [limited, limited_flags] = probe_receive(1);
  return limited == 1 && !(limited_flags & IORING_CQE_F_MORE);
}

std::pair<int, unsigned> Ring::probe_receive(uint32_t limit) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) refused("socketpair (probe)", errno);
  const char byte = 1;
  const bool written = write(pair[1], &byte, 1) == 1;
  io_uring_sqe& probe_receive = sqe();
  io_uring_prep_recv_multishot(&probe_receive, pair[0], nullptr, 0, 0);
  probe_receive.flags |= IOSQE_BUFFER_SELECT;
  probe_receive.buf_group = kBufferGroup;
  probe_receive.file_index = limit;  // the limit: optlen in newer headers, same field
  io_uring_submit(&ring_);
  io_uring_cqe* cqe = next_completion(ring_);
  const int first = written ? cqe->res : -EIO;
  const unsigned flags = cqe->flags;
  io_uring_cqe_seen(&ring_, cqe);
  if (flags & IORING_CQE_F_BUFFER) give_back(flags >> IORING_CQE_BUFFER_SHIFT);
  // Closing the peer ends the receive (a last completion, res 0), so nothing stays armed.
  ::close(pair[1]);
  if (flags & IORING_CQE_F_MORE) io_uring_cqe_seen(&ring_, next_completion(ring_));
  ::close(pair[0]);
  return {first, flags};
}

io_uring_sqe& Ring::prep_limited_receive(io_uring_sqe& entry, int fd) const {
  if (multishot_limit_) {
    io_uring_prep_recv_multishot(&entry, fd, nullptr, 0, 0);
    entry.file_index = static_cast<uint32_t>(options_.receive_limit);  // optlen (probe)
  } else {
    // Length 0: as much as one buffer holds.
    io_uring_prep_recv(&entry, fd, nullptr, 0, 0);
  }
  entry.flags |= IOSQE_BUFFER_SELECT;
  entry.buf_group = kBufferGroup;
  return entry;
}

void Ring::release() {
  // Exiting the ring unregisters the buffer ring; only then may its memory go.
  io_uring_queue_exit(&ring_);
  if (buffer_ring_ != nullptr) munmap(buffer_ring_, buffer_ring_bytes_);
  buffer_ring_ = nullptr;
  delete[] buffers_;
  buffers_ = nullptr;
}

void Ring::enable_here() {
  if (enabled_) return;
  // liburing 2.3 declares io_uring_enable_rings but does not export it: the syscall itself.
  if (syscall(__NR_io_uring_register, ring_.ring_fd, IORING_REGISTER_ENABLE_RINGS, nullptr, 0) <
      0) {
    refused("io_uring_register(IORING_REGISTER_ENABLE_RINGS)", errno);
  }
  enabled_ = true;
}

io_uring_sqe& Ring::sqe() {
  io_uring_sqe* entry = io_uring_get_sqe(&ring_);
  if (entry == nullptr) {
    enable_here();
    io_uring_submit(&ring_);
    entry = io_uring_get_sqe(&ring_);
  }
  // The queue was just emptied into the kernel, so this holds unless the kernel took none.
  if (entry == nullptr) refused("io_uring_submit (submission queue full)", EBUSY);
  return *entry;
}

std::span<const uint8_t> Ring::buffer(uint16_t id, size_t n) const {
  return {buffers_ + size_t{id} * options_.buffer_size, n};
}

void Ring::give_back(uint16_t id) {
  io_uring_buf_ring_add(buffer_ring_, buffers_ + size_t{id} * options_.buffer_size,
                        options_.buffer_size, id, io_uring_buf_ring_mask(options_.buffer_count), 0);
  io_uring_buf_ring_advance(buffer_ring_, 1);
}

}  // namespace tern::uring
