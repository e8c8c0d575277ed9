#pragma once
// Turns the bytes a client sends into executed requests and their responses. Owns the
// connection-level rules: framing errors end the connection, an oversized body is refused
// with E2big and discarded as it arrives (never buffered), QUIT ends it after its answer, and
// a Duplex client's answers to the server's own requests (magic 0x83) are taken and dropped.
// One per connection; not thread-safe.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "commands/dispatcher.h"
#include "commands/parked_request.h"
#include "commands/session.h"

namespace tern::net {

class RequestStream {
 public:
  // `session` is the connection's; both must outlive the stream.
  RequestStream(commands::Dispatcher& dispatcher, commands::Session& session,
                size_t max_item_size, std::string peer);

  // Executes the complete requests at the front of `input`, appending their responses to
  // `out`, and returns how many bytes it consumed (including bytes of a discarded body).
  // Stops early, leaving requests unconsumed, once `out` holds `out_limit` bytes or more,
  // once the connection must close, or after a request that was parked (Outcome::WouldBlock)
  // unless the session negotiated UnorderedExecution: later requests wait for its answer.
  size_t consume(std::span<const uint8_t> input, std::vector<uint8_t>& out, size_t out_limit);

  // Executes a parked request again (commands::run_again), appending its answer, if it has
  // one now, to `out`; it may park again.
  void execute_again(const commands::ParkedRequest& parked, std::vector<uint8_t>& out);

  // True once the connection must close after sending what has been appended.
  bool closing() const { return closing_; }

  // Bytes that must be received, beyond those `consume` left unconsumed, before it can make
  // progress: the rest of a partial frame (at least the header). Guides the read size.
  size_t bytes_wanted(std::span<const uint8_t> unconsumed) const;

 private:
  // Handles the frame at the front of `input`; returns bytes consumed (0 if more bytes are
  // needed or the connection must close).
  size_t consume_frame(std::span<const uint8_t> input, std::vector<uint8_t>& out);
  // The rules for what is not a whole, acceptable request: framing errors, non-requests,
  // oversized bodies (refused from their header alone), and partial frames (wait).
  size_t screen_frame(std::span<const uint8_t> input, std::vector<uint8_t>& out);

  commands::Dispatcher& dispatcher_;
  commands::Session& session_;
  const size_t max_item_size_;
  const std::string peer_;
  uint64_t discard_remaining_ = 0;  // bytes still to drop of a refused oversized body
  bool closing_ = false;
  bool parked_ = false;  // the last request executed waits, and later ones must wait for it
};

}  // namespace tern::net
