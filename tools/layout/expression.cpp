// The calculator's expression language: a recursive-descent parser over DESIGN.md's grammar
//   expr   := call | layout | tiler | swizzle
//   call   := NAME '(' expr (',' expr)* ')'
//   layout := tuple ':' tuple | tuple          tuple := INT | '(' tuple (',' tuple)* ')'
//   tiler  := '[' expr (',' expr)* ']'         swizzle := 'Sw<' INT ',' INT ',' INT '>'
// evaluated as it is parsed. Every error carries the column where its rule was broken.
#include "expression.hpp"

#include <cctype>
#include <string>
#include <vector>

#include "expression_functions.hpp"
#include "runtime_algebra.hpp"

namespace tessel::rt {

namespace {

// Deeper nesting than this is refused: it bounds the recursion on any input.
constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Value parse() {
    skip_space();
    if (at_end()) fail("empty expression: expected a layout, a tiler, a swizzle or a call");
    Arg result = parse_expr(0);
    skip_space();
    if (!at_end()) {
      fail(std::string("unexpected '") + text_[pos_] + "' after the end of the expression");
    }
    return std::move(result.value);
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& message) const { fail_at(message, pos_); }
  [[noreturn]] static void fail_at(const std::string& message, size_t pos) {
    throw ExpressionError(message, pos);
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string found() const {
    return at_end() ? "the end of the expression" : "'" + std::string(1, text_[pos_]) + "'";
  }
  void expect(char c, const char* context) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "' " + context + ", found " + found());
    ++pos_;
  }
  void check_depth(int depth) const {
    if (depth > kMaxDepth) {
      fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels is not supported");
    }
  }

  Arg parse_expr(int depth) {
    check_depth(depth);
    skip_space();
    const size_t start = pos_;
    const char c = peek();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::string name = parse_name();
      skip_space();
      if (name == "Sw" && peek() == '<') return parse_swizzle(start);
      return parse_call(name, start, depth);
    }
    if (c == '[') return parse_tiler(depth);
    if (c == '(' || c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      return parse_layout(depth);
    }
    fail("expected a layout, a tiler '[...]', a swizzle 'Sw<B,M,S>' or a function call, found " +
         found());
  }

  std::string parse_name() {
    const size_t start = pos_;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_')) {
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  // Items separated by ',' up to `close`; the opening bracket is already consumed.
  template <class Item>
  void parse_list(char close, const std::string& what, Item&& item) {
    while (true) {
      item();
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == close) {
        ++pos_;
        return;
      }
      fail(std::string("expected ',' or '") + close + "' in " + what + ", found " + found());
    }
  }

  Arg parse_call(const std::string& name, size_t start, int depth) {
    const Function* f = find_function(name);
    if (f == nullptr) {
      fail_at("unknown function '" + name + "'; known functions: " + known_functions(), start);
    }
    expect('(', ("after the function name '" + name + "'").c_str());
    std::vector<Arg> args;
    parse_list(')', "the arguments of " + name + "(...)", [&] { args.push_back(parse_expr(depth + 1)); });
    return {call_function(*f, args, start), start};
  }

  Arg parse_tiler(int depth) {
    const size_t start = pos_;
    ++pos_;  // '['
    Tiler tiler;
    parse_list(']', "the tiler", [&] { tiler.modes.push_back(tiler_entry(parse_expr(depth + 1))); });
    return {tiler, start};
  }

  Arg parse_swizzle(size_t start) {
    ++pos_;  // '<'
    Swizzle s;
    s.bits = parse_small_int("B");
    expect(',', "after the swizzle's B");
    s.base = parse_small_int("M");
    expect(',', "after the swizzle's M");
    s.shift = parse_small_int("S");
    expect('>', "to close 'Sw<B,M,S'");
    try {
      s.validate();
    } catch (const AlgebraError& e) {
      fail_at(e.what(), start);
    }
    return {s, start};
  }

  int parse_small_int(const char* what) {
    skip_space();
    const size_t start = pos_;
    const int64_t v = parse_int();
    if (v < -64 || v > 64)
      fail_at(std::string("swizzle ") + what + " = " + std::to_string(v) + " is out of range",
              start);
    return static_cast<int>(v);
  }

  // INT := '-'? digit+, overflow-checked.
  int64_t parse_int() {
    skip_space();
    const size_t start = pos_;
    bool negative = false;
    if (peek() == '-') {
      negative = true;
      ++pos_;
    }
    if (!std::isdigit(static_cast<unsigned char>(peek()))) {
      fail("expected an integer, found " + found());
    }
    int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      const int digit = peek() - '0';
      if (__builtin_mul_overflow(v, 10, &v) ||
          __builtin_add_overflow(v, negative ? -digit : digit, &v)) {
        fail_at("integer literal does not fit in 64 bits", start);
      }
      ++pos_;
    }
    return v;
  }

  // tuple := INT | '(' tuple (',' tuple)* ')'
  IntTree parse_tuple(int depth) {
    check_depth(depth);
    skip_space();
    if (peek() != '(') return IntTree(parse_int());
    ++pos_;
    std::vector<IntTree> children;
    parse_list(')', "the tuple", [&] { children.push_back(parse_tuple(depth + 1)); });
    return IntTree::tuple(std::move(children));
  }

  // layout := tuple ':' tuple | tuple (compact column-major).
  Arg parse_layout(int depth) {
    skip_space();
    const size_t start = pos_;
    const IntTree shape = parse_tuple(depth + 1);
    for (int64_t s : leaves(shape)) {
      if (s <= 0) {
        fail_at("shape " + std::to_string(s) + " is not positive (shapes must be >= 1)", start);
      }
    }
    skip_space();
    if (peek() != ':') {
      Layout compact;
      try {
        compact = make_layout(shape);
      } catch (const AlgebraError& e) {
        fail_at(e.what(), start);  // e.g. compact strides past 64 bits
      }
      Arg a{compact, start};
      a.is_shape = true;
      a.bare_int = shape.is_leaf();
      return a;
    }
    ++pos_;
    skip_space();
    const size_t stride_start = pos_;
    const IntTree stride = parse_tuple(depth + 1);
    if (!congruent(shape, stride)) {
      fail_at("stride " + to_string(stride) + " is not congruent with shape " + to_string(shape) +
                  " (they need the same nesting)",
              stride_start);
    }
    return {Layout{shape, stride}, start};
  }
};

}  // namespace

Value evaluate(std::string_view text) {
  try {
    return Parser(text).parse();
  } catch (const AlgebraError& e) {
    throw ExpressionError(e.what(), 0);  // not expected: each rule above attaches its column
  }
}

}  // namespace tessel::rt
