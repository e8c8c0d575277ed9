#include "net/connection.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "protocol/codec.h"
#include "protocol/opcode.h"
#include "protocol/datatype.h"

namespace tern::net {

namespace {

// Bytes offered to each read when no larger frame is pending.
constexpr size_t kReadChunk = 16 * 1024;
// Output at which the connection stops executing and reading until the socket drains it.
constexpr size_t kOutputHighWater = 1 << 20;
// How long a connection the server ends waits for the peer to close its side.
constexpr auto kLingerTime = std::chrono::seconds(2);

std::string peer_name(const asio::ip::tcp::socket& socket) {
  asio::error_code error;
  auto endpoint = socket.remote_endpoint(error);
  if (error) return "unknown peer";
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

// Frees a buffer that grew for one large answer, so an idle connection stays small.
void release_if_large(std::vector<uint8_t>& buffer) {
  if (buffer.capacity() > kOutputHighWater) std::vector<uint8_t>().swap(buffer);
}

}  // namespace

// One parked request's way back to its connection, shared by every copy of its notifier. The
// first call posts its completion; if none comes before the last copy is destroyed, the
// request answers Etmpfail instead of holding its connection back forever.
class Connection::Ticket {
 public:
  Ticket(std::shared_ptr<LoopGate> gate, std::weak_ptr<Connection> connection, uint64_t id)
      : gate_(std::move(gate)), connection_(std::move(connection)), id_(id) {}
  Ticket(const Ticket&) = delete;
  Ticket& operator=(const Ticket&) = delete;

  ~Ticket() {
    if (fired_.exchange(true)) return;
    try {
      deliver([](commands::Reply& reply) { reply.error(protocol::Status::Etmpfail); });
    } catch (const std::exception&) {
      // Out of memory while a waiter gives up: the connection is left waiting until closed.
    }
  }

  void fire(commands::Completion completion) {
    if (!fired_.exchange(true)) deliver(std::move(completion));
  }

 private:
  void deliver(commands::Completion completion) {
    gate_->post([connection = connection_, id = id_, completion = std::move(completion)] {
      if (auto alive = connection.lock()) alive->finish_parked(id, completion);
    });
  }

  const std::shared_ptr<LoopGate> gate_;
  const std::weak_ptr<Connection> connection_;
  const uint64_t id_;
  std::atomic<bool> fired_{false};
};

Connection::Connection(asio::ip::tcp::socket socket, std::shared_ptr<LoopGate> gate,
                       commands::Dispatcher& dispatcher, size_t max_item_size,
                       ServerStats& stats)
    : socket_(std::move(socket)),
      gate_(std::move(gate)),
      linger_timer_(socket_.get_executor()),
      parked_timer_(socket_.get_executor()),
      stats_(stats),
      peer_(peer_name(socket_)),
      session_(dispatcher.node()),
      requests_(dispatcher, session_, max_item_size, peer_) {
  session_.peer = peer_;
  // Without a way back into the loop, no request may wait (persisting durability levels are
  // then refused).
  if (gate_ != nullptr) session_.parker = this;
  stats_.connection_opened();
  spdlog::debug("connection from {} opened", peer_);
}

Connection::~Connection() {
  stats_.connection_closed();
  spdlog::debug("connection from {} closed", peer_);
}

void Connection::start() {
  asio::error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  socket_.non_blocking(true, ignored);
  pump();
}

void Connection::notify_cluster_map(engine::Bucket& bucket) {
  using commands::Feature;
  if (closed_ || requests_.closing() || session_.bucket != &bucket ||
      !session_.features.has(Feature::Duplex) ||
      !session_.features.has(Feature::ClustermapChangeNotification)) {
    return;
  }
  const auto map = bucket.cluster_map();
  // Extras: the map's epoch and revision, so a client can skip a map it already has.
  uint8_t version[16];
  protocol::store_be64(version, static_cast<uint64_t>(map->epoch()));
  protocol::store_be64(version + 8, static_cast<uint64_t>(map->rev()));
  protocol::FrameParts parts;
  parts.magic = static_cast<uint8_t>(protocol::Magic::ServerRequest);
  parts.opcode = static_cast<uint8_t>(protocol::ServerOpcode::ClustermapChangeNotification);
  parts.datatype = session_.features.has(Feature::Json) ? protocol::datatype::kJson : 0;
  parts.extras = version;
  parts.key = {reinterpret_cast<const uint8_t*>(bucket.name().data()), bucket.name().size()};
  parts.value = {reinterpret_cast<const uint8_t*>(map->json().data()), map->json().size()};
  protocol::append_frame(parts, pending_);
  pump();
}

commands::ParkedNotifier Connection::park(const protocol::Frame& request,
                                          const commands::ReplyContext& context) {
  const uint64_t id = next_ticket_++;
  parked_.emplace(id, std::make_unique<commands::ParkedRequest>(request, context));
  if (parked_.size() == 1) {
    parked_timer_.expires_at(asio::steady_timer::time_point::max());
    parked_timer_.async_wait([self = shared_from_this()](const asio::error_code&) {});
  }
  auto ticket = std::make_shared<Ticket>(gate_, weak_from_this(), id);
  return [ticket](commands::Completion completion) { ticket->fire(std::move(completion)); };
}

void Connection::finish_parked(uint64_t id, const commands::Completion& completion) {
  auto it = parked_.find(id);
  if (it == parked_.end()) return;
  const std::unique_ptr<commands::ParkedRequest> request = std::move(it->second);
  parked_.erase(it);
  if (parked_.empty()) parked_timer_.cancel();
  // After QUIT or an error the answers owed are sent or dropped already.
  if (closed_ || requests_.closing()) return;
  try {
    if (completion) {
      request->finish(completion, pending_);
    } else {
      requests_.execute_again(*request, pending_);
    }
  } catch (const std::exception& error) {
    spdlog::error("closing connection from {}: a parked request failed: {}", peer_,
                  error.what());
    close();
    return;
  }
  pump();
}

bool Connection::held_back() const {
  if (parked_.empty()) return false;
  return !session_.features.has(commands::Feature::UnorderedExecution) ||
         parked_.size() >= kMaxParked;
}

// Makes all the progress possible now: executes buffered requests, hands answers to the
// socket, and reads more unless the connection is ending, its output is backed up, or a
// parked request holds it back.
void Connection::pump() {
  bool more = true;
  while (more && !closed_) {
    more = false;
    // A read in flight owns the buffer's free space; the input was processed before it began.
    if (!reading_ && !requests_.closing() && !held_back()) {
      input_.consume(requests_.consume(input_.data(), pending_, kOutputHighWater));
      // Stopped at the output limit: once the socket has taken this, execute the rest.
      more = pending_.size() >= kOutputHighWater;
    }
    if (!write_in_flight_ && !pending_.empty()) send_pending();
    more = more && !write_in_flight_;
  }
  if (closed_) return;

  bool output_backed_up = pending_.size() >= kOutputHighWater ||
                          (write_in_flight_ && writing_.size() >= kOutputHighWater);
  if (requests_.closing()) {
    if (!write_in_flight_) linger();
    return;
  }
  // Requests still to run, or parked, are owed their answers before the connection ends.
  if (held_back()) return;
  if (peer_done_ && !output_backed_up) {
    if (!write_in_flight_ && parked_.empty()) close();
    return;
  }
  if (!reading_ && !output_backed_up) start_read();
}

// A read right after one that drained the socket would find it empty (the client is still
// waiting for the answers to what it sent), so it first waits for readiness: a request then
// costs one receive and one send. (asio's epoll reactor re-arms the socket with an epoll_ctl
// for each wait, so the syscall count stays; docs/performance.md has the figures.) Any other
// read is tried at once, and completes through the loop's queue, so a connection with a full
// buffer does not starve the others on its loop.
void Connection::start_read() {
  reading_ = true;
  if (drained_) {
    wait_readable();
    return;
  }
  auto space = read_space();
  socket_.async_read_some(asio::buffer(space.data(), space.size()),
                          [self = shared_from_this(), offered = space.size()](
                              const asio::error_code& error, size_t n) {
                            self->on_read(error, n, offered);
                          });
}

std::span<uint8_t> Connection::read_space() {
  // The buffer grows with what has arrived (at most doubling per read), never straight to the
  // size a header announces: a bare header must not cost the server a whole frame's memory.
  const size_t growth_cap = std::max(kReadChunk, input_.size());
  return input_.prepare(
      std::clamp(requests_.bytes_wanted(input_.data()), kReadChunk, growth_cap));
}

void Connection::wait_readable() {
  socket_.async_wait(asio::socket_base::wait_read,
                     [self = shared_from_this()](const asio::error_code& error) {
                       self->on_readable(error);
                     });
}

void Connection::on_readable(const asio::error_code& error) {
  if (error || closed_) {
    on_read(error, 0, 0);
    return;
  }
  auto space = read_space();
  asio::error_code read_error;
  const size_t n = socket_.read_some(asio::buffer(space.data(), space.size()), read_error);
  // Readiness without data (another reader's wake-up, or data already gone): wait again.
  if (read_error == asio::error::would_block || read_error == asio::error::try_again) {
    wait_readable();
    return;
  }
  on_read(read_error, n, space.size());
}

void Connection::on_read(const asio::error_code& error, size_t n, size_t offered) {
  reading_ = false;
  if (closed_) return;
  if (error == asio::error::eof) {
    peer_done_ = true;
  } else if (error) {
    close();
    return;
  } else {
    input_.commit(n);
  }
  // Only a read that came up short proves the socket empty, and only until the loop runs
  // again: a read that pump() does not start now begins with a try.
  drained_ = !error && n < offered;
  pump();
  drained_ = false;
}

// Sends at once what the socket takes without blocking (usually all of it: this saves the
// event loop a round trip per batch) and hands any rest to an asynchronous write.
void Connection::send_pending() {
  asio::error_code error;
  size_t sent = socket_.write_some(asio::buffer(pending_), error);
  if (error && error != asio::error::would_block) {
    close();
    return;
  }
  if (sent == pending_.size()) {
    pending_.clear();
    release_if_large(pending_);
    return;
  }
  std::swap(pending_, writing_);
  write_in_flight_ = true;
  asio::async_write(socket_, asio::buffer(writing_) + sent,
                    [self = shared_from_this()](const asio::error_code& error, size_t n) {
                      self->on_written(error, n);
                    });
}

void Connection::on_written(const asio::error_code& error, size_t) {
  write_in_flight_ = false;
  writing_.clear();
  release_if_large(writing_);
  if (error) {
    close();
    return;
  }
  pump();
}

// Ends a connection the peer may still be sending on. Closing a socket with unread input
// makes the kernel reset it, discarding the answers still queued for the peer; so send a
// FIN after them instead, and drop input until the peer closes too (or kLingerTime passes).
void Connection::linger() {
  asio::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  linger_timer_.expires_after(kLingerTime);
  linger_timer_.async_wait([self = shared_from_this()](const asio::error_code&) {
    self->close();
  });
  discard_input();
}

void Connection::discard_input() {
  auto space = input_.prepare(kReadChunk);
  socket_.async_read_some(asio::buffer(space.data(), space.size()),
                          [self = shared_from_this()](const asio::error_code& error, size_t) {
                            if (error || self->closed_) {
                              self->close();
                            } else {
                              self->discard_input();
                            }
                          });
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  linger_timer_.cancel();
  // What is still parked is dropped: its completions will find nothing to finish.
  parked_.clear();
  parked_timer_.cancel();
  asio::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace tern::net
