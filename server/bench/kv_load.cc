// kv_load: a closed-loop load generator for ternd, for comparing what a memcached client
// costs the server with what an authenticated Couchbase client using collections costs.
//
// Every connection sends a batch of --pipeline requests, waits for all their responses,
// then sends the next batch, until --seconds have passed. The workload is bench-server's
// memaslap one: 16-byte keys drawn uniformly from a fixed key space that is stored before
// the clock starts, 100-byte values (--value-size), 9 GETs to 1 SET. Mode `plain` speaks as a
// memcached client does: no HELLO, no authentication, classic keys on vbucket 0. Mode `couchbase`
// speaks as the SDKs do: HELLO, SCRAM-SHA512, SELECT_BUCKET, then keys prefixed with the
// LEB128 collection id and sent to the vbucket the key hashes to.
//
// Contract: connecting, the handshakes and the preload happen before the clock starts; a
// batch counts if it completes before the deadline. Every response's status is checked:
// any that is not Success is counted and reported, and the run fails (exit 1). On success
// it prints one line of key=value pairs on stdout:
//   kv_load mode=... ops=N ops_per_sec=X p50_us=A p99_us=B server_cpu_us_per_op=C errors=0
// p50/p99 are the latencies of a whole batch (send to last response); server_cpu_us_per_op
// is the server's user+system CPU time per operation over the timed window (with
// --server-pid only, else "-").
//
// Durable writes (make bench-durability): --durability LEVEL (couchbase mode) sends only
// SETs, each as an alt request carrying that durability requirement, and --sets-percent
// chooses the write share otherwise. Each connection then writes only keys of its own (a
// slice of the key space), so that no write meets another's pending one (which the server
// would refuse with SyncWriteInProgress). A load without GETs (durable, or --sets-percent 100)
// has no preload: it would only leave the flusher a backlog that the timed writes wait behind.
//
// --preload-only stores every key once (the preload) and exits: it loads a bucket for a test
// of warmup (make bench-warmup), and prints "kv_load preloaded keys=N refused=R seconds=S"
// (R: the SETs refused for want of memory and sent again).
//
// TLS (make bench-tls): with --tls-ca FILE every connection is TLS to ternd's TLS port, the
// server verified against that CA and for 127.0.0.1, as an SDK over couchbases:// does; the
// load is otherwise the same. --handshakes N instead opens N connections one after another,
// each a new TCP connection, a full handshake (no session resumption) when TLS, and one NOOP
// answered (so that the server has finished its side too), and prints
// "kv_load handshakes=N tls=0|1 p50_us=A p99_us=B".

#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "auth/test_scram_client.h"
#include "cluster/vbucket_of.h"
#include "commands/features.h"
#include "protocol/codec.h"
#include "protocol/opcode.h"
#include "protocol/status.h"
#include "tls/openssl_error.h"
#include "tls/test_client.h"
#include "tls/tls_context.h"

namespace tern::bench {
namespace {

using commands::Feature;
using protocol::Opcode;
using protocol::Status;
using Clock = std::chrono::steady_clock;

struct Options {
  uint16_t port = 11210;
  unsigned threads = 1;
  unsigned connections = 64;
  double seconds = 8;
  unsigned pipeline = 1;
  std::string mode = "plain";
  std::string user = "Administrator";
  std::string password = "password";
  std::string bucket = "default";
  uint32_t collection_id = 8;
  unsigned keys = 10000;
  unsigned first_key = 0;  // the key space is key:<first_key> ... key:<first_key + keys - 1>
  size_t value_size = 100;
  int server_pid = 0;
  std::string durability = "none";  // none, majority, persist-active, persist-majority
  unsigned sets_percent = 10;
  bool preload_only = false;
  std::string tls_ca;  // non-empty: TLS, trusting this CA
  unsigned handshakes = 0;

  bool couchbase() const { return mode == "couchbase"; }
  // The durability level byte of the requirement frame info; 0 for none.
  uint8_t durability_level() const {
    if (durability == "majority") return 1;
    if (durability == "persist-active") return 2;
    if (durability == "persist-majority") return 3;
    return 0;
  }
};

constexpr size_t kKeySize = 16;

std::span<const uint8_t> bytes_of(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

std::string text_of(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::vector<uint8_t> encode(Opcode opcode, std::string_view key, std::string_view value = {},
                            std::string_view extras = {}, uint16_t vbucket = 0,
                            std::string_view framing_extras = {}) {
  protocol::FrameParts parts;
  parts.magic = static_cast<uint8_t>(framing_extras.empty() ? protocol::Magic::ClientRequest
                                                            : protocol::Magic::AltClientRequest);
  parts.framing_extras = bytes_of(framing_extras);
  parts.opcode = static_cast<uint8_t>(opcode);
  parts.vbucket_or_status = vbucket;
  parts.extras = bytes_of(extras);
  parts.key = bytes_of(key);
  parts.value = bytes_of(value);
  std::vector<uint8_t> out;
  protocol::append_frame(parts, out);
  return out;
}

// Every request the load sends, encoded once: a GET and a SET per key, in the wire form of
// the mode (prefix, vbucket). The hot path only copies them.
struct Workload {
  std::vector<std::vector<uint8_t>> gets;
  std::vector<std::vector<uint8_t>> sets;

  explicit Workload(const Options& options) {
    const std::string value(options.value_size, 'v');
    const std::string flags_and_expiry(8, '\0');
    // Frame info id 1 (durability requirement), one byte long: the level; the server's
    // default timeout applies.
    std::string durability;
    if (const uint8_t level = options.durability_level()) durability = {'\x11', char(level)};
    for (unsigned i = options.first_key; i < options.first_key + options.keys; ++i) {
      const std::string logical = fmt::format("key:{:012}", i);  // 16 bytes
      std::string wire = logical;
      uint16_t vbucket = 0;
      if (options.couchbase()) {
        uint8_t prefix[5];
        const size_t n = protocol::leb128_encode(options.collection_id, prefix);
        wire.insert(0, reinterpret_cast<const char*>(prefix), n);
        vbucket = cluster::vbucket_of(logical, cluster::kVBucketCount);
      }
      gets.push_back(encode(Opcode::Get, wire, {}, {}, vbucket));
      sets.push_back(encode(Opcode::Set, wire, value, flags_and_expiry, vbucket, durability));
    }
  }
};

// Statuses other than Success, with how many responses carried each.
using ErrorCounts = std::map<uint16_t, uint64_t>;

// A blocking TCP connection to 127.0.0.1, with TCP_NODELAY as client libraries set it; over
// TLS when given a client context (the handshake done in the constructor).
class Socket {
 public:
  explicit Socket(uint16_t port, SSL_CTX* tls = nullptr)
      : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      const int error = errno;
      ::close(fd_);
      throw std::system_error(error, std::generic_category(), "connect");
    }
    if (tls != nullptr) {
      ssl_.reset(SSL_new(tls));
      SSL_set_fd(ssl_.get(), fd_);
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_.get()), "127.0.0.1");
      if (SSL_connect(ssl_.get()) != 1) {
        ::close(fd_);
        throw std::runtime_error("TLS handshake: " + tls::take_openssl_errors());
      }
    }
  }
  ~Socket() {
    ssl_.reset();
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(Socket&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), ssl_(std::move(other.ssl_)) {}
  Socket& operator=(Socket&&) = delete;

  int fd() const { return fd_; }

  void send_all(std::span<const uint8_t> bytes) const {
    if (ssl_ && !bytes.empty() &&
        SSL_write(ssl_.get(), bytes.data(), static_cast<int>(bytes.size())) <= 0) {
      throw std::runtime_error("TLS send: " + tls::take_openssl_errors());
    }
    while (!ssl_ && !bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::system_error(errno, std::generic_category(), "send");
      bytes = bytes.subspan(static_cast<size_t>(n));
    }
  }

  // Reads what one recv() returns into `buffer` after its first `used` bytes (growing it
  // only when full) and returns the bytes now used; throws if the server closed the connection.
  // Over TLS: every plaintext OpenSSL then holds too, since epoll only sees the socket's bytes.
  size_t receive_some(std::vector<uint8_t>& buffer, size_t used) const {
    if (used == buffer.size()) buffer.resize(std::max<size_t>(64 * 1024, 2 * buffer.size()));
    if (ssl_) {
      do {
        if (used == buffer.size()) buffer.resize(2 * buffer.size());
        const int n = SSL_read(ssl_.get(), buffer.data() + used, int(buffer.size() - used));
        if (n <= 0) {
          throw std::runtime_error("TLS receive: " +
                                   tls::take_openssl_errors("the server closed a connection"));
        }
        used += static_cast<size_t>(n);
      } while (SSL_pending(ssl_.get()) > 0);
      return used;
    }
    ssize_t n;
    do {
      n = ::recv(fd_, buffer.data() + used, buffer.size() - used, 0);
    } while (n < 0 && errno == EINTR);
    if (n == 0) throw std::runtime_error("the server closed a connection");
    if (n < 0) throw std::system_error(errno, std::generic_category(), "recv");
    return used + static_cast<size_t>(n);
  }

 private:
  int fd_;
  tls::UniqueSsl ssl_;
};

// The size of the whole response frame at the front of `bytes`, or 0 if it is incomplete.
// Throws if it is not a response.
size_t complete_response(std::span<const uint8_t> bytes) {
  if (bytes.size() < protocol::kHeaderSize) return 0;
  if (protocol::check_header(bytes) != protocol::DecodeResult::Ok ||
      !protocol::is_response_magic(bytes[0])) {
    throw std::runtime_error("the server sent something that is not a response");
  }
  const size_t size = protocol::kHeaderSize + protocol::decode_header(bytes).body_length;
  return bytes.size() >= size ? size : 0;
}

struct Response {
  Status status;
  std::string value;
};

// Sends one request and waits for its response (handshakes and preload only).
Response call(const Socket& socket, std::span<const uint8_t> request) {
  socket.send_all(request);
  std::vector<uint8_t> buffer;
  size_t used = 0;
  size_t size;
  while ((size = complete_response(std::span(buffer).first(used))) == 0) {
    used = socket.receive_some(buffer, used);
  }
  protocol::Frame frame;
  protocol::decode_frame(std::span(buffer).first(size), frame);
  return {static_cast<Status>(frame.vbucket_or_status), text_of(frame.value)};
}

void expect(const Response& response, Status status, std::string_view step) {
  if (response.status != status) {
    throw std::runtime_error(fmt::format("{}: status 0x{:04x} ({})", step,
                                         static_cast<uint16_t>(response.status),
                                         protocol::status_text(response.status)));
  }
}

// What the SDKs do after connecting: HELLO, SCRAM-SHA512, SELECT_BUCKET.
void couchbase_handshake(const Socket& socket, const Options& options, uint32_t nonce_seed) {
  const Feature features[] = {Feature::Xerror,
                              Feature::SelectBucket,
                              Feature::Json,
                              Feature::Collections,
                              Feature::AltRequestSupport,
                              Feature::MutationSeqno,
                              Feature::UnorderedExecution,
                              Feature::SyncReplication};
  std::string list;
  for (Feature feature : features) {
    const auto code = static_cast<uint16_t>(feature);
    list += {static_cast<char>(code >> 8), static_cast<char>(code & 0xff)};
  }
  const Response hello = call(socket, encode(Opcode::Hello, "kv_load", list));
  expect(hello, Status::Success, "HELLO");
  bool collections = false;
  for (size_t i = 0; i + 1 < hello.value.size(); i += 2) {
    const auto code =
        static_cast<uint16_t>((uint8_t(hello.value[i]) << 8) | uint8_t(hello.value[i + 1]));
    collections |= code == static_cast<uint16_t>(Feature::Collections);
  }
  if (!collections) throw std::runtime_error("HELLO: the server did not grant Collections");

  const std::string mechanism = "SCRAM-SHA512";
  auth::TestScramClient scram(auth::ScramAlgorithm::Sha512, options.user, options.password,
                              fmt::format("kvload{:08x}nonce", nonce_seed));
  const Response first = call(socket, encode(Opcode::SaslAuth, mechanism, scram.first()));
  expect(first, Status::AuthContinue, "SASL_AUTH");
  const Response final =
      call(socket, encode(Opcode::SaslStep, mechanism, scram.final(first.value)));
  expect(final, Status::Success, "SASL_STEP");
  if (final.value != scram.expected_server_final()) {
    throw std::runtime_error("SASL_STEP: the server's signature is wrong");
  }
  expect(call(socket, encode(Opcode::SelectBucket, options.bucket)), Status::Success,
         "SELECT_BUCKET");
}

Socket open_connection(const Options& options, SSL_CTX* tls, uint32_t index) {
  Socket socket(options.port, tls);
  if (options.couchbase()) couchbase_handshake(socket, options, index);
  return socket;
}

// Stores every key once, so that every GET of the load hits. A SET the server refuses for
// want of memory (ENOMEM, TMPFAIL: a full-eviction bucket whose flusher is behind, so that
// nothing can be evicted yet) is sent again after a millisecond, as an SDK retries it.
// Returns how many SETs were refused so (each one counted every time it is).
size_t preload(const Socket& socket, const Workload& workload) {
  size_t refusals = 0;
  constexpr size_t kBatch = 100;
  const auto& sets = workload.sets;
  for (size_t begin = 0; begin < sets.size(); begin += kBatch) {
    std::vector<size_t> pending(std::min(kBatch, sets.size() - begin));
    for (size_t i = 0; i < pending.size(); ++i) pending[i] = begin + i;
    while (!pending.empty()) {
      // Each SET carries its key's index as its opaque: the connection negotiated
      // UnorderedExecution, so a SET that waits for the disk (a key the bloom filter cannot
      // rule out) answers after later ones, and a refusal must be matched to its own key.
      std::vector<uint8_t> batch;
      for (const size_t i : pending) {
        const size_t at = batch.size();
        batch.insert(batch.end(), sets[i].begin(), sets[i].end());
        protocol::store_be32(batch.data() + at + 12, static_cast<uint32_t>(i));
      }
      socket.send_all(batch);
      std::vector<size_t> refused;
      std::vector<uint8_t> in;
      size_t used = 0;
      for (size_t answered = 0; answered < pending.size();) {
        used = socket.receive_some(in, used);
        size_t size;
        while ((size = complete_response(std::span(in).first(used))) != 0) {
          const auto status = protocol::load_be16(in.data() + 6);
          if (status == uint16_t(Status::Enomem) || status == uint16_t(Status::Etmpfail)) {
            refused.push_back(protocol::load_be32(in.data() + 12));
          } else if (status != 0) {
            throw std::runtime_error(fmt::format("preload SET: status 0x{:04x} ({})", status,
                                                 protocol::status_text(Status(status))));
          }
          std::copy(in.begin() + static_cast<ptrdiff_t>(size),
                    in.begin() + static_cast<ptrdiff_t>(used), in.begin());
          used -= size;
          ++answered;
        }
      }
      if (!refused.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      refusals += refused.size();
      pending = std::move(refused);
    }
  }
  return refusals;
}

struct ThreadResult {
  uint64_t ops = 0;
  ErrorCounts errors;
  std::vector<uint32_t> batch_ns;  // latency of each counted batch
};

// One connection of the load: a batch in flight, and the bytes of its responses so far.
struct Connection {
  Connection(Socket connected, uint32_t seed, unsigned slice)
      : socket(std::move(connected)), rng(seed), key_slice(slice) {}

  Socket socket;
  std::minstd_rand rng;
  // Durable loads: this connection writes only the keys i with i % connections == key_slice,
  // in turn, so that a batch (up to the slice's size) never holds a key twice.
  unsigned key_slice;
  size_t next_in_slice = 0;
  std::vector<uint8_t> out;
  std::vector<uint8_t> in;
  size_t in_used = 0;
  unsigned awaiting = 0;
  Clock::time_point sent_at;
};

// Runs the load on `connections` until `deadline`, on the calling thread.
ThreadResult run_load(std::vector<Connection>& connections, const Workload& workload,
                      const Options& options, Clock::time_point deadline) {
  ThreadResult result;
  result.batch_ns.reserve(1 << 20);
  const int epoll = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
  const auto send_batch = [&](Connection& c) {
    c.out.clear();
    const bool durable = options.durability_level() != 0;
    for (unsigned i = 0; i < options.pipeline; ++i) {
      const uint32_t r = static_cast<uint32_t>(c.rng());
      const bool set = durable || r % 100 < options.sets_percent;
      const auto& frames = set ? workload.sets : workload.gets;
      size_t index = (r / 100) % frames.size();
      if (durable) {
        const size_t slices = options.connections;
        const size_t per_slice = frames.size() / slices;  // >= 1: main() checks
        index = c.key_slice + slices * (c.next_in_slice++ % per_slice);
      }
      const auto& frame = frames[index];
      c.out.insert(c.out.end(), frame.begin(), frame.end());
    }
    c.awaiting = options.pipeline;
    c.sent_at = Clock::now();
    c.socket.send_all(c.out);
  };
  for (Connection& c : connections) {
    epoll_event event{.events = EPOLLIN, .data = {.ptr = &c}};
    ::epoll_ctl(epoll, EPOLL_CTL_ADD, c.socket.fd(), &event);
    send_batch(c);
  }
  size_t running = connections.size();
  std::vector<epoll_event> events(connections.size());
  while (running > 0) {
    const int n = ::epoll_wait(epoll, events.data(), static_cast<int>(events.size()), 1000);
    if (n < 0 && errno != EINTR)
      throw std::system_error(errno, std::generic_category(), "epoll_wait");
    for (int e = 0; e < n; ++e) {
      Connection& c = *static_cast<Connection*>(events[e].data.ptr);
      c.in_used = c.socket.receive_some(c.in, c.in_used);
      size_t begin = 0;
      size_t size;
      while ((size = complete_response(std::span(c.in).first(c.in_used).subspan(begin))) != 0) {
        if (c.awaiting == 0) throw std::runtime_error("the server sent an unrequested response");
        const uint16_t status = protocol::load_be16(c.in.data() + begin + 6);
        if (status != 0) ++result.errors[status];
        begin += size;
        --c.awaiting;
      }
      // Keep only the incomplete tail, at the front.
      std::copy(c.in.begin() + static_cast<ptrdiff_t>(begin),
                c.in.begin() + static_cast<ptrdiff_t>(c.in_used), c.in.begin());
      c.in_used -= begin;
      if (c.awaiting > 0) continue;
      const Clock::time_point now = Clock::now();
      if (now < deadline) {
        result.ops += options.pipeline;
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - c.sent_at);
        result.batch_ns.push_back(static_cast<uint32_t>(std::min<int64_t>(ns.count(), UINT32_MAX)));
        send_batch(c);
      } else {
        ::epoll_ctl(epoll, EPOLL_CTL_DEL, c.socket.fd(), nullptr);
        --running;
      }
    }
  }
  ::close(epoll);
  return result;
}

// User + system CPU time of a process so far, in seconds (fields 14 and 15 of /proc/PID/stat).
double cpu_seconds(int pid) {
  std::ifstream file(fmt::format("/proc/{}/stat", pid));
  std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const size_t after_name = stat.rfind(')');  // the name may hold spaces
  if (after_name == std::string::npos)
    throw std::runtime_error("cannot read the server's CPU time");
  std::istringstream fields(stat.substr(after_name + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double percentile_us(std::vector<uint32_t>& ns, double q) {
  if (ns.empty()) return 0;
  const size_t index =
      std::min(ns.size() - 1, static_cast<size_t>(q * static_cast<double>(ns.size())));
  std::nth_element(ns.begin(), ns.begin() + static_cast<ptrdiff_t>(index), ns.end());
  return ns[index] / 1000.0;
}

// --handshakes: opens options.handshakes connections in turn, each answering one NOOP, and
// prints the percentiles of the time each took.
int time_handshakes(const Options& options, SSL_CTX* tls) {
  const std::vector<uint8_t> noop = encode(Opcode::Noop, {});
  std::vector<uint32_t> ns;
  for (unsigned i = 0; i < options.handshakes; ++i) {
    const Clock::time_point start = Clock::now();
    {
      const Socket socket(options.port, tls);
      expect(call(socket, noop), Status::Success, "NOOP");
    }
    const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start);
    ns.push_back(static_cast<uint32_t>(std::min<int64_t>(took.count(), UINT32_MAX)));
  }
  fmt::print("kv_load handshakes={} tls={} p50_us={:.1f} p99_us={:.1f}\n", options.handshakes,
             tls != nullptr, percentile_us(ns, 0.50), percentile_us(ns, 0.99));
  return 0;
}

int run(const Options& options) {
  tls::testing::UniqueCtx tls_context(nullptr, SSL_CTX_free);
  if (!options.tls_ca.empty()) tls_context = tls::testing::client_context({.ca = options.tls_ca});
  SSL_CTX* const tls = tls_context.get();
  if (options.handshakes > 0) return time_handshakes(options, tls);

  const Workload workload(options);
  const Clock::time_point preload_start = Clock::now();
  const bool gets = options.durability_level() == 0 && options.sets_percent < 100;
  size_t refusals = 0;
  if (gets || options.preload_only) refusals = preload(open_connection(options, tls, 0), workload);
  if (options.preload_only) {
    fmt::print("kv_load preloaded keys={} refused={} seconds={:.2f}\n", options.keys, refusals,
               std::chrono::duration<double>(Clock::now() - preload_start).count());
    return 0;
  }

  // Connect and shake hands in parallel: SCRAM is slow on purpose.
  std::vector<std::future<Socket>> opening;
  for (unsigned i = 0; i < options.connections; ++i) {
    opening.push_back(
        std::async(std::launch::async, open_connection, std::cref(options), tls, i + 1));
  }
  std::vector<std::vector<Connection>> per_thread(options.threads);
  for (unsigned i = 0; i < options.connections; ++i) {
    per_thread[i % options.threads].emplace_back(opening[i].get(), i + 1, i);
  }

  const double cpu_before = options.server_pid ? cpu_seconds(options.server_pid) : 0;
  const Clock::time_point start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(options.seconds));
  std::vector<std::future<ThreadResult>> running;
  for (auto& connections : per_thread) {
    running.push_back(std::async(std::launch::async, run_load, std::ref(connections),
                                 std::cref(workload), std::cref(options), deadline));
  }
  ThreadResult total;
  for (auto& future : running) {
    ThreadResult result = future.get();
    total.ops += result.ops;
    for (auto [status, count] : result.errors) total.errors[status] += count;
    total.batch_ns.insert(total.batch_ns.end(), result.batch_ns.begin(), result.batch_ns.end());
  }
  const double cpu_after = options.server_pid ? cpu_seconds(options.server_pid) : 0;
  const double elapsed = std::chrono::duration<double>(deadline - start).count();

  uint64_t errors = 0;
  for (auto [status, count] : total.errors) {
    errors += count;
    fmt::print(stderr, "kv_load: {} responses with status 0x{:04x} ({})\n", count, status,
               protocol::status_text(Status(status)));
  }
  const std::string server_cpu =
      options.server_pid && total.ops > 0
          ? fmt::format("{:.3f}", (cpu_after - cpu_before) * 1e6 / static_cast<double>(total.ops))
          : "-";
  fmt::print(
      "kv_load mode={} durability={} threads={} connections={} pipeline={} seconds={:.1f} ops={} "
      "ops_per_sec={:.0f} p50_us={:.1f} p99_us={:.1f} server_cpu_us_per_op={} errors={} tls={}\n",
      options.mode, options.durability, options.threads, options.connections, options.pipeline,
      elapsed, total.ops, static_cast<double>(total.ops) / elapsed,
      percentile_us(total.batch_ns, 0.50), percentile_us(total.batch_ns, 0.99), server_cpu, errors,
      tls != nullptr);
  return errors == 0 && total.ops > 0 ? 0 : 1;
}

}  // namespace
}  // namespace tern::bench

int main(int argc, char** argv) {
  tern::bench::Options options;
  CLI::App app{"Closed-loop GET/SET load (9:1, 16 B keys, 100 B values) against ternd"};
  app.add_option("--port", options.port, "ternd's port on 127.0.0.1")->required();
  app.add_option("--threads", options.threads, "client threads")->check(CLI::PositiveNumber);
  app.add_option("--connections", options.connections, "connections, spread over the threads")
      ->check(CLI::PositiveNumber);
  app.add_option("--seconds", options.seconds, "duration of the timed load")
      ->check(CLI::PositiveNumber);
  app.add_option("--pipeline", options.pipeline, "requests in flight per connection")
      ->check(CLI::PositiveNumber);
  app.add_option("--mode", options.mode, "plain (memcached client) or couchbase (SDK client)")
      ->check(CLI::IsMember({"plain", "couchbase"}));
  app.add_option("--user", options.user, "couchbase mode: SCRAM user");
  app.add_option("--password", options.password, "couchbase mode: SCRAM password");
  app.add_option("--bucket", options.bucket, "couchbase mode: bucket to select");
  app.add_option("--collection-id", options.collection_id,
                 "couchbase mode: collection of the keys");
  app.add_option("--keys", options.keys, "size of the key space")->check(CLI::PositiveNumber);
  app.add_option("--first-key", options.first_key,
                 "number of the first key (a preload of keys another preload did not store)");
  app.add_option("--value-size", options.value_size, "bytes in each value (default 100)")
      ->check(CLI::Range(size_t{0}, size_t{20} << 20));
  app.add_option("--server-pid", options.server_pid, "report this process's CPU time per op");
  app.add_option("--durability", options.durability,
                 "couchbase mode: every request a SET with this durability level")
      ->check(CLI::IsMember({"none", "majority", "persist-active", "persist-majority"}));
  app.add_option("--sets-percent", options.sets_percent, "share of SETs in the load (0-100)")
      ->check(CLI::Range(0, 100));
  app.add_flag("--preload-only", options.preload_only, "store every key once, then exit");
  app.add_option("--tls-ca", options.tls_ca, "connect over TLS, trusting this CA (PEM file)")
      ->check(CLI::ExistingFile);
  app.add_option("--handshakes", options.handshakes,
                 "time this many connections in turn (connect, TLS handshake, NOOP), no load");
  CLI11_PARSE(app, argc, argv);
  if (options.durability != "none" && !options.couchbase()) {
    fmt::print(stderr, "kv_load: --durability needs --mode couchbase\n");
    return 2;
  }
  if (options.durability != "none" && options.keys < options.connections) {
    fmt::print(stderr, "kv_load: --durability needs at least one key per connection\n");
    return 2;
  }
  options.threads = std::min(options.threads, options.connections);
  try {
    return tern::bench::run(options);
  } catch (const std::exception& error) {
    fmt::print(stderr, "kv_load: {}\n", error.what());
    return 1;
  }
}
