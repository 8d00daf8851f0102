// The functions of the expression language (internal to expression.cpp): argument checking
// and dispatch onto the run-time algebra.
#pragma once

#include <string>
#include <vector>

#include "runtime_layout.hpp"

namespace tessel::rt {

// An evaluated argument and where it started in the text.
struct Arg {
  Value value;
  size_t position = 0;
  bool is_shape = false;  // written without a stride: "(4,2)" or "8"
  bool bare_int = false;  // written as a single integer: "8"
};

struct Function;
const Function* find_function(const std::string& name);  // nullptr when unknown
std::string known_functions();                           // "coalesce, filter, ..."
// Evaluates f(args); errors raise ExpressionError at the argument or at `call_position`.
Value call_function(const Function& f, const std::vector<Arg>& args, size_t call_position);
// A tiler entry: a layout, or a number N meaning N:1.
Layout tiler_entry(const Arg& entry);

}  // namespace tessel::rt
