// The calculator's expression language (grammar in ../shared/DESIGN.md, "tessel-layout eval"):
// a small recursive-descent parser whose errors carry the position where the rule was broken.
#pragma once

#include <string>
#include <string_view>

#include "runtime_layout.hpp"

namespace tessel::rt {

// A syntax error, an unknown function, a wrong argument count or type, or an AlgebraError
// raised while evaluating; `position` is the 0-based column in the expression text.
class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(std::string message, size_t position)
      : std::runtime_error(message + " (at column " + std::to_string(position + 1) + ")"),
        position(position) {}
  size_t position;
};

// Parses and evaluates one expression, e.g. "composition(Sw<3,3,3>, (8,64):(64,1))".
Value evaluate(std::string_view text);

}  // namespace tessel::rt
