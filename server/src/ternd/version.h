#pragma once
// The version ternd reports: in --version, its start-up line and the VERSION command.

namespace tern::ternd {

inline constexpr const char* kVersion = "1.0.0-tern";

}  // namespace tern::ternd
