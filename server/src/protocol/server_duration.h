#pragma once
// The server-duration response frame (framing-extras id 0, 2 bytes): how long the server
// spent on a request, from reading its header to handing the response to the OS. Sent in
// alt responses (magic 0x18) to clients that negotiated Tracing (HELLO 0x0f); the SDKs show
// it in their timeout messages and threshold logs.
//
// The duration is squeezed into a u16 with a power curve, fine for short times and coarse for
// long ones: encoded = (micros * 2) ^ (1 / 1.74), rounded; decoded = encoded ^ 1.74 / 2,
// truncated. 65535 stands for 120,125,042 us (about two minutes) and anything longer.

#include <array>
#include <cstdint>

namespace tern::protocol {

// micros -> the u16 sent on the wire, clamped to 65535.
uint16_t encode_server_duration(uint64_t micros);

// The u16 from the wire -> micros (what a client shows).
uint64_t decode_server_duration(uint16_t encoded);

// The whole frame info for a response's framing extras: {0x02, encoded high, encoded low}.
std::array<uint8_t, 3> server_duration_frame(uint64_t micros);

}  // namespace tern::protocol
