#include "protocol/frame.h"

namespace tern::protocol {

bool is_request_magic(uint8_t magic) {
  return magic == static_cast<uint8_t>(Magic::ClientRequest) ||
         magic == static_cast<uint8_t>(Magic::AltClientRequest) ||
         magic == static_cast<uint8_t>(Magic::ServerRequest);
}

bool is_response_magic(uint8_t magic) {
  return magic == static_cast<uint8_t>(Magic::ClientResponse) ||
         magic == static_cast<uint8_t>(Magic::AltClientResponse) ||
         magic == static_cast<uint8_t>(Magic::ServerResponse);
}

bool is_known_magic(uint8_t magic) { return is_request_magic(magic) || is_response_magic(magic); }

bool is_client_request_magic(uint8_t magic) {
  return magic == static_cast<uint8_t>(Magic::ClientRequest) ||
         magic == static_cast<uint8_t>(Magic::AltClientRequest);
}

bool has_framing_extras(uint8_t magic) {
  return magic == static_cast<uint8_t>(Magic::AltClientRequest) ||
         magic == static_cast<uint8_t>(Magic::AltClientResponse);
}

}  // namespace tern::protocol
