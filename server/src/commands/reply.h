#pragma once
// Encodes the responses to one request. Applies the quiet variants' rule of silence in one
// place: quiet mutations answer only errors; quiet retrievals (GETQ, GETKQ, GATQ) stay silent
// on a miss and answer everything else.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "protocol/frame.h"
#include "protocol/status.h"

namespace tern::commands {

// The variable parts of a response.
struct ReplyBody {
  std::span<const uint8_t> extras = {};
  std::string_view key = {};
  std::string_view value = {};
  uint8_t datatype = 0;
  uint64_t cas = 0;
};

class Reply {
 public:
  Reply(const protocol::Frame& request, std::vector<uint8_t>& out);

  // A success response, unless the request is a quiet mutation.
  void success(const ReplyBody& body = {});

  // An error response: the status and its text, no CAS, no extras, no key. Silent for a
  // quiet retrieval's KeyEnoent.
  void error(protocol::Status status);

  // As error(), but the body is `key` instead of the status text (memcached's GETK miss).
  void error_with_key(protocol::Status status, std::string_view key);

  // A response whatever the quietness (each STAT pair).
  void append(protocol::Status status, const ReplyBody& body);

  // Appends an error response for `request` to `out`.
  static void append_error(const protocol::Frame& request, protocol::Status status,
                           std::vector<uint8_t>& out);

 private:
  bool silent(protocol::Status status) const;

  const protocol::Frame& request_;
  std::vector<uint8_t>& out_;
};

}  // namespace tern::commands
