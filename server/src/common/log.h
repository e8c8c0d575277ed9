#pragma once
// Logging goes through spdlog: call spdlog::info(...) and friends anywhere.
// init() sets the one line format every component shares:
//   2026-11-21T13:44:19.123+00:00 [info] message

namespace tern::log {

// Configures the default logger: stderr, timestamp and level on every line, and the level
// (debug when verbose, info otherwise). Call once at start-up; safe to call again.
void init(bool verbose);

}  // namespace tern::log
