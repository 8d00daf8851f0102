// The function table of the expression language.
#include "expression_functions.hpp"

#include <functional>
#include <map>

#include "expression.hpp"
#include "runtime_algebra.hpp"

namespace tessel::rt {

struct Function {
  const char* name;
  int min_args, max_args;
  const char* signature;  // shown in argument-count errors
  std::function<Value(const std::string&, const std::vector<Arg>&)> eval;
};

namespace {

const char* kind(const Value& v) {
  switch (v.index()) {
    case 0:
      return "a layout";
    case 1:
      return "a swizzled layout";
    case 2:
      return "a swizzle";
    case 3:
      return "a tiler";
    default:
      return "a number";
  }
}

[[noreturn]] void bad_arg(const std::string& fn, const Arg& a, int index, const char* wanted) {
  throw ExpressionError(fn + ": argument " + std::to_string(index + 1) + " must be " + wanted +
                            ", found " + kind(a.value),
                        a.position);
}

Layout layout_arg(const std::string& fn, const std::vector<Arg>& args, int i) {
  const Arg& a = args[static_cast<size_t>(i)];
  if (const auto* l = std::get_if<Layout>(&a.value)) return *l;
  if (const auto* n = std::get_if<int64_t>(&a.value)) return make_layout(IntTree(*n));
  bad_arg(fn, a, i, "a layout");
}

// A shape: a layout written without stride ("(4,8)") or a number.
IntTree shape_arg(const std::string& fn, const std::vector<Arg>& args, int i) {
  const Arg& a = args[static_cast<size_t>(i)];
  if (const auto* n = std::get_if<int64_t>(&a.value)) return IntTree(*n);
  if (a.is_shape) return std::get<Layout>(a.value).shape;
  bad_arg(fn, a, i, "a shape such as (4,8) (no stride)");
}

int64_t int_arg(const std::string& fn, const std::vector<Arg>& args, int i) {
  const Arg& a = args[static_cast<size_t>(i)];
  if (const auto* n = std::get_if<int64_t>(&a.value)) return *n;
  if (a.bare_int) return std::get<Layout>(a.value).shape.value();
  bad_arg(fn, a, i, "an integer");
}

// Operations on (layout | swizzled layout) x (layout | tiler), CuTe's overload sets; a swizzled
// left operand is operated on through its inner layout.
using LL = Layout (*)(const Layout&, const Layout&);
using LT = Layout (*)(const Layout&, const Tiler&);

Value apply_inner(const Value& v, const std::function<Layout(const Layout&)>& f) {
  if (const auto* s = std::get_if<SwizzledLayout>(&v))
    return SwizzledLayout{s->swizzle, s->offset, f(s->layout)};
  return f(std::get<Layout>(v));
}

const Value& left_operand(const std::string& fn, const std::vector<Arg>& args) {
  const Arg& a = args[0];
  if (std::holds_alternative<Layout>(a.value) || std::holds_alternative<SwizzledLayout>(a.value)) {
    return a.value;
  }
  bad_arg(fn, a, 0, "a layout or a swizzled layout");
}

std::function<Value(const std::string&, const std::vector<Arg>&)> binary(LL ll, LT lt) {
  return [ll, lt](const std::string& fn, const std::vector<Arg>& args) -> Value {
    const Value& left = left_operand(fn, args);
    const Arg& right = args[1];
    if (const auto* t = std::get_if<Tiler>(&right.value)) {
      if (lt == nullptr) bad_arg(fn, right, 1, "a layout");
      return apply_inner(left, [&](const Layout& l) { return lt(l, *t); });
    }
    const Layout r = layout_arg(fn, args, 1);
    return apply_inner(left, [&](const Layout& l) { return ll(l, r); });
  };
}

Value composition_fn(const std::string& fn, const std::vector<Arg>& args) {
  const Arg& left = args[0];
  const Arg& right = args[1];
  if (const auto* s = std::get_if<Swizzle>(&left.value)) {
    return composition(*s, layout_arg(fn, args, 1));
  }
  const Value& l = left_operand(fn, args);
  if (const auto* t = std::get_if<Tiler>(&right.value)) {
    return apply_inner(l, [&](const Layout& a) { return composition(a, *t); });
  }
  const Layout r = layout_arg(fn, args, 1);
  return apply_inner(l, [&](const Layout& a) { return composition(a, r); });
}

Value size_fn(const std::string& fn, const std::vector<Arg>& args, bool co) {
  const Value& v = args[0].value;
  if (const auto* l = std::get_if<Layout>(&v)) return co ? l->cosize() : l->size();
  if (const auto* s = std::get_if<SwizzledLayout>(&v)) return co ? s->cosize() : s->size();
  if (const auto* t = std::get_if<Tiler>(&v); t && !co) return size(*t);
  if (const auto* n = std::get_if<int64_t>(&v)) return *n;
  bad_arg(fn, args[0], 0, co ? "a layout" : "a layout or a tiler");
}

Value make_layout_fn(const std::string& fn, const std::vector<Arg>& args) {
  // make_layout(shape) is the compact layout of the shape; make_layout(L0, L1, ...) makes each
  // argument a mode (CuTe: a single layout argument becomes a rank-1 layout).
  if (args.size() == 1 && args[0].is_shape) return std::get<Layout>(args[0].value);
  std::vector<Layout> modes;
  for (int i = 0; i < static_cast<int>(args.size()); ++i) modes.push_back(layout_arg(fn, args, i));
  return make_layout(modes);
}

const std::vector<Function>& table() {
  static const std::vector<Function> functions = {
      {"coalesce", 1, 2, "coalesce(layout[, profile])",
       [](const std::string& fn, const std::vector<Arg>& a) -> Value {
         const Value& l = left_operand(fn, a);
         if (a.size() == 1) return apply_inner(l, [](const Layout& x) { return coalesce(x); });
         const IntTree profile = shape_arg(fn, a, 1);
         return apply_inner(l, [&](const Layout& x) { return coalesce(x, profile); });
       }},
      {"filter", 1, 2, "filter(layout[, profile])",
       [](const std::string& fn, const std::vector<Arg>& a) -> Value {
         const Layout l = layout_arg(fn, a, 0);
         return a.size() == 1 ? filter(l) : filter(l, shape_arg(fn, a, 1));
       }},
      {"composition", 2, 2, "composition(layout|swizzle, layout|tiler)", composition_fn},
      {"complement", 1, 2, "complement(layout[, cotarget])",
       [](const std::string& fn, const std::vector<Arg>& a) -> Value {
         const Layout l = layout_arg(fn, a, 0);
         return a.size() == 1 ? complement(l) : complement(l, shape_arg(fn, a, 1));
       }},
      {"right_inverse", 1, 1, "right_inverse(layout)",
       [](const std::string& fn, const std::vector<Arg>& a) -> Value {
         return right_inverse(layout_arg(fn, a, 0));
       }},
      {"left_inverse", 1, 1, "left_inverse(layout)",
       [](const std::string& fn, const std::vector<Arg>& a) -> Value {
         return left_inverse(layout_arg(fn, a, 0));
       }},
      {"logical_divide", 2, 2, "logical_divide(layout, layout|tiler)",
       binary(logical_divide, logical_divide)},
      {"zipped_divide", 2, 2, "zipped_divide(layout, layout|tiler)",
       binary(zipped_divide, zipped_divide)},
      {"tiled_divide", 2, 2, "tiled_divide(layout, layout|tiler)",
       binary(tiled_divide, tiled_divide)},
      {"flat_divide", 2, 2, "flat_divide(layout, layout|tiler)", binary(flat_divide, flat_divide)},
      {"logical_product", 2, 2, "logical_product(layout, layout|tiler)",
       binary(logical_product, logical_product)},
      {"zipped_product", 2, 2, "zipped_product(layout, layout|tiler)",
       binary(zipped_product, zipped_product)},
      {"tiled_product", 2, 2, "tiled_product(layout, layout|tiler)",
       binary(tiled_product, tiled_product)},
      {"flat_product", 2, 2, "flat_product(layout, layout|tiler)",
       binary(flat_product, flat_product)},
      {"blocked_product", 2, 2, "blocked_product(layout, layout)",
       binary(blocked_product, nullptr)},
      {"raked_product", 2, 2, "raked_product(layout, layout)", binary(raked_product, nullptr)},
      {"tile_to_shape", 2, 2, "tile_to_shape(layout, shape)",
       [](const std::string& fn, const std::vector<Arg>& a) -> Value {
         const IntTree target = shape_arg(fn, a, 1);
         return apply_inner(left_operand(fn, a),
                            [&](const Layout& l) { return tile_to_shape(l, target); });
       }},
      {"make_layout", 1, 64, "make_layout(shape) or make_layout(layout, layout, ...)",
       make_layout_fn},
      {"size", 1, 1, "size(layout|tiler)",
       [](const std::string& fn, const std::vector<Arg>& a) { return size_fn(fn, a, false); }},
      {"cosize", 1, 1, "cosize(layout)",
       [](const std::string& fn, const std::vector<Arg>& a) { return size_fn(fn, a, true); }},
      {"upcast", 2, 2, "upcast(layout, N)",
       [](const std::string& fn, const std::vector<Arg>& a) -> Value {
         return upcast(layout_arg(fn, a, 0), int_arg(fn, a, 1));
       }},
      {"downcast", 2, 2, "downcast(layout, N)",
       [](const std::string& fn, const std::vector<Arg>& a) -> Value {
         return downcast(layout_arg(fn, a, 0), int_arg(fn, a, 1));
       }},
  };
  return functions;
}

}  // namespace

const Function* find_function(const std::string& name) {
  for (const Function& f : table()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::string known_functions() {
  std::string s;
  for (const Function& f : table()) {
    if (!s.empty()) s += ", ";
    s += f.name;
  }
  return s;
}

Value call_function(const Function& f, const std::vector<Arg>& args, size_t call_position) {
  const int n = static_cast<int>(args.size());
  if (n < f.min_args || n > f.max_args) {
    const std::string count =
        f.min_args == f.max_args ? std::to_string(f.min_args)
                                 : std::to_string(f.min_args) + " to " + std::to_string(f.max_args);
    throw ExpressionError(std::string(f.name) + " takes " + count + " argument" +
                              (f.max_args == 1 ? "" : "s") + ", got " + std::to_string(n) + ": " +
                              f.signature,
                          call_position);
  }
  try {
    return f.eval(f.name, args);
  } catch (const AlgebraError& e) {
    throw ExpressionError(e.what(), call_position);
  }
}

Layout tiler_entry(const Arg& entry) {
  if (const auto* l = std::get_if<Layout>(&entry.value)) return *l;
  if (const auto* n = std::get_if<int64_t>(&entry.value)) return make_layout(IntTree(*n));
  throw ExpressionError(std::string("a tiler entry must be a layout, found ") + kind(entry.value),
                        entry.position);
}

}  // namespace tessel::rt
