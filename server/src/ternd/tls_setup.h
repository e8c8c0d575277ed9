#pragma once
// ternd's TLS: the context the TLS ports share, made from the --tls-* flags and the config
// file's [tls] table, and its reload on SIGHUP.

#include <memory>

#include "tls/tls_context.h"
#include "ternd/options.h"

namespace tern::ternd {

// The context of options.tls, or null without a certificate (the TLS ports are off). Throws
// tls::TlsError, naming the file and the reason, when a file cannot be used.
std::unique_ptr<tls::TlsContext> make_tls_context(const Options& options);

// Loads the certificate and key again and logs the outcome: "TLS certificate reloaded from
// FILE", or "TLS certificate reload failed, keeping the old one: WHY".
void reload_tls(tls::TlsContext& context);

}  // namespace tern::ternd
