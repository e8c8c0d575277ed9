#pragma once
// Macro expansion in sub-document mutations. An XATTR spec with the ExpandMacros flag whose
// value is one of the JSON strings
//
//   "${Mutation.CAS}"           the new CAS
//   "${Mutation.seqno}"         the new seqno
//   "${Mutation.value_crc32c}"  the CRC32C of the new body (the value without its XATTRs)
//
// stores instead a JSON string of that number in hex, written as Couchbase writes it
// (kv_engine daemon/subdocument_context.cc): "0x" then lowercase digits padded to the
// number's width: 16 digits for the CAS and the seqno, 8 for the CRC. The CAS is written with
// its bytes reversed (kv_engine formats htonll(cas) on a little-endian machine, and the SDKs'
// transactions read it back that way); the seqno and the CRC are not.
//
// The CAS and the seqno exist only once the engine publishes the item, under the key's lock.
// So the specs run with a placeholder of the expanded text's exact width in place of each
// macro, a random hex string that occurs nowhere in what the request starts from; once the
// whole new value is built, locate() records where the placeholders landed, and fill()
// writes the numbers there in place (engine::DocumentWrite::before_publish), without moving
// a byte. The CRC is known as soon as the body is: fill_value_crc32c() writes it before
// the value goes to the engine.
//
// The virtual macros ("${$document.CAS}" ...) are not expanded here: they stand for the
// document's metadata as read, a lookup's answer (commands/subdoc_apply.cc).
//
// Not thread-safe: one per thread, reused (it keeps its buffers).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace tern::commands {

enum class MutationMacro : uint8_t { Cas, Seqno, ValueCrc32c };

// The macro `value` names (the JSON string, quotes included), if it is one of the three.
std::optional<MutationMacro> mutation_macro(std::string_view value);

// The CRC32C (Castagnoli) of `bytes`, as ${Mutation.value_crc32c} reports it.
uint32_t crc32c(std::string_view bytes);

class MacroExpansion {
 public:
  // Forgets the previous request's placeholders. `existing` are the texts a placeholder
  // must not occur in: what the XATTRs start as and every spec's value. They must outlive
  // this request's calls to placeholder().
  void reset(std::span<const std::string_view> existing);

  // The placeholder standing for `macro` in this request (the same one each time it is
  // asked for): a JSON string as wide as the macro's expansion.
  std::string_view placeholder(MutationMacro macro);

  // Whether any placeholder, or the one for `macro`, was handed out.
  bool used() const;
  bool uses(MutationMacro macro) const { return placeholders_[static_cast<size_t>(macro)].used; }

  // Records where the placeholders occur in `region` (the new value's XATTR section, which
  // starts the value).
  void locate(std::string_view region);

  // Writes the CRC32C of the body at the located ${Mutation.value_crc32c} placeholders.
  void fill_value_crc32c(std::span<char> value, uint32_t crc) const;

  // Writes the new CAS and seqno at the located ${Mutation.CAS} and ${Mutation.seqno}
  // placeholders of `value` (the bytes locate() looked at, or a copy of them).
  void fill_cas_and_seqno(std::span<char> value, uint64_t cas, uint64_t seqno) const;

  // The expanded text of `macro` for `number`, quotes included, as Couchbase writes it.
  // Writes into `out`, which must hold expanded_width(macro) bytes.
  static void expand(MutationMacro macro, uint64_t number, std::span<char> out);
  static size_t expanded_width(MutationMacro macro);

 private:
  static constexpr size_t kMacros = 3;
  struct Placeholder {
    char text[20];  // the widest expansion: '"', "0x", 16 digits, '"'
    bool used = false;
  };
  struct Location {
    size_t offset;
    MutationMacro macro;
  };

  void fill(std::span<char> value, MutationMacro macro, uint64_t number) const;

  std::span<const std::string_view> existing_;
  Placeholder placeholders_[kMacros];
  std::vector<Location> locations_;
};

}  // namespace tern::commands
