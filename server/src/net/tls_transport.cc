#include "net/tls_transport.h"

#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "net/cipher_bio.h"
#include "net/transport_security.h"
#include "tls/openssl_error.h"

namespace tern::net {

namespace {

using Clock = std::chrono::steady_clock;

// Offered to each inner receive: a whole record (16 KiB of plaintext and its overhead).
constexpr size_t kCipherChunk = 17 * 1024;
// The most plaintext a record holds: what may hide, half received, inside the SSL object.
constexpr size_t kMaxRecordPlaintext = 16 * 1024;
// How long a connection that failed may take to send its alert before it ends regardless.
constexpr auto kAlertPatience = std::chrono::seconds(1);

// Frees a buffer that grew for one large transfer, so an idle connection stays small.
void release_if_large(std::vector<uint8_t>& buffer) {
  if (buffer.capacity() > 4 * kCipherChunk) std::vector<uint8_t>().swap(buffer);
}

class TlsTransport final : public Transport, private TransportEvents {
 public:
  TlsTransport(std::unique_ptr<Transport> inner, tls::UniqueSsl ssl, TlsTransportOptions options)
      : inner_(std::move(inner)), ssl_(std::move(ssl)), options_(std::move(options)) {
    BIO* bio = make_cipher_bio(buffers_);
    SSL_set_bio(ssl_.get(), bio, bio);  // the SSL owns it from now on
    // An idle connection keeps no record buffers.
    SSL_set_mode(ssl_.get(), SSL_MODE_RELEASE_BUFFERS);
    SSL_set_accept_state(ssl_.get());
  }

  // Transport (the connection's side: plaintext).

  void start(std::shared_ptr<TransportEvents> owner) override {
    owner_ = owner.get();
    // The inner transport holds the connection alive while its I/O is pending, as it
    // would without TLS, and reports to this decorator, which the connection owns.
    inner_->start(
        std::shared_ptr<TransportEvents>(std::move(owner), static_cast<TransportEvents*>(this)));
    inner_->end_at(Clock::now() + options_.handshake_timeout);
    receive_more();
  }

  void receive() override {
    if (!reporting()) return;
    wanted_ = true;
    // Plaintext never waits here (each inner delivery is decrypted whole): ask for more.
    if (handshake_done_) receive_more();
  }

  bool send(std::span<const uint8_t> bytes) override {
    if (!reporting()) return false;
    if (bytes.empty()) return true;
    if (!handshake_done_) {
      // The connection answers only requests, which come after the handshake.
      fail_later("a send before the TLS handshake finished");
      return false;
    }
    tls::clear_openssl_errors();
    size_t written = 0;
    if (SSL_write_ex(ssl_.get(), bytes.data(), bytes.size(), &written) != 1) {
      fail_later("TLS write failed: " + tls::take_openssl_errors());
      return false;
    }
    queue_output();
    if (!inner_sending_) return true;
    sent_owed_ = true;
    return false;
  }

  void linger(Clock::duration patience) override {
    if (!reporting() || lingering_) return;
    lingering_ = true;
    if (handshake_done_) {
      tls::clear_openssl_errors();
      SSL_shutdown(ssl_.get());  // queues our close_notify
      tls::clear_openssl_errors();
      queue_output();
    }
    linger_patience_ = patience;
    if (!inner_sending_) start_inner_linger();
  }

  void keep_open(bool keep) override {
    if (!closed_) inner_->keep_open(keep);
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    inner_->close();
  }

  void end_at(Clock::time_point when) override {
    // The handshake's deadline is the inner transport's only one: later ones replace it.
    if (reporting()) inner_->end_at(when);
  }

  const TransportSecurity* security() const override {
    return handshake_done_ ? &security_ : nullptr;
  }

 private:
  // TransportEvents (the inner transport's side: ciphertext).

  std::span<uint8_t> receive_space(size_t at_least) override {
    input_lent_ = true;
    return buffers_.input_space(std::max(at_least, kCipherChunk));
  }

  void received(size_t n) override {
    inner_receiving_ = false;
    input_lent_ = false;
    if (!reporting() || failing_) return;
    buffers_.input_added(n);
    if (handshake_done_ || handshake()) decrypt();
    // Unless the inner transport already holds space in it for its next receive.
    if (!input_lent_) buffers_.release_read_input();
  }

  void peer_closed() override {
    inner_receiving_ = false;
    input_lent_ = false;
    if (!reporting() || failing_) return;
    if (!handshake_done_) {
      spdlog::info("TLS connection from {} closed before its handshake finished", options_.peer);
      report_ended(std::make_error_code(std::errc::connection_aborted));
      return;
    }
    report_peer_closed();
  }

  void sent() override {
    inner_sending_ = false;
    sending_.clear();
    release_if_large(sending_);
    if (!reporting()) return;
    send_queued();
    if (inner_sending_) return;
    if (failing_) {
      report_ended(std::make_error_code(std::errc::protocol_error));
      return;
    }
    if (sent_owed_) {
      sent_owed_ = false;
      owner_->sent();
      if (!reporting() || inner_sending_) return;
    }
    if (lingering_) start_inner_linger();
  }

  void ended(std::error_code error) override {
    inner_receiving_ = false;
    input_lent_ = false;
    inner_sending_ = false;
    if (!reporting()) return;
    if (deferred_error_) {
      // Our own request (fail_later), reported now that it is safe to.
      report_ended(*deferred_error_);
      return;
    }
    if (!handshake_done_ && !failing_ && error == std::errc::timed_out) {
      spdlog::warn("TLS handshake from {} timed out after {} ms", options_.peer,
                   std::chrono::duration_cast<std::chrono::milliseconds>(options_.handshake_timeout)
                       .count());
    }
    report_ended(error);
  }

  // The handshake's next step with the input buffered; true once it is done.
  bool handshake() {
    tls::clear_openssl_errors();
    const int result = SSL_do_handshake(ssl_.get());
    if (result == 1) {
      handshake_done_ = true;
      inner_->end_at(Clock::time_point::max());
      security_.client_certificate = tls::peer_certificate(*ssl_);
      spdlog::debug("TLS handshake with {}: {} {}{}", options_.peer, SSL_get_version(ssl_.get()),
                    SSL_get_cipher_name(ssl_.get()),
                    security_.client_certificate
                        ? ", client certificate " + security_.client_certificate->subject
                        : std::string());
      queue_output();  // the last flight, and TLS 1.3's session tickets
      return true;
    }
    const int error = SSL_get_error(ssl_.get(), result);
    queue_output();  // the next flight, or the alert that ends it
    if (error == SSL_ERROR_WANT_READ) {
      receive_more();
    } else {
      fail("TLS handshake failed: " + tls::take_openssl_errors(ssl_error_name(error)));
    }
    return false;
  }

  // Decrypts everything buffered into the connection's space and delivers it, then reports
  // the peer's close_notify or a failure, or asks for more input if the connection wants it.
  void decrypt() {
    std::optional<std::string> failure;
    bool close_notify = false;
    while (!failure && !close_notify) {
      const size_t buffered = buffers_.input_unread() + SSL_pending(ssl_.get());
      if (buffered == 0) break;
      // The plaintext is never longer than its ciphertext, but up to one record of it may
      // already be inside the SSL object.
      const std::span<uint8_t> space = owner_->receive_space(buffered + kMaxRecordPlaintext);
      size_t total = 0;
      while (total < space.size()) {
        tls::clear_openssl_errors();
        size_t n = 0;
        const int result = SSL_read_ex(ssl_.get(), space.data() + total, space.size() - total, &n);
        if (result == 1) {
          total += n;
          continue;
        }
        const int error = SSL_get_error(ssl_.get(), result);
        if (error == SSL_ERROR_ZERO_RETURN) {
          close_notify = true;
        } else if (error != SSL_ERROR_WANT_READ) {
          failure = "TLS read failed: " + tls::take_openssl_errors(ssl_error_name(error));
        }
        break;
      }
      queue_output();  // alerts, key updates
      if (total == 0) break;
      wanted_ = false;
      owner_->received(total);
      if (!reporting()) return;
      // Only a full space can leave plaintext behind.
      if (total < space.size()) break;
    }
    if (failure) {
      fail(*failure);
    } else if (close_notify) {
      report_peer_closed();
    } else {
      receive_more();
    }
  }

  // Asks the inner transport for input, if the handshake or the connection needs it.
  void receive_more() {
    if (inner_receiving_ || peer_done_ || failing_ || lingering_) return;
    if (handshake_done_ && !wanted_) return;
    inner_receiving_ = true;
    inner_->receive();
  }

  // Sends what the SSL wrote, unless a send is in flight (then it waits for sent()).
  void queue_output() { send_queued(); }

  void send_queued() {
    std::vector<uint8_t>& queued = buffers_.output;
    while (!inner_sending_ && !queued.empty() && reporting()) {
      std::swap(queued, sending_);
      queued.clear();
      if (inner_->send(sending_)) {
        sending_.clear();
      } else {
        inner_sending_ = true;
      }
    }
    release_if_large(queued);
  }

  // A failure the inner transport reported into: logs it, sends the alert the SSL queued if
  // any, and ends the connection (once the alert has gone, within kAlertPatience).
  void fail(const std::string& reason) {
    spdlog::warn("TLS connection from {} ended: {}", options_.peer, reason);
    failing_ = true;
    if (!inner_sending_) {
      report_ended(std::make_error_code(std::errc::protocol_error));
      return;
    }
    inner_->end_at(Clock::now() + kAlertPatience);
  }

  // A failure inside a call of the connection, which must not hear of it there: the inner
  // transport reports a deadline already passed, from its loop.
  void fail_later(const std::string& reason) {
    spdlog::warn("TLS connection from {} ended: {}", options_.peer, reason);
    failing_ = true;
    deferred_error_ = std::make_error_code(std::errc::protocol_error);
    inner_->end_at(Clock::time_point{});
  }

  // Once our close_notify has gone: the inner transport ends the connection gracefully.
  void start_inner_linger() {
    if (inner_lingering_) return;
    inner_lingering_ = true;
    inner_->linger(linger_patience_);
  }

  void report_peer_closed() {
    if (peer_done_) return;
    peer_done_ = true;
    wanted_ = false;
    owner_->peer_closed();
  }

  void report_ended(std::error_code error) {
    ended_ = true;
    owner_->ended(error);
  }

  static std::string ssl_error_name(int error) {
    switch (error) {
      case SSL_ERROR_ZERO_RETURN:
        return "the peer closed the TLS session";
      case SSL_ERROR_SYSCALL:
        return "the stream ended unexpectedly";
      case SSL_ERROR_SSL:
        return "protocol error";
      default:
        return "SSL error " + std::to_string(error);
    }
  }

  bool reporting() const { return !closed_ && !ended_; }

  // Ciphertext: received and not yet read by the SSL; written by it and not yet sent. (First:
  // the SSL's BIO refers to it, so it goes last.)
  CipherBuffers buffers_;
  const std::unique_ptr<Transport> inner_;
  const tls::UniqueSsl ssl_;
  const TlsTransportOptions options_;
  TransportEvents* owner_ = nullptr;  // the owner owns this transport
  TransportSecurity security_;
  std::vector<uint8_t> sending_;  // ciphertext the inner transport is sending
  Clock::duration linger_patience_{};
  std::optional<std::error_code> deferred_error_;  // fail_later()'s, reported by ended()
  bool handshake_done_ = false;
  bool wanted_ = false;           // the connection asked for input and has not had it
  bool inner_receiving_ = false;  // an inner receive was asked for and not yet reported
  bool input_lent_ = false;       // the inner transport holds space in the input buffer
  bool inner_sending_ = false;    // an inner send returned false and sent() has not come
  bool sent_owed_ = false;        // a send() returned false: sent() once the queue drains
  bool lingering_ = false;        // linger() was called
  bool inner_lingering_ = false;  // and passed on to the inner transport
  bool peer_done_ = false;        // close_notify or the end of the stream was reported
  bool failing_ = false;          // failed: only the alert still goes out
  bool ended_ = false;            // ended() was reported
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<Transport> make_tls_transport(std::unique_ptr<Transport> inner,
                                              const tls::TlsContext& context,
                                              TlsTransportOptions options) {
  return std::make_unique<TlsTransport>(std::move(inner), context.new_connection(),
                                        std::move(options));
}

}  // namespace tern::net
