#include "net/connection.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "net/tls_transport.h"
#include "net/transport_security.h"
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

Connection::Connection(std::shared_ptr<LoopGate> gate, commands::Dispatcher& dispatcher,
                       size_t max_item_size, ServerStats& stats, std::string peer,
                       const tls::TlsContext* tls)
    : tls_(tls),
      gate_(std::move(gate)),
      stats_(stats),
      peer_(std::move(peer)),
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

void Connection::start(std::unique_ptr<Transport> transport) {
  transport_ = tls_ == nullptr
                   ? std::move(transport)
                   : make_tls_transport(std::move(transport), *tls_, {.peer = peer_});
  transport_->start(shared_from_this());
  pump();
}

void Connection::notify_cluster_map(engine::Bucket& bucket) {
  using commands::Feature;
  if (closed_ || requests_.closing() || session_.bucket.get() != &bucket ||
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
  // The completions hold the connection only weakly.
  if (parked_.size() == 1) transport_->keep_open(true);
  auto ticket = std::make_shared<Ticket>(gate_, weak_from_this(), id);
  return [ticket](commands::Completion completion) { ticket->fire(std::move(completion)); };
}

void Connection::finish_parked(uint64_t id, const commands::Completion& completion) {
  auto it = parked_.find(id);
  if (it == parked_.end()) return;
  const std::unique_ptr<commands::ParkedRequest> request = std::move(it->second);
  parked_.erase(it);
  if (parked_.empty() && !closed_) transport_->keep_open(false);
  // After QUIT or an error the answers owed are sent or dropped already.
  if (closed_ || requests_.closing()) return;
  try {
    if (completion) {
      const size_t answered = pending_.size();
      request->finish(completion, pending_);
      commands::count_parked_answer(*request, session_, std::span(pending_).subspan(answered));
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
    if (!write_in_flight_ && !lingering_) {
      lingering_ = true;
      transport_->linger(kLingerTime);
    }
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

void Connection::start_read() {
  reading_ = true;
  transport_->receive();
}

std::span<uint8_t> Connection::receive_space(size_t at_least) {
  // The buffer grows with what has arrived (at most doubling per read), never straight to the
  // size a header announces: a bare header must not cost the server a whole frame's memory.
  const size_t growth_cap = std::max({kReadChunk, input_.size(), at_least});
  return input_.prepare(std::clamp(std::max(requests_.bytes_wanted(input_.data()), at_least),
                                   kReadChunk, growth_cap));
}

void Connection::learn_security() {
  security_learned_ = true;
  const TransportSecurity* security = transport_->security();
  if (security == nullptr) return;
  session_.secure = true;
  if (security->client_certificate) {
    // Mutual TLS: the session logs in as the user the certificate names; a certificate that
    // names no user is refused (the session logs its subject), as Couchbase does.
    const tls::PeerCertificate& certificate = *security->client_certificate;
    if (!session_.authenticate_by_certificate(certificate.user, certificate.subject)) close();
  }
}

void Connection::received(size_t n) {
  reading_ = false;
  if (closed_) return;
  if (!security_learned_) {
    learn_security();
    if (closed_) return;
  }
  stats_.add(ServerCounter::bytes_read, static_cast<int64_t>(n));
  input_.commit(n);
  pump();
}

void Connection::peer_closed() {
  reading_ = false;
  if (closed_) return;
  peer_done_ = true;
  pump();
}

void Connection::ended(std::error_code) { close(); }

void Connection::send_pending() {
  stats_.add(ServerCounter::bytes_written, static_cast<int64_t>(pending_.size()));
  if (transport_->send(pending_)) {
    pending_.clear();
    release_if_large(pending_);
    return;
  }
  // The transport sends from this buffer until sent(); swapping keeps its bytes in place.
  std::swap(pending_, writing_);
  write_in_flight_ = true;
}

void Connection::sent() {
  write_in_flight_ = false;
  writing_.clear();
  release_if_large(writing_);
  if (closed_) return;
  pump();
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  // What is still parked is dropped: its completions will find nothing to finish.
  parked_.clear();
  transport_->close();  // which also ends any keep_open()
}

}  // namespace tern::net
