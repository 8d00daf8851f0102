// `tessel-layout eval`: the algebra calculator (contract in DESIGN.md, "tessel-layout eval").
#include "eval_command.hpp"

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "expression.hpp"

namespace tessel::tool {

nlohmann::ordered_json tree_json(const rt::IntTree& t) {
  if (t.is_leaf()) return t.value();
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const rt::IntTree& c : t.children()) list.push_back(tree_json(c));
  return list;
}

namespace {

// Fills layout / shape / stride / size / cosize / values for a layout-like F.
template <class L>
void layout_fields(nlohmann::ordered_json& j, const L& l, const rt::Layout& inner,
                   bool with_stride) {
  j["layout"] = rt::to_string(l);
  j["shape"] = tree_json(inner.shape);
  if (with_stride) j["stride"] = tree_json(inner.stride);
  const int64_t n = l.size();
  j["size"] = n;
  if (n > kMaxJsonValues) {
    const std::string why = "size " + std::to_string(n) + " exceeds the limit of " +
                            std::to_string(kMaxJsonValues) + " listed values";
    if (with_stride) {
      j["cosize"] = l.cosize();
    } else {
      j["cosize_omitted"] = why;  // a swizzled cosize enumerates the domain
    }
    j["values_omitted"] = why;
    return;
  }
  j["cosize"] = l.cosize();
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  for (int64_t i = 0; i < n; ++i) values.push_back(l(i));
  j["values"] = std::move(values);
}

}  // namespace

nlohmann::ordered_json eval_json(const std::string& expr) {
  nlohmann::ordered_json j;
  j["expr"] = expr;
  try {
    const rt::Value v = rt::evaluate(expr);
    if (const auto* l = std::get_if<rt::Layout>(&v)) {
      layout_fields(j, *l, *l, true);
    } else if (const auto* s = std::get_if<rt::SwizzledLayout>(&v)) {
      layout_fields(j, *s, s->layout, false);
    } else if (const auto* sw = std::get_if<rt::Swizzle>(&v)) {
      j["swizzle"] = rt::to_string(*sw);
    } else if (const auto* t = std::get_if<rt::Tiler>(&v)) {
      j["tiler"] = rt::to_string(*t);
      nlohmann::ordered_json modes = nlohmann::ordered_json::array();
      for (const rt::Layout& m : t->modes) modes.push_back(rt::to_string(m));
      j["modes"] = std::move(modes);
    } else {
      j["value"] = std::get<int64_t>(v);
    }
  } catch (const rt::ExpressionError& e) {
    j = {{"expr", expr}, {"error", e.what()}};
  } catch (const rt::AlgebraError& e) {
    j = {{"expr", expr}, {"error", e.what()}};
  }
  return j;
}

namespace {

// Evaluates one expression and prints its line; returns false on an error.
bool eval_one(const std::string& expr, bool json, std::ostream& out, std::ostream& err) {
  if (json) {
    const nlohmann::ordered_json line = eval_json(expr);
    out << line.dump() << "\n";
    return !line.contains("error");
  }
  try {
    out << rt::to_string(rt::evaluate(expr)) << "\n";
    return true;
  } catch (const rt::ExpressionError& e) {
    err << "error: " << e.what() << "\n  " << expr << "\n  " << std::string(e.position, ' ')
        << "^\n";
  } catch (const rt::AlgebraError& e) {
    err << "error: " << e.what() << "\n  " << expr << "\n";
  }
  return false;
}

}  // namespace

int run_eval(const std::vector<std::string>& exprs, bool json, std::istream& in, std::ostream& out,
             std::ostream& err) {
  bool ok = true;
  if (exprs.size() == 1 && exprs.front() == "-") {
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      ok = eval_one(line, json, out, err) && ok;
    }
  } else {
    for (const std::string& expr : exprs) ok = eval_one(expr, json, out, err) && ok;
  }
  out.flush();
  return ok ? 0 : 1;
}

void add_eval_command(CLI::App& app, int& status) {
  CLI::App* cmd = app.add_subcommand(
      "eval", "Evaluate layout-algebra expressions (CuTe notation): eval [--json] EXPR... | -");
  cmd->footer(
      "EXPR is an expression such as \"composition(Sw<3,3,3>, (8,64):(64,1))\" or\n"
      "\"logical_divide((8,16):(16,1), [4:1,8:1])\"; '-' reads one expression per line from\n"
      "stdin and prints one result per line. Functions: coalesce, filter, composition,\n"
      "complement, right_inverse, left_inverse, logical_divide, zipped_divide, tiled_divide,\n"
      "flat_divide, logical_product, zipped_product, tiled_product, flat_product,\n"
      "blocked_product, raked_product, tile_to_shape, make_layout, size, cosize, upcast,\n"
      "downcast.\n\n"
      "--json prints one object per line: {\"expr\",\"layout\",\"shape\",\"stride\",\"size\",\n"
      "\"cosize\",\"values\"} for a layout (no \"stride\" for a swizzled layout), "
      "{\"expr\",\"value\"}\n"
      "for size()/cosize(), {\"expr\",\"swizzle\"} and {\"expr\",\"tiler\",\"modes\"} for the "
      "others.\n"
      "\"values\" lists L(0..size-1) only up to " +
      std::to_string(kMaxJsonValues) +
      " entries: a larger layout gets \"values_omitted\"\n"
      "(the reason) instead, and a swizzled layout that large gets \"cosize_omitted\" too.\n"
      "An invalid expression gives {\"expr\",\"error\"} (text mode: 'error: ...' on stderr);\n"
      "all expressions are evaluated, and the exit status is 1 if any failed.");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "One JSON object per expression");
  // EXPR... are taken as "extras": a CLI11 positional would split "[4:1,8:1]" as a list.
  cmd->allow_extras();
  cmd->callback([cmd, json, &status] {
    const std::vector<std::string> exprs = cmd->remaining();
    if (exprs.empty()) {
      std::cerr << "tessel-layout eval: expected at least one EXPR (or '-' for stdin)\n";
      status = 2;
      return;
    }
    status = run_eval(exprs, *json, std::cin, std::cout, std::cerr);
  });
}

}  // namespace tessel::tool
