#include "net/request_stream.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "protocol/codec.h"

namespace tern::net {

using protocol::DecodeResult;
using protocol::Frame;
using protocol::Header;
using protocol::kHeaderSize;
using protocol::Status;

namespace {

uint64_t value_length(const Header& h) {
  return uint64_t{h.body_length} - h.framing_extras_length - h.extras_length - h.key_length;
}

}  // namespace

RequestStream::RequestStream(commands::Dispatcher& dispatcher, commands::Session& session,
                             size_t max_item_size, std::string peer)
    : dispatcher_(dispatcher),
      session_(session),
      max_item_size_(max_item_size),
      peer_(std::move(peer)) {}

size_t RequestStream::consume(std::span<const uint8_t> input, std::vector<uint8_t>& out,
                              size_t out_limit) {
  size_t consumed = 0;
  parked_ = false;
  while (!closing_ && !parked_ && out.size() < out_limit) {
    if (discard_remaining_ > 0) {
      size_t dropped = std::min<uint64_t>(discard_remaining_, input.size() - consumed);
      if (dropped == 0) break;
      discard_remaining_ -= dropped;
      consumed += dropped;
      continue;
    }
    size_t n = consume_frame(input.subspan(consumed), out);
    if (n == 0) break;
    consumed += n;
  }
  return consumed;
}

void RequestStream::execute_again(const commands::ParkedRequest& parked,
                                  std::vector<uint8_t>& out) {
  // Parking again needs nothing here: the connection holds later requests back while any is
  // parked. Only QUIT closes, and it never waits.
  if (dispatcher_.execute_again(parked, session_, out) == commands::Outcome::Close) {
    closing_ = true;
  }
}

size_t RequestStream::consume_frame(std::span<const uint8_t> input, std::vector<uint8_t>& out) {
  Frame frame;
  if (protocol::decode_frame(input, frame) == DecodeResult::Ok) {
    if (protocol::is_client_request_magic(frame.magic) && frame.value.size() <= max_item_size_) {
      switch (dispatcher_.execute(frame, session_, out)) {
        case commands::Outcome::Continue:
          break;
        case commands::Outcome::Close:
          closing_ = true;
          break;
        case commands::Outcome::WouldBlock:
          parked_ = !session_.features.has(commands::Feature::UnorderedExecution);
          break;
      }
      return frame.size();
    }
    // Nothing the server asks a client (a cluster map notification) needs its answer.
    if (frame.magic == static_cast<uint8_t>(protocol::Magic::ServerResponse) &&
        session_.features.has(commands::Feature::Duplex)) {
      return frame.size();
    }
  }
  return screen_frame(input, out);
}

size_t RequestStream::screen_frame(std::span<const uint8_t> input, std::vector<uint8_t>& out) {
  switch (protocol::check_header(input)) {
    case DecodeResult::NeedMore:
      return 0;
    case DecodeResult::BadMagic:
      spdlog::warn("closing connection from {}: bad magic byte 0x{:02x}", peer_, input[0]);
      closing_ = true;
      return 0;
    case DecodeResult::BadLengths:
      spdlog::debug("closing connection from {}: header lengths exceed the body", peer_);
      commands::Dispatcher::append_error(
          protocol::frame_from_header(protocol::decode_header(input)), Status::Einval, session_,
          out);
      closing_ = true;
      return 0;
    case DecodeResult::Ok:
      break;
  }
  Header header = protocol::decode_header(input);
  if (!protocol::is_client_request_magic(header.magic)) {
    spdlog::warn("closing connection from {}: magic byte 0x{:02x} is not a request", peer_,
                 header.magic);
    closing_ = true;
    return 0;
  }
  if (value_length(header) > max_item_size_) {
    commands::Dispatcher::append_error(protocol::frame_from_header(header), Status::E2big,
                                       session_, out);
    uint64_t frame_size = kHeaderSize + uint64_t{header.body_length};
    size_t dropped = std::min<uint64_t>(frame_size, input.size());
    discard_remaining_ = frame_size - dropped;
    return dropped;
  }
  return 0;  // a well-formed request whose body is still arriving
}

size_t RequestStream::bytes_wanted(std::span<const uint8_t> unconsumed) const {
  if (discard_remaining_ > 0) return 1;
  if (unconsumed.size() < kHeaderSize) return kHeaderSize - unconsumed.size();
  size_t frame_size = kHeaderSize + protocol::decode_header(unconsumed).body_length;
  return frame_size > unconsumed.size() ? frame_size - unconsumed.size() : 0;
}

}  // namespace tern::net
