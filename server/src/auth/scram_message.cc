#include "auth/scram_message.h"

#include <vector>

#include "auth/base64.h"

namespace tern::auth {
namespace {

std::vector<std::string_view> split_at_commas(std::string_view text) {
  std::vector<std::string_view> fields;
  while (true) {
    size_t comma = text.find(',');
    fields.push_back(text.substr(0, comma));
    if (comma == std::string_view::npos) return fields;
    text.remove_prefix(comma + 1);
  }
}

// The value of `field` if it is "<attribute>=<value>".
std::optional<std::string_view> value_of(std::string_view field, char attribute) {
  if (field.size() < 2 || field[0] != attribute || field[1] != '=') return std::nullopt;
  return field.substr(2);
}

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// An optional extension: a letter SCRAM does not already use, '=', a non-empty value.
// Refusing the RFC's own letters here is what catches repeated or misplaced attributes.
bool is_optional_extension(std::string_view field) {
  constexpr std::string_view kScramAttributes = "acemnprsiv";
  return field.size() >= 3 && is_alpha(field[0]) &&
         kScramAttributes.find(field[0]) == std::string_view::npos && field[1] == '=';
}

bool all_optional_extensions(const std::vector<std::string_view>& fields, size_t begin,
                             size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (!is_optional_extension(fields[i])) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> decode_saslname(std::string_view name) {
  if (name.empty()) return std::nullopt;
  std::string decoded;
  decoded.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == ',' || c == '\0') return std::nullopt;
    if (c != '=') {
      decoded.push_back(c);
      continue;
    }
    std::string_view escape = name.substr(i + 1, 2);
    if (escape == "2C") {
      decoded.push_back(',');
    } else if (escape == "3D") {
      decoded.push_back('=');
    } else {
      return std::nullopt;
    }
    i += 2;
  }
  return decoded;
}

bool is_valid_nonce(std::string_view nonce) {
  if (nonce.empty()) return false;
  // RFC 5802 excludes the space too, but the Couchbase C++ SDK (under the Node.js SDK 4.x)
  // sends nonces like "0xffffffb1 0x62 ...", and Couchbase Server takes them: so do we.
  for (char c : nonce) {
    if (c < 0x20 || c > 0x7e || c == ',') return false;
  }
  return true;
}

std::optional<ClientFirstMessage> parse_client_first(std::string_view message) {
  if (message.find('\0') != std::string_view::npos) return std::nullopt;
  // gs2-header: cbind-flag "," [ "a=" saslname ] ","
  size_t flag_end = message.find(',');
  if (flag_end == std::string_view::npos) return std::nullopt;
  std::string_view flag = message.substr(0, flag_end);
  if (flag != "n" && flag != "y") return std::nullopt;
  size_t authzid_end = message.find(',', flag_end + 1);
  if (authzid_end == std::string_view::npos) return std::nullopt;
  std::string_view authzid_field = message.substr(flag_end + 1, authzid_end - flag_end - 1);

  ClientFirstMessage parsed;
  if (!authzid_field.empty()) {
    auto value = value_of(authzid_field, 'a');
    if (!value) return std::nullopt;
    auto authzid = decode_saslname(*value);
    if (!authzid) return std::nullopt;
    parsed.authzid = std::move(*authzid);
  }
  parsed.gs2_header = std::string(message.substr(0, authzid_end + 1));
  parsed.bare = std::string(message.substr(authzid_end + 1));

  // client-first-message-bare: "n=" saslname "," "r=" nonce *( "," extension )
  std::vector<std::string_view> fields = split_at_commas(parsed.bare);
  if (fields.size() < 2) return std::nullopt;
  auto user = value_of(fields[0], 'n');
  if (!user) return std::nullopt;  // also a mandatory extension "m=", which is not supported
  auto decoded_user = decode_saslname(*user);
  auto nonce = value_of(fields[1], 'r');
  if (!decoded_user || !nonce || !is_valid_nonce(*nonce)) return std::nullopt;
  if (!all_optional_extensions(fields, 2, fields.size())) return std::nullopt;
  parsed.user = std::move(*decoded_user);
  parsed.nonce = std::string(*nonce);
  return parsed;
}

std::optional<ClientFinalMessage> parse_client_final(std::string_view message) {
  if (message.find('\0') != std::string_view::npos) return std::nullopt;
  // "c=" base64 "," "r=" nonce *( "," extension ) "," "p=" base64
  std::vector<std::string_view> fields = split_at_commas(message);
  if (fields.size() < 3) return std::nullopt;
  auto binding = value_of(fields[0], 'c');
  auto nonce = value_of(fields[1], 'r');
  auto proof = value_of(fields.back(), 'p');
  if (!binding || !nonce || !proof || !is_valid_nonce(*nonce)) return std::nullopt;
  if (!all_optional_extensions(fields, 2, fields.size() - 1)) return std::nullopt;
  auto decoded_binding = base64_decode(*binding);
  auto decoded_proof = base64_decode(*proof);
  if (!decoded_binding || decoded_binding->empty() || !decoded_proof || decoded_proof->empty()) {
    return std::nullopt;
  }
  return ClientFinalMessage{
      .channel_binding = std::move(*decoded_binding),
      .nonce = std::string(*nonce),
      .proof = std::move(*decoded_proof),
      .without_proof = std::string(message.substr(0, message.size() - fields.back().size() - 1)),
  };
}

}  // namespace tern::auth
