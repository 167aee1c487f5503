// Minimal JSON output helpers for the probes' --json results and the JSON log
// format: one escaping rule for every writer in the project.
#pragma once

#include <string>
#include <string_view>

namespace fabric {

// Appends `s` as a quoted JSON string, escaping quotes, backslashes and
// control characters.
void AppendJsonString(std::string& out, std::string_view s);
std::string JsonString(std::string_view s);

// A number with 9 significant digits; NaN and infinities become null.
std::string JsonNumber(double v);

inline std::string JsonBool(bool b) { return b ? "true" : "false"; }

}  // namespace fabric
