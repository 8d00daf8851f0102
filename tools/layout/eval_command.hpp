// `tessel-layout eval`'s logic, callable without the CLI (eval_command.cpp).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime_layout.hpp"

namespace tessel::tool {

// `values` is listed only for layouts of at most this many elements.
constexpr int64_t kMaxJsonValues = int64_t{1} << 20;

// {"expr","layout","shape","stride","size","cosize","values"} or {"expr","error"}; never throws
// for a bad expression.
nlohmann::ordered_json eval_json(const std::string& expr);
nlohmann::ordered_json tree_json(const rt::IntTree& t);  // 4 -> 4, (4,(2,3)) -> [4,[2,3]]

// Runs `eval` over the expressions (or stdin lines for {"-"}); returns the exit status.
int run_eval(const std::vector<std::string>& exprs, bool json, std::istream& in, std::ostream& out,
             std::ostream& err);

}  // namespace tessel::tool
