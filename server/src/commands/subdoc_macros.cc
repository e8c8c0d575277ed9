#include "commands/subdoc_macros.h"

#include <algorithm>
#include <boost/crc.hpp>
#include <random>

namespace tern::commands {

namespace {

constexpr std::string_view kMacroNames[] = {
    R"("${Mutation.CAS}")",
    R"("${Mutation.seqno}")",
    R"("${Mutation.value_crc32c}")",
};

size_t index_of(MutationMacro macro) { return static_cast<size_t>(macro); }

// Lowercase hex digits of `number`, `digits` of them (the low ones), most significant first.
void write_hex(uint64_t number, size_t digits, char* out) {
  constexpr char kDigits[] = "0123456789abcdef";
  for (size_t i = digits; i-- > 0;) {
    out[i] = kDigits[number & 0xf];
    number >>= 4;
  }
}

// Placeholders only need to be unlikely to occur anywhere already (reset() checks that they
// do not); a per-thread generator seeded once is plenty.
uint64_t random_number() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  return generator();
}

}  // namespace

std::optional<MutationMacro> mutation_macro(std::string_view value) {
  for (size_t i = 0; i < std::size(kMacroNames); ++i) {
    if (value == kMacroNames[i]) return static_cast<MutationMacro>(i);
  }
  return std::nullopt;
}

uint32_t crc32c(std::string_view bytes) {
  // CRC-32C (Castagnoli): reflected polynomial 0x1EDC6F41, initial value and final XOR all
  // ones, as iSCSI and Couchbase compute it.
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

size_t MacroExpansion::expanded_width(MutationMacro macro) {
  // '"', "0x", the digits, '"'.
  return macro == MutationMacro::ValueCrc32c ? 2 + 2 + 8 : 2 + 2 + 16;
}

void MacroExpansion::expand(MutationMacro macro, uint64_t number, std::span<char> out) {
  const size_t width = expanded_width(macro);
  // kv_engine writes htonll(cas): on the little-endian machines it runs on, the CAS's bytes
  // reversed.
  if (macro == MutationMacro::Cas) number = __builtin_bswap64(number);
  out[0] = '"';
  out[1] = '0';
  out[2] = 'x';
  write_hex(number, width - 4, out.data() + 3);
  out[width - 1] = '"';
}

void MacroExpansion::reset(std::span<const std::string_view> existing) {
  existing_ = existing;
  for (Placeholder& placeholder : placeholders_) placeholder.used = false;
  locations_.clear();
}

std::string_view MacroExpansion::placeholder(MutationMacro macro) {
  Placeholder& slot = placeholders_[index_of(macro)];
  const size_t width = expanded_width(macro);
  const std::string_view text(slot.text, width);
  if (slot.used) return text;
  const auto occurs = [&](std::string_view candidate) {
    for (std::string_view where : existing_) {
      if (where.find(candidate) != std::string_view::npos) return true;
    }
    for (size_t i = 0; i < kMacros; ++i) {
      const Placeholder& other = placeholders_[i];
      if (&other != &slot && other.used &&
          std::string_view(other.text, expanded_width(static_cast<MutationMacro>(i)))
                  .find(candidate) != std::string_view::npos) {
        return true;
      }
    }
    return false;
  };
  do {
    expand(macro, random_number(), slot.text);
  } while (occurs(text));
  slot.used = true;
  return text;
}

bool MacroExpansion::used() const {
  return std::any_of(std::begin(placeholders_), std::end(placeholders_),
                     [](const Placeholder& p) { return p.used; });
}

void MacroExpansion::locate(std::string_view region) {
  locations_.clear();
  for (size_t i = 0; i < kMacros; ++i) {
    if (!placeholders_[i].used) continue;
    const auto macro = static_cast<MutationMacro>(i);
    const std::string_view text(placeholders_[i].text, expanded_width(macro));
    for (size_t at = region.find(text); at != std::string_view::npos;
         at = region.find(text, at + text.size())) {
      locations_.push_back({at, macro});
    }
  }
}

void MacroExpansion::fill(std::span<char> value, MutationMacro macro, uint64_t number) const {
  for (const Location& location : locations_) {
    if (location.macro != macro) continue;
    expand(macro, number, value.subspan(location.offset, expanded_width(macro)));
  }
}

void MacroExpansion::fill_value_crc32c(std::span<char> value, uint32_t crc) const {
  fill(value, MutationMacro::ValueCrc32c, crc);
}

void MacroExpansion::fill_cas_and_seqno(std::span<char> value, uint64_t cas,
                                        uint64_t seqno) const {
  fill(value, MutationMacro::Cas, cas);
  fill(value, MutationMacro::Seqno, seqno);
}

}  // namespace tern::commands
