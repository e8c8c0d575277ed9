#include "test_client.h"

#include <arpa/inet.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <gtest/gtest.h>

#include "protocol/codec.h"
#include "protocol/frame.h"

namespace tern::e2e {

namespace {

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string string_of(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::vector<uint8_t> Request::encode() const {
  protocol::FrameParts parts;
  parts.magic = magic;
  parts.opcode = static_cast<uint8_t>(opcode);
  parts.opaque = opaque;
  parts.cas = cas;
  parts.datatype = datatype;
  parts.vbucket_or_status = vbucket;
  parts.framing_extras = bytes_of(framing_extras);
  parts.extras = bytes_of(extras);
  parts.key = bytes_of(key);
  parts.value = bytes_of(value);
  std::vector<uint8_t> out;
  protocol::append_frame(parts, out);
  return out;
}

std::string be16(uint16_t v) {
  std::string out(2, '\0');
  protocol::store_be16(reinterpret_cast<uint8_t*>(out.data()), v);
  return out;
}

std::string be32(uint32_t v) {
  std::string out(4, '\0');
  protocol::store_be32(reinterpret_cast<uint8_t*>(out.data()), v);
  return out;
}

std::string be64(uint64_t v) {
  std::string out(8, '\0');
  protocol::store_be64(reinterpret_cast<uint8_t*>(out.data()), v);
  return out;
}

uint32_t read_be32(const std::string& bytes, size_t offset) {
  return bytes.size() < offset + 4
             ? 0
             : protocol::load_be32(reinterpret_cast<const uint8_t*>(bytes.data()) + offset);
}

uint64_t read_be64(const std::string& bytes, size_t offset) {
  return bytes.size() < offset + 8
             ? 0
             : protocol::load_be64(reinterpret_cast<const uint8_t*>(bytes.data()) + offset);
}

Request simple(Opcode opcode, std::string key, std::string value) {
  Request request;
  request.opcode = opcode;
  request.key = std::move(key);
  request.value = std::move(value);
  return request;
}

Request store(Opcode opcode, std::string key, std::string value, uint32_t flags, uint32_t expiry,
              uint64_t cas) {
  Request request = simple(opcode, std::move(key), std::move(value));
  request.extras = be32(flags) + be32(expiry);
  request.cas = cas;
  return request;
}

Request arithmetic(Opcode opcode, std::string key, uint64_t delta, uint64_t initial,
                   uint32_t expiry) {
  Request request = simple(opcode, std::move(key));
  request.extras = be64(delta) + be64(initial) + be32(expiry);
  return request;
}

Request with_time(Opcode opcode, std::string key, uint32_t seconds) {
  Request request = simple(opcode, std::move(key));
  request.extras = be32(seconds);
  return request;
}

Request alt(Request request, std::string framing_extras) {
  request.magic = 0x08;
  request.framing_extras = std::move(framing_extras);
  return request;
}

Client::Client(uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  // Generous: it only bounds how long a server that never answers holds up a test.
  timeval timeout{15, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

Client::~Client() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  if (fd_ >= 0) ::close(fd_);
}

bool Client::start_tls(SSL_CTX& context) {
  // OpenSSL writes with write(), not send(MSG_NOSIGNAL): a server that closes the connection
  // (as it must, for the bad cases) would otherwise end the test binary with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  ssl_ = SSL_new(&context);
  if (ssl_ == nullptr || fd_ < 0 || SSL_set_fd(ssl_, fd_) != 1 || SSL_connect(ssl_) != 1) {
    tls_failed_ = true;
    return false;
  }
  return true;
}

// One read or write over TLS or TCP: what recv/send would return (<= 0: closed or failed).
static ssize_t transfer(int fd, SSL* ssl, bool tls_failed, uint8_t* data, size_t n, bool write) {
  if (tls_failed) return -1;
  if (ssl != nullptr) {
    const int size = static_cast<int>(std::min<size_t>(n, 1 << 30));
    return write ? SSL_write(ssl, data, size) : SSL_read(ssl, data, size);
  }
  return write ? ::send(fd, data, n, MSG_NOSIGNAL) : ::recv(fd, data, n, 0);
}

bool Client::send_bytes(std::span<const uint8_t> bytes) {
  while (!bytes.empty()) {
    ssize_t n = transfer(fd_, ssl_, tls_failed_, const_cast<uint8_t*>(bytes.data()), bytes.size(),
                         /*write=*/true);
    if (n <= 0) return false;
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
  return true;
}

bool Client::read_exactly(uint8_t* out, size_t n) {
  while (n > 0) {
    ssize_t got = transfer(fd_, ssl_, tls_failed_, out, n, /*write=*/false);
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

std::optional<Response> Client::receive() {
  std::vector<uint8_t> bytes(protocol::kHeaderSize);
  if (!read_exactly(bytes.data(), bytes.size())) return std::nullopt;
  protocol::Header header = protocol::decode_header(bytes);
  bytes.resize(protocol::kHeaderSize + header.body_length);
  if (!read_exactly(bytes.data() + protocol::kHeaderSize, header.body_length)) {
    return std::nullopt;
  }
  protocol::Frame frame;
  if (protocol::decode_frame(bytes, frame) != protocol::DecodeResult::Ok) {
    ADD_FAILURE() << "undecodable response";
    return std::nullopt;
  }
  Response response;
  response.opcode = static_cast<Opcode>(frame.opcode);
  response.status = static_cast<Status>(frame.vbucket_or_status);
  response.datatype = frame.datatype;
  response.opaque = frame.opaque;
  response.cas = frame.cas;
  response.extras = string_of(frame.extras);
  response.key = string_of(frame.key);
  response.value = string_of(frame.value);
  response.magic = frame.magic;
  response.framing_extras = string_of(frame.framing_extras);
  return response;
}

Response Client::call(const Request& request) {
  EXPECT_TRUE(send(request)) << "send failed";
  auto response = receive();
  if (!response) {
    ADD_FAILURE() << "no response to opcode 0x" << std::hex << int(request.opcode);
    Response missing;
    missing.status = Status::Einternal;
    return missing;
  }
  return *response;
}

std::map<std::string, std::string> Client::stats(const std::string& group) {
  std::map<std::string, std::string> pairs;
  EXPECT_TRUE(send(simple(Opcode::Stat, group)));
  while (auto response = receive()) {
    EXPECT_EQ(response->status, Status::Success);
    if (response->key.empty()) break;
    pairs[response->key] = response->value;
  }
  return pairs;
}

bool Client::closed_by_peer() {
  uint8_t byte;
  if (tls_failed_) return true;
  if (ssl_ != nullptr) return SSL_read(ssl_, &byte, 1) <= 0;  // an alert or the end
  ssize_t n = ::recv(fd_, &byte, 1, 0);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

}  // namespace tern::e2e
