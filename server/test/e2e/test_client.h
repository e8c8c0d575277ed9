#pragma once
// A small blocking memcached-binary-protocol client for end-to-end tests, built on the codec.

#include <openssl/ssl.h>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/opcode.h"
#include "protocol/status.h"

namespace tern::e2e {

using protocol::Opcode;
using protocol::Status;

// A request to encode. Owns its bytes.
struct Request {
  uint8_t magic = 0x80;
  Opcode opcode = Opcode::Noop;
  std::string extras;
  std::string key;
  std::string value;
  uint64_t cas = 0;
  uint32_t opaque = 0;
  uint8_t datatype = 0;
  uint16_t vbucket = 0;
  // Written only with the alt magic (0x08): see alt().
  std::string framing_extras;

  std::vector<uint8_t> encode() const;
};

// A decoded response. Owns its bytes.
struct Response {
  Opcode opcode = Opcode::Noop;
  Status status = Status::Success;
  uint8_t datatype = 0;
  uint32_t opaque = 0;
  uint64_t cas = 0;
  std::string extras;
  std::string key;
  std::string value;
  // 0x81, or 0x18 when the answer carries framing extras; 0x82 for a request the server
  // sends (then `opcode` holds its server opcode and `status` the vbucket field).
  uint8_t magic = 0x81;
  std::string framing_extras;
};

std::string be16(uint16_t v);
std::string be32(uint32_t v);
std::string be64(uint64_t v);
uint32_t read_be32(const std::string& bytes, size_t offset = 0);
uint64_t read_be64(const std::string& bytes, size_t offset = 0);

Request simple(Opcode opcode, std::string key = {}, std::string value = {});
// SET/ADD/REPLACE and their quiet variants: extras are flags and expiry.
Request store(Opcode opcode, std::string key, std::string value, uint32_t flags = 0,
              uint32_t expiry = 0, uint64_t cas = 0);
// INCREMENT/DECREMENT and quiet variants: extras are delta, initial and expiry.
Request arithmetic(Opcode opcode, std::string key, uint64_t delta, uint64_t initial,
                   uint32_t expiry = 0);
// TOUCH/GAT/GATQ/GET_LOCKED: extras are the expiry (or lock time).
Request with_time(Opcode opcode, std::string key, uint32_t seconds);
// `request` sent with the alt magic (0x08) and these framing extras.
Request alt(Request request, std::string framing_extras);

class Client {
 public:
  // Connects to 127.0.0.1:port; a read times out after 15 s rather than hang a test.
  explicit Client(uint16_t port);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool connected() const { return fd_ >= 0; }

  // Speaks TLS from here on: a client handshake with `context` (the test's trusted CA, client
  // certificate, protocol versions). False if the handshake fails; the client then reads as
  // closed. The request and response calls below go through TLS after it.
  bool start_tls(SSL_CTX& context);
  // The TLS connection after start_tls(), for what the handshake settled; else null.
  SSL* tls() const { return ssl_; }

  // Sends raw bytes; false if the peer has gone.
  bool send_bytes(std::span<const uint8_t> bytes);
  bool send(const Request& request) { return send_bytes(request.encode()); }

  // The next response, or nullopt if the peer closed the connection (or a read timed out).
  std::optional<Response> receive();

  // Sends and receives one response; a missing response fails the test.
  Response call(const Request& request);

  // Every STAT pair of `group` ("" for the general group), read up to the empty terminator;
  // a response that is not Success fails the test.
  std::map<std::string, std::string> stats(const std::string& group = {});

  // True if the peer closes the connection without sending anything more.
  bool closed_by_peer();

 private:
  bool read_exactly(uint8_t* out, size_t n);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  bool tls_failed_ = false;  // start_tls() failed: nothing more is read or sent
};

}  // namespace tern::e2e
