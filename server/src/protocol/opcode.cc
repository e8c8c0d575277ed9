#include "protocol/opcode.h"

#include <array>

namespace tern::protocol {

namespace {

// Every request asks for its loud variant, so the table's quiet->loud pairs are spread into
// an array indexed by opcode once, at compile time.
constexpr std::array<Opcode, 256> make_loud_variants() {
  std::array<Opcode, 256> table{};
  for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<Opcode>(i);
#define TERN_OPCODE(name, code, log_name, loud) table[code] = Opcode::loud;
#include "protocol/opcode_table.inc"
#undef TERN_OPCODE
  return table;
}

constexpr std::array<Opcode, 256> kLoudVariants = make_loud_variants();

}  // namespace

bool is_quiet(Opcode op) { return loud_variant(op) != op; }

Opcode loud_variant(Opcode op) { return kLoudVariants[static_cast<uint8_t>(op)]; }

std::string_view opcode_name(Opcode op) {
  switch (op) {
#define TERN_OPCODE(name, code, log_name, loud) \
  case Opcode::name:                            \
    return log_name;
#include "protocol/opcode_table.inc"
#undef TERN_OPCODE
  }
  return "UNKNOWN";
}

std::string_view server_opcode_name(ServerOpcode op) {
  switch (op) {
#define TERN_OPCODE(name, code, log_name, loud) \
  case ServerOpcode::name:                      \
    return log_name;
#include "protocol/server_opcode_table.inc"
#undef TERN_OPCODE
  }
  return "UNKNOWN";
}

}  // namespace tern::protocol
