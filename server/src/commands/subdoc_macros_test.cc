// The macro expansion of sub-document mutations, apart from any request: the CRC, the text
// Couchbase writes for each macro, and placeholders located and filled in place.
#include "commands/subdoc_macros.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace tern::commands {
namespace {

std::string expanded(MutationMacro macro, uint64_t number) {
  std::string out(MacroExpansion::expanded_width(macro), '?');
  MacroExpansion::expand(macro, number, out);
  return out;
}

TEST(SubdocMacros, Crc32cIsCastagnolis) {
  // The standard check value of CRC-32C, and the empty input's.
  EXPECT_EQ(crc32c("123456789"), 0xe3069283u);
  EXPECT_EQ(crc32c(""), 0u);
}

TEST(SubdocMacros, MutationMacrosAreTheQuotedNames) {
  EXPECT_EQ(mutation_macro(R"("${Mutation.CAS}")"), MutationMacro::Cas);
  EXPECT_EQ(mutation_macro(R"("${Mutation.seqno}")"), MutationMacro::Seqno);
  EXPECT_EQ(mutation_macro(R"("${Mutation.value_crc32c}")"), MutationMacro::ValueCrc32c);
  EXPECT_EQ(mutation_macro("${Mutation.CAS}"), std::nullopt);  // quotes belong to it
  EXPECT_EQ(mutation_macro(R"("${Mutation.cas}")"), std::nullopt);
  EXPECT_EQ(mutation_macro(R"("${$document.CAS}")"), std::nullopt);
}

TEST(SubdocMacros, ExpansionsAreWrittenAsKvEngineWritesThem) {
  // The CAS with its bytes reversed (htonll on a little-endian machine), 16 digits.
  EXPECT_EQ(expanded(MutationMacro::Cas, 0x0102030405060708), R"("0x0807060504030201")");
  EXPECT_EQ(expanded(MutationMacro::Cas, 0x17a1b2c3d4e50000), R"("0x0000e5d4c3b2a117")");
  // The seqno as it is, zero-padded to 16 digits; the CRC to 8.
  EXPECT_EQ(expanded(MutationMacro::Seqno, 0x2a), R"("0x000000000000002a")");
  EXPECT_EQ(expanded(MutationMacro::ValueCrc32c, 0xe3069283), R"("0xe3069283")");
  EXPECT_EQ(expanded(MutationMacro::ValueCrc32c, 0x1), R"("0x00000001")");
}

TEST(SubdocMacros, PlaceholdersAreAsWideAsTheirExpansionAndStable) {
  MacroExpansion macros;
  const std::string_view none[] = {""};
  macros.reset(none);
  EXPECT_FALSE(macros.used());
  for (MutationMacro macro :
       {MutationMacro::Cas, MutationMacro::Seqno, MutationMacro::ValueCrc32c}) {
    const std::string first(macros.placeholder(macro));
    EXPECT_EQ(first.size(), MacroExpansion::expanded_width(macro));
    EXPECT_EQ(first.front(), '"');
    EXPECT_EQ(first.back(), '"');
    EXPECT_TRUE(first.starts_with("\"0x"));
    EXPECT_EQ(macros.placeholder(macro), first);
    EXPECT_TRUE(macros.uses(macro));
  }
  EXPECT_NE(macros.placeholder(MutationMacro::Cas), macros.placeholder(MutationMacro::Seqno));
  macros.reset(none);
  EXPECT_FALSE(macros.used());
}

TEST(SubdocMacros, LocatedPlaceholdersAreFilledInPlace) {
  MacroExpansion macros;
  const std::string_view none[] = {R"({"old":"0x1"})"};
  macros.reset(none);
  const std::string cas(macros.placeholder(MutationMacro::Cas));
  const std::string seqno(macros.placeholder(MutationMacro::Seqno));
  const std::string crc(macros.placeholder(MutationMacro::ValueCrc32c));
  std::string value = R"({"a":)" + cas + R"(,"b":[)" + seqno + "," + cas + R"(],"c":)" + crc +
                      "}BODY" + cas;  // the body is not looked at
  const size_t region = value.find("BODY");
  macros.locate(std::string_view(value).substr(0, region));
  macros.fill_value_crc32c(std::span(value.data(), value.size()), 0xabcdef01);
  macros.fill_cas_and_seqno(std::span(value.data(), value.size()), 0x0102030405060708, 7);
  EXPECT_EQ(value, R"({"a":"0x0807060504030201","b":["0x0000000000000007","0x0807060504030201"],)"
                   R"("c":"0xabcdef01"}BODY)" + cas);
}

}  // namespace
}  // namespace tern::commands
