#include "protocol/opcode.h"

#include <array>

namespace tern::protocol {

namespace {

struct QuietPair {
  Opcode quiet;
  Opcode loud;
};

constexpr QuietPair kQuietPairs[] = {
    {Opcode::GetQ, Opcode::Get},           {Opcode::GetKQ, Opcode::GetK},
    {Opcode::SetQ, Opcode::Set},           {Opcode::AddQ, Opcode::Add},
    {Opcode::ReplaceQ, Opcode::Replace},   {Opcode::DeleteQ, Opcode::Delete},
    {Opcode::IncrementQ, Opcode::Increment}, {Opcode::DecrementQ, Opcode::Decrement},
    {Opcode::QuitQ, Opcode::Quit},         {Opcode::FlushQ, Opcode::Flush},
    {Opcode::AppendQ, Opcode::Append},     {Opcode::PrependQ, Opcode::Prepend},
    {Opcode::GatQ, Opcode::Gat},
};

// Every request asks for its loud variant, so the pairs are spread into a table indexed
// by opcode once, at compile time.
constexpr std::array<Opcode, 256> make_loud_variants() {
  std::array<Opcode, 256> table{};
  for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<Opcode>(i);
  for (const QuietPair& pair : kQuietPairs) table[static_cast<uint8_t>(pair.quiet)] = pair.loud;
  return table;
}

constexpr std::array<Opcode, 256> kLoudVariants = make_loud_variants();

}  // namespace

bool is_quiet(Opcode op) { return loud_variant(op) != op; }

Opcode loud_variant(Opcode op) { return kLoudVariants[static_cast<uint8_t>(op)]; }

std::string_view opcode_name(Opcode op) {
  switch (op) {
    case Opcode::Get: return "GET";
    case Opcode::Set: return "SET";
    case Opcode::Add: return "ADD";
    case Opcode::Replace: return "REPLACE";
    case Opcode::Delete: return "DELETE";
    case Opcode::Increment: return "INCREMENT";
    case Opcode::Decrement: return "DECREMENT";
    case Opcode::Quit: return "QUIT";
    case Opcode::Flush: return "FLUSH";
    case Opcode::GetQ: return "GETQ";
    case Opcode::Noop: return "NOOP";
    case Opcode::Version: return "VERSION";
    case Opcode::GetK: return "GETK";
    case Opcode::GetKQ: return "GETKQ";
    case Opcode::Append: return "APPEND";
    case Opcode::Prepend: return "PREPEND";
    case Opcode::Stat: return "STAT";
    case Opcode::SetQ: return "SETQ";
    case Opcode::AddQ: return "ADDQ";
    case Opcode::ReplaceQ: return "REPLACEQ";
    case Opcode::DeleteQ: return "DELETEQ";
    case Opcode::IncrementQ: return "INCREMENTQ";
    case Opcode::DecrementQ: return "DECREMENTQ";
    case Opcode::QuitQ: return "QUITQ";
    case Opcode::FlushQ: return "FLUSHQ";
    case Opcode::AppendQ: return "APPENDQ";
    case Opcode::PrependQ: return "PREPENDQ";
    case Opcode::Touch: return "TOUCH";
    case Opcode::Gat: return "GAT";
    case Opcode::GatQ: return "GATQ";
    case Opcode::Hello: return "HELLO";
    case Opcode::SaslListMechs: return "SASL_LIST_MECHS";
    case Opcode::SaslAuth: return "SASL_AUTH";
    case Opcode::SaslStep: return "SASL_STEP";
    case Opcode::SelectBucket: return "SELECT_BUCKET";
    case Opcode::GetLocked: return "GET_LOCKED";
    case Opcode::UnlockKey: return "UNLOCK_KEY";
    case Opcode::GetClusterConfig: return "GET_CLUSTER_CONFIG";
    case Opcode::GetCollectionId: return "GET_COLLECTION_ID";
    case Opcode::GetErrorMap: return "GET_ERROR_MAP";
  }
  return "UNKNOWN";
}

}  // namespace tern::protocol
