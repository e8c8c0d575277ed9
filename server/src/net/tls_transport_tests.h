#pragma once
// The TLS transport's tests, run over each I/O backend: net/tls_transport_test.cc
// instantiates them on epoll, uring/tls_transport_uring_test.cc on io_uring. A real
// OpenSSL client on the other end of a loopback socket, pumped by the test between turns
// of the loop; on the server end an owner that echoes what it hears, with a connection's
// flow control (it asks for input again only once its echo has gone).
//
// A Backend provides: `static bool available()`; `Opened open()`, a connected pair (the
// client's end non-blocking, the server's in a transport of the backend, not started); and
// `void turn()`, one turn of its loop that waits at most a millisecond or so.
//
// The loopback may deliver late on a busy machine: every step waits (turning the loop) for
// what it needs to have happened, with a bound only a broken transport reaches, and never
// for a fixed time. The handshake timeout is tested with a timeout that has already passed.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "executor/test_task.h"
#include "net/tls_transport.h"
#include "net/transport.h"
#include "net/transport_security.h"
#include "storage/temp_dir.h"
#include "tls/openssl_error.h"
#include "tls/test_certificates.h"
#include "tls/test_client.h"
#include "tls/tls_context.h"

namespace tern::net::testing {

// A connected pair of a backend.
struct Opened {
  int client = -1;  // non-blocking; owned by the backend
  std::unique_ptr<Transport> server;
};

// Bytes 0, 1, 2, ... shifted by `seed`, so any loss, repeat or reorder shows.
inline std::vector<uint8_t> pattern(size_t n, uint8_t seed = 0) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + seed + i / 251);
  return bytes;
}

// The client: OpenSSL over the non-blocking socket, advanced by pump().
class TlsTestClient {
 public:
  TlsTestClient(int fd, const tls::testing::ClientOptions& options)
      : ctx_(tls::testing::client_context(options)), ssl_(SSL_new(ctx_.get())) {
    SSL_set_fd(ssl_.get(), fd);
    SSL_set_mode(ssl_.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_set_connect_state(ssl_.get());
  }

  // Handshakes, writes what `out` still holds, and reads what has arrived, without blocking.
  void pump() {
    if (failed()) return;
    if (!connected) {
      tls::clear_openssl_errors();
      const int result = SSL_do_handshake(ssl_.get());
      if (result != 1) {
        check(result);
        return;
      }
      connected = true;
    }
    while (written < out.size()) {
      tls::clear_openssl_errors();
      size_t n = 0;
      if (SSL_write_ex(ssl_.get(), out.data() + written, out.size() - written, &n) != 1) {
        check(0);
        break;
      }
      written += n;
    }
    while (!close_notify && !failed()) {
      uint8_t chunk[64 * 1024];
      size_t n = 0;
      tls::clear_openssl_errors();
      const int result = SSL_read_ex(ssl_.get(), chunk, sizeof chunk, &n);
      if (result != 1) {
        const int error = SSL_get_error(ssl_.get(), result);
        if (error == SSL_ERROR_ZERO_RETURN) {
          close_notify = true;
        } else {
          check(result);
        }
        break;
      }
      in.insert(in.end(), chunk, chunk + n);
    }
  }

  void send(std::span<const uint8_t> bytes) { out.insert(out.end(), bytes.begin(), bytes.end()); }
  void send(const std::string& text) {
    send(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
  std::string text() const { return std::string(in.begin(), in.end()); }
  bool failed() const { return error.has_value(); }
  SSL* ssl() { return ssl_.get(); }

  bool connected = false;
  bool close_notify = false;         // the server's close_notify arrived
  std::optional<std::string> error;  // why the client failed (an alert, the socket's end)
  std::vector<uint8_t> out;
  size_t written = 0;
  std::vector<uint8_t> in;

 private:
  // Records a failure unless `result` only means "not yet".
  void check(int result) {
    const int code = SSL_get_error(ssl_.get(), result);
    if (code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE) return;
    error = tls::take_openssl_errors("SSL error " + std::to_string(code));
  }

  tls::testing::UniqueCtx ctx_;
  tls::UniqueSsl ssl_;
};

// The server end's owner: echoes what it hears, and asks for more only once its echo has
// gone (unless told not to ask again at all).
class EchoOwner : public TransportEvents {
 public:
  static std::shared_ptr<EchoOwner> start(std::unique_ptr<Transport> transport) {
    auto owner = std::make_shared<EchoOwner>();
    owner->transport = std::move(transport);
    owner->transport->start(owner);
    owner->ask();
    return owner;
  }

  void ask() {
    if (reading_ || end) return;
    reading_ = true;
    transport->receive();
  }

  std::span<uint8_t> receive_space(size_t at_least) override {
    input_.resize(used_ + at_least);
    return {input_.data() + used_, at_least};
  }
  void received(size_t n) override {
    reading_ = false;
    if (deliveries++ == 0) security = transport->security();
    total_received += n;
    used_ += n;
    input_.resize(used_);
    if (echo) flush();
    if (ask_again && !sending_) ask();
  }
  void peer_closed() override {
    reading_ = false;
    peer_gone = true;
  }
  void sent() override {
    sending_ = false;
    output_.clear();
    flush();
    if (ask_again && !sending_) ask();
  }
  void ended(std::error_code error) override {
    reading_ = false;
    end = error;
    transport->close();
  }

  std::unique_ptr<Transport> transport;
  bool echo = true;
  bool ask_again = true;
  int deliveries = 0;
  size_t total_received = 0;
  const TransportSecurity* security = nullptr;  // as it was at the first delivery
  bool peer_gone = false;
  std::optional<std::error_code> end;

 private:
  void flush() {
    if (sending_ || used_ == 0) return;
    output_.assign(input_.begin(), input_.begin() + static_cast<ptrdiff_t>(used_));
    used_ = 0;
    input_.clear();
    if (transport->send(output_)) {
      output_.clear();
    } else {
      sending_ = true;
    }
  }

  std::vector<uint8_t> input_;
  size_t used_ = 0;
  std::vector<uint8_t> output_;
  bool sending_ = false;
  bool reading_ = false;
};

// Passes everything to the transport it wraps, and records the deadlines it is given.
class DeadlineRecorder final : public Transport {
 public:
  explicit DeadlineRecorder(std::unique_ptr<Transport> inner) : inner_(std::move(inner)) {}
  void start(std::shared_ptr<TransportEvents> owner) override { inner_->start(owner); }
  void receive() override { inner_->receive(); }
  bool send(std::span<const uint8_t> bytes) override { return inner_->send(bytes); }
  void linger(std::chrono::steady_clock::duration patience) override { inner_->linger(patience); }
  void keep_open(bool keep) override { inner_->keep_open(keep); }
  void close() override { inner_->close(); }
  void end_at(std::chrono::steady_clock::time_point when) override {
    deadlines->push_back(when);
    inner_->end_at(when);
  }

  std::shared_ptr<std::vector<std::chrono::steady_clock::time_point>> deadlines =
      std::make_shared<std::vector<std::chrono::steady_clock::time_point>>();

 private:
  std::unique_ptr<Transport> inner_;
};

template <class Backend>
class TlsTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Backend::available()) GTEST_SKIP() << "the kernel refuses io_uring here";
    backend_.emplace();
  }

  tls::TlsSettings settings(tls::ClientAuth client_auth = tls::ClientAuth::kDisabled) const {
    return {.certificate = certificates_.path("server.pem"),
            .private_key = certificates_.path("server.key"),
            .client_ca = certificates_.path("ca.pem"),
            .client_auth = client_auth};
  }

  tls::testing::ClientOptions trusting_client() const {
    return {.ca = certificates_.path("ca.pem")};
  }

  // A TLS transport over a new connection of the backend, served by an EchoOwner, and the
  // client's end. `wrap`, if given, goes between the TLS transport and the backend's.
  std::pair<std::shared_ptr<EchoOwner>, int> open(
      TlsTransportOptions options = {},
      const std::function<std::unique_ptr<Transport>(std::unique_ptr<Transport>)>& wrap = {}) {
    Opened opened = backend_->open();
    std::unique_ptr<Transport> inner = std::move(opened.server);
    if (wrap) inner = wrap(std::move(inner));
    options.peer = "test-peer:1";
    return {EchoOwner::start(make_tls_transport(std::move(inner), *context_, options)),
            opened.client};
  }

  // Turns the loop until `done()` (checked before each turn, after `between()`); false if
  // it still does not hold after 30 s, which only a broken transport takes.
  bool turn_until(const std::function<bool()>& done, const std::function<void()>& between = {}) {
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (true) {
      if (between) between();
      if (done()) return true;
      if (std::chrono::steady_clock::now() > limit) return false;
      backend_->turn();
    }
  }

  bool handshake(TlsTestClient& client) {
    return turn_until([&] { return client.connected || client.failed(); },
                      [&] { client.pump(); }) &&
           client.connected;
  }

  storage::TempDir dir_;
  tls::testing::TestCertificates certificates_{dir_.path()};
  std::optional<tls::TlsContext> context_{std::in_place, settings()};
  std::optional<Backend> backend_;  // after what its connections use: they go first
};

TYPED_TEST_SUITE_P(TlsTransportTest);

TYPED_TEST_P(TlsTransportTest, HandshakeThenEcho) {
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  TlsTestClient client(fd, this->trusting_client());
  ASSERT_TRUE(this->handshake(client)) << client.error.value_or("");
  client.send("hello over TLS");
  ASSERT_TRUE(this->turn_until([&] { return client.in.size() >= 14 || client.failed(); },
                               [&] { client.pump(); }));
  EXPECT_EQ(client.text(), "hello over TLS");
  ASSERT_NE(owner->security, nullptr);  // known at the first delivery
  EXPECT_EQ(owner->security->client_certificate, std::nullopt);
  EXPECT_FALSE(owner->end.has_value());
}

TYPED_TEST_P(TlsTransportTest, LargeTransfersBothWays) {
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  TlsTestClient client(fd, this->trusting_client());
  ASSERT_TRUE(this->handshake(client));
  // More than the sockets and the TLS layer hold at once: it goes in many records, reads
  // and sends, and the echo holds input back while its answer is on its way.
  constexpr size_t kSize = 3 << 20;
  const std::vector<uint8_t> data = pattern(kSize, 5);
  client.send(data);
  ASSERT_TRUE(this->turn_until([&] { return client.in.size() >= kSize || client.failed(); },
                               [&] { client.pump(); }));
  EXPECT_FALSE(client.failed()) << *client.error;
  EXPECT_TRUE(client.in == data);
  EXPECT_GT(owner->deliveries, 1);
  EXPECT_FALSE(owner->end.has_value());
}

TYPED_TEST_P(TlsTransportTest, InputStopsWhenNotAskedForAgain) {
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  owner->echo = false;
  owner->ask_again = false;
  TlsTestClient client(fd, this->trusting_client());
  ASSERT_TRUE(this->handshake(client));
  constexpr size_t kSize = 16 << 20;
  client.send(pattern(kSize));
  ASSERT_TRUE(this->turn_until([&] { return owner->deliveries > 0; }, [&] { client.pump(); }));
  // What was on its way may still come; then nothing more, however much the client sends.
  size_t taken = 0;
  for (int quiet = 0; quiet < 20;) {
    client.pump();
    this->backend_->turn();
    quiet = owner->total_received == taken ? quiet + 1 : 0;
    taken = owner->total_received;
  }
  EXPECT_LT(taken, kSize / 2);
  // Asking again brings the rest.
  owner->ask_again = true;
  owner->ask();
  ASSERT_TRUE(
      this->turn_until([&] { return owner->total_received == kSize; }, [&] { client.pump(); }));
}

TYPED_TEST_P(TlsTransportTest, PlainTextIsRefusedWithALogLine) {
  executor::testing::LogCapture log;
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  ASSERT_TRUE(this->turn_until([&] { return owner->end.has_value(); }));
  EXPECT_EQ(owner->deliveries, 0);
  EXPECT_THAT(log.text(), ::testing::HasSubstr("TLS connection from test-peer:1 ended: TLS "
                                               "handshake failed: http request"));
}

TYPED_TEST_P(TlsTransportTest, AClientThatHangsUpMidHandshakeEndsIt) {
  executor::testing::LogCapture log;
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  // The start of a ClientHello, and no more.
  const uint8_t partial[] = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01};
  ASSERT_EQ(::send(fd, partial, sizeof partial, MSG_NOSIGNAL), 6);
  ::shutdown(fd, SHUT_WR);
  ASSERT_TRUE(this->turn_until([&] { return owner->end.has_value(); }));
  EXPECT_EQ(owner->deliveries, 0);
  EXPECT_FALSE(owner->peer_gone);
  EXPECT_THAT(log.text(), ::testing::HasSubstr("TLS connection from test-peer:1 closed before "
                                               "its handshake finished"));
}

TYPED_TEST_P(TlsTransportTest, AnUnfinishedHandshakeTimesOut) {
  executor::testing::LogCapture log;
  // A timeout already over when the connection starts: the first turns end it.
  const auto opened = this->open({.handshake_timeout = std::chrono::seconds(-1)});
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  const uint8_t partial[] = {0x16, 0x03, 0x01};
  ASSERT_EQ(::send(fd, partial, sizeof partial, MSG_NOSIGNAL), 3);
  ASSERT_TRUE(this->turn_until([&] { return owner->end.has_value(); }));
  EXPECT_EQ(*owner->end, std::errc::timed_out);
  EXPECT_EQ(owner->deliveries, 0);
  EXPECT_THAT(log.text(), ::testing::HasSubstr("TLS handshake from test-peer:1 timed out"));
}

TYPED_TEST_P(TlsTransportTest, TheHandshakeDeadlineIsSetAtStartAndClearedOnceDone) {
  std::shared_ptr<std::vector<std::chrono::steady_clock::time_point>> deadlines;
  const auto before = std::chrono::steady_clock::now();
  const auto opened = this->open({}, [&](std::unique_ptr<Transport> inner) {
    auto recorder = std::make_unique<DeadlineRecorder>(std::move(inner));
    deadlines = recorder->deadlines;
    return recorder;
  });
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  const auto after = std::chrono::steady_clock::now();
  ASSERT_EQ(deadlines->size(), 1u);
  EXPECT_GE(deadlines->front(), before + kHandshakeTimeout);
  EXPECT_LE(deadlines->front(), after + kHandshakeTimeout);
  TlsTestClient client(fd, this->trusting_client());
  ASSERT_TRUE(this->handshake(client));
  client.send("x");
  ASSERT_TRUE(this->turn_until([&] { return client.in.size() == 1; }, [&] { client.pump(); }));
  ASSERT_EQ(deadlines->size(), 2u);
  EXPECT_EQ(deadlines->back(), std::chrono::steady_clock::time_point::max());
}

TYPED_TEST_P(TlsTransportTest, ADeadlineEndsTheConnectionUnlessClearedFirst) {
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  TlsTestClient client(fd, this->trusting_client());
  ASSERT_TRUE(this->handshake(client));
  client.send("x");
  ASSERT_TRUE(this->turn_until([&] { return client.in.size() == 1; }, [&] { client.pump(); }));
  // Passed already, but cleared before the loop could see it: nothing happens.
  owner->transport->end_at(std::chrono::steady_clock::time_point{});
  owner->transport->end_at(std::chrono::steady_clock::time_point::max());
  for (int i = 0; i < 10; ++i) this->backend_->turn();
  EXPECT_FALSE(owner->end.has_value());
  // Left in place, it ends the connection.
  owner->transport->end_at(std::chrono::steady_clock::time_point{});
  ASSERT_TRUE(this->turn_until([&] { return owner->end.has_value(); }));
  EXPECT_EQ(*owner->end, std::errc::timed_out);
}

TYPED_TEST_P(TlsTransportTest, CloseNotifyIsPeerClosed) {
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  TlsTestClient client(fd, this->trusting_client());
  ASSERT_TRUE(this->handshake(client));
  client.send("last words");
  ASSERT_TRUE(this->turn_until([&] { return client.in.size() == 10; }, [&] { client.pump(); }));
  ASSERT_EQ(SSL_shutdown(client.ssl()), 0);  // sent; the server's has not come
  ASSERT_TRUE(this->turn_until([&] { return owner->peer_gone || owner->end.has_value(); }));
  EXPECT_TRUE(owner->peer_gone);
  EXPECT_FALSE(owner->end.has_value());
  EXPECT_EQ(owner->total_received, 10u);
}

TYPED_TEST_P(TlsTransportTest, LingerSendsCloseNotifyThenEnds) {
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  TlsTestClient client(fd, this->trusting_client());
  ASSERT_TRUE(this->handshake(client));
  client.send("bye");
  ASSERT_TRUE(this->turn_until([&] { return client.in.size() == 3; }, [&] { client.pump(); }));
  owner->transport->linger(std::chrono::seconds(30));
  ASSERT_TRUE(this->turn_until([&] { return client.close_notify || client.failed(); },
                               [&] { client.pump(); }));
  EXPECT_TRUE(client.close_notify) << client.error.value_or("");
  // The client closes its side: the linger ends, without an error.
  ::shutdown(fd, SHUT_WR);
  ASSERT_TRUE(this->turn_until([&] { return owner->end.has_value(); }));
  EXPECT_FALSE(*owner->end) << owner->end->message();
}

TYPED_TEST_P(TlsTransportTest, ARenegotiationIsRefused) {
  executor::testing::LogCapture log;
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  // TLS 1.3 has no renegotiation: TLS 1.2 is where a client can ask for it.
  TlsTestClient client(fd,
                       {.ca = this->certificates_.path("ca.pem"), .max_version = TLS1_2_VERSION});
  ASSERT_TRUE(this->handshake(client));
  ASSERT_EQ(SSL_renegotiate(client.ssl()), 1);
  client.connected = false;  // pump() drives the new handshake, which sends a ClientHello
  ASSERT_TRUE(this->turn_until([&] { return client.connected || client.failed(); },
                               [&] { client.pump(); }));
  // The server answers no_renegotiation; OpenSSL's client then aborts with an alert, and
  // the server ends the connection, logged. No second handshake happened.
  ASSERT_TRUE(client.failed());
  EXPECT_THAT(*client.error, ::testing::HasSubstr("no renegotiation"));
  ASSERT_TRUE(this->turn_until([&] { return owner->end.has_value(); }));
  EXPECT_EQ(owner->deliveries, 0);
  EXPECT_THAT(log.text(), ::testing::HasSubstr("TLS connection from test-peer:1 ended: TLS "
                                               "read failed: sslv3 alert handshake failure"));
}

TYPED_TEST_P(TlsTransportTest, AClientCertificateIsReportedAsSecurity) {
  this->context_.emplace(this->settings(tls::ClientAuth::kMandatory));
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  TlsTestClient client(fd, {.ca = this->certificates_.path("ca.pem"),
                            .certificate = this->certificates_.path("client.pem"),
                            .private_key = this->certificates_.path("client.key")});
  ASSERT_TRUE(this->handshake(client));
  client.send("me");
  ASSERT_TRUE(this->turn_until([&] { return client.in.size() == 2 || client.failed(); },
                               [&] { client.pump(); }));
  ASSERT_NE(owner->security, nullptr);
  ASSERT_TRUE(owner->security->client_certificate.has_value());
  EXPECT_EQ(owner->security->client_certificate->user, "alice");
}

TYPED_TEST_P(TlsTransportTest, AForeignClientCertificateIsRefusedWithALogLine) {
  executor::testing::LogCapture log;
  this->context_.emplace(this->settings(tls::ClientAuth::kEnabled));
  const auto opened = this->open();
  const std::shared_ptr<EchoOwner> owner = opened.first;
  const int fd = opened.second;
  TlsTestClient client(fd, {.ca = this->certificates_.path("ca.pem"),
                            .certificate = this->certificates_.path("other-client.pem"),
                            .private_key = this->certificates_.path("other-client.key")});
  client.send("me");
  ASSERT_TRUE(this->turn_until([&] { return owner->end.has_value(); }, [&] { client.pump(); }));
  EXPECT_EQ(owner->deliveries, 0);
  EXPECT_THAT(log.text(), ::testing::HasSubstr("TLS connection from test-peer:1 ended: TLS "
                                               "handshake failed: certificate verify failed"));
}

REGISTER_TYPED_TEST_SUITE_P(TlsTransportTest, HandshakeThenEcho, LargeTransfersBothWays,
                            InputStopsWhenNotAskedForAgain, PlainTextIsRefusedWithALogLine,
                            AClientThatHangsUpMidHandshakeEndsIt, AnUnfinishedHandshakeTimesOut,
                            TheHandshakeDeadlineIsSetAtStartAndClearedOnceDone,
                            ADeadlineEndsTheConnectionUnlessClearedFirst, CloseNotifyIsPeerClosed,
                            LingerSendsCloseNotifyThenEnds, ARenegotiationIsRefused,
                            AClientCertificateIsReportedAsSecurity,
                            AForeignClientCertificateIsRefusedWithALogLine);

}  // namespace tern::net::testing
