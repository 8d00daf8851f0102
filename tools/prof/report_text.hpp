// The small text helpers both reports (report.cpp, conv_report.cpp) format their rows with.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

namespace tessel::prof {

// printf of one number: format_number("%.2f", 1.234) == "1.23".
inline std::string format_number(const char* fmt, double value) {
  char text[64];
  std::snprintf(text, sizeof text, fmt, value);
  return text;
}

// The number in `fmt`, or `missing` when it was not measured.
inline std::string number_or(const std::optional<double>& v, const char* fmt, const char* missing) {
  return v ? format_number(fmt, *v) : missing;
}

// A CSV field, quoted (and its quotes doubled) only when it holds a comma, quote or newline:
// csv_quoted("a, \"b\"") == "\"a, \"\"b\"\"\"".
inline std::string csv_quoted(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace tessel::prof
