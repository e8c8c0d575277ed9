#pragma once
// One io_uring (liburing) and the ring of provided buffers its multishot receives take from.
// The kernel picks a free buffer for each chunk of input it delivers and names it in the
// completion; the loop copies the bytes out and gives the buffer back at once, so a ring of
// a few hundred buffers serves every connection of a loop however many there are.
//
// Setting up asks the kernel for everything the loop needs and throws IoUringUnavailable
// (uring/uring_loops.h), naming the refused call and its errno, if it refuses any of it.
// Single-threaded: used only by the thread that runs its loop (set up elsewhere, it is
// enabled there: enable_here()).

#include <liburing.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>

namespace tern::uring {

struct RingOptions {
  // Submission queue entries. A turn of the loop queues about one send and one re-armed
  // receive per active connection; a full queue is submitted early (one more syscall), so
  // this only needs to cover a typical turn, not the worst. The completion queue is 4x:
  // each multishot receive may post several completions before the loop reaps them.
  unsigned entries = 512;
  // Provided buffers, and the size of each (the most one completion delivers). 16 KiB is
  // the connection's own read chunk (net/connection.cc); 256 of them (4 MiB a loop) cover
  // a turn in which every connection of a busy loop has a full buffer's input. A power of
  // two (the kernel's ring of buffers requires it). Running out costs a re-armed receive,
  // never a byte.
  unsigned buffer_count = 256;
  size_t buffer_size = 16 * 1024;
  // The most one receive takes before the kernel ends it (a multishot receive left alone
  // would take every free buffer in one turn: a client that sends without reading could
  // make one connection hold the whole ring's worth of input). The transport arms the next
  // receive only when the connection asks again, so a connection holds at most this, plus
  // one buffer, beyond what it has consumed. Kernels without the multishot limit (before
  // 6.17) get one-shot receives of one buffer each instead.
  size_t receive_limit = 64 * 1024;
  // Whether to use the kernel's multishot limit where it has one (tests turn it off to run
  // the one-shot receives of older kernels).
  bool multishot_limit = true;
};

class Ring {
 public:
  // The buffer group every receive of this ring selects from.
  static constexpr uint16_t kBufferGroup = 0;

  explicit Ring(const RingOptions& options);  // throws IoUringUnavailable
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  io_uring& get() { return ring_; }

  // Queues a receive on `fd` into this ring's buffers that takes at most the options'
  // receive_limit (multishot where the kernel can limit it, else one buffer, one-shot).
  // Completions without IORING_CQE_F_MORE end it.
  io_uring_sqe& prep_limited_receive(io_uring_sqe& entry, int fd) const;

  // Makes the calling thread the ring's only submitter, the first time (a ring set up for
  // a single issuer takes requests only then). Call on the loop's thread before submitting.
  void enable_here();

  // A free submission entry, submitting what is queued first if the queue is full.
  io_uring_sqe& sqe();

  // The first `n` bytes of provided buffer `id` (named by a completion's flags).
  std::span<const uint8_t> buffer(uint16_t id, size_t n) const;
  // Returns buffer `id` to the kernel for later receives.
  void give_back(uint16_t id);

 private:
  enum ProbeOnly { kProbeOnly };
  // A plain ring that checks multishot receive, then goes.
  Ring(const RingOptions& options, ProbeOnly);
  // Sets up the ring with the first of `flag_choices` the kernel accepts, checks the
  // opcodes the loop needs and registers the provided buffers.
  void set_up(std::initializer_list<unsigned> flag_choices);
  // Throws unless the kernel has multishot receive; returns whether it also honours a limit
  // on one (kernel 6.17).
  bool probe_multishot_receive();
  // The first completion of a multishot receive, limited to `limit` bytes unless 0, on a
  // socket pair holding one byte: {result, flags}. Nothing stays armed after.
  std::pair<int, unsigned> probe_receive(uint32_t limit);
  void release();

  io_uring ring_;
  bool enabled_ = true;
  const RingOptions options_;
  bool multishot_limit_ = false;              // the kernel limits multishot receives, and we use it
  io_uring_buf_ring* buffer_ring_ = nullptr;  // mmap'ed; shared with the kernel
  size_t buffer_ring_bytes_ = 0;
  uint8_t* buffers_ = nullptr;  // buffer_count * buffer_size bytes
};

}  // namespace tern::uring
