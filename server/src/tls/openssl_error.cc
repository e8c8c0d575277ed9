#include "tls/openssl_error.h"

#include <openssl/err.h>

namespace tern::tls {

std::string take_openssl_errors(const std::string& otherwise) {
  std::string reasons;
  while (const unsigned long code = ERR_get_error()) {
    const char* reason = ERR_reason_error_string(code);
    if (!reasons.empty()) reasons += "; ";
    if (reason != nullptr) {
      reasons += reason;
    } else {
      char buffer[256];
      ERR_error_string_n(code, buffer, sizeof buffer);
      reasons += buffer;
    }
  }
  return reasons.empty() ? otherwise : reasons;
}

void clear_openssl_errors() { ERR_clear_error(); }

}  // namespace tern::tls
