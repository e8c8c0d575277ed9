#pragma once
// OpenSSL reports failures in a per-thread queue of error codes; these turn it into text for
// messages and logs, and leave it empty, so that no stale error is blamed on a later call.

#include <string>

namespace tern::tls {

// The reasons queued on this thread, oldest first, joined with "; " (e.g. "wrong version
// number"), or `otherwise` when the queue is empty. Clears the queue.
std::string take_openssl_errors(const std::string& otherwise = "unknown OpenSSL error");

// Empties this thread's queue.
void clear_openssl_errors();

}  // namespace tern::tls
