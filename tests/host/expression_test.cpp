// The expression language of `tessel-layout eval` (tools/layout/expression.hpp): each grammar
// form, and each error with the column where its rule was broken.
#include "runtime_test_util.hpp"

namespace tessel::rt {
namespace {

std::string eval(const std::string& text) { return to_string(evaluate(text)); }

// Expects an ExpressionError at `column` (0-based) whose message contains `rule`.
void expect_error(const std::string& text, size_t column, const std::string& rule) {
  try {
    const Value v = evaluate(text);
    ADD_FAILURE() << text << " evaluated to " << to_string(v) << ", expected: " << rule;
  } catch (const ExpressionError& e) {
    EXPECT_EQ(e.position, column) << text << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(rule), std::string::npos) << text << ": " << e.what();
  }
}

TEST(Expression, LayoutsWithAndWithoutStride) {
  EXPECT_EQ(eval("(4,2):(1,4)"), "(4,2):(1,4)");
  EXPECT_EQ(eval("(4,(2,3))"), "(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(eval("8"), "8:1");
  EXPECT_EQ(eval("(8)"), "(8):(1)");  // a rank-1 tuple stays a tuple
  EXPECT_EQ(eval("4:-1"), "4:-1");
}

TEST(Expression, WhitespaceBetweenTokens) {
  EXPECT_EQ(eval("  composition ( ( 6 , 2 ) : ( 8 , 2 ) ,\t(4,3) : (3,1) )  "),
            "((2,2),3):((24,2),8)");
  EXPECT_EQ(eval("Sw < 3 , 3 , 3 >"), "Sw<3,3,3>");
}

TEST(Expression, TilersAndSwizzles) {
  EXPECT_EQ(eval("[4, (2,2):(1,8)]"), "[4:1,(2,2):(1,8)]");
  EXPECT_EQ(eval("Sw<2,0,-2>"), "Sw<2,0,-2>");
  EXPECT_EQ(eval("composition(Sw<3,3,3>, (8,64):(64,1))"), "Sw<3,3,3> o 0 o (8,64):(64,1)");
  EXPECT_EQ(eval("[size((2,3)), 4]"), "[6:1,4:1]");  // a number in a tiler is N:1
}

TEST(Expression, EveryFunction) {
  EXPECT_EQ(eval("coalesce((2,(1,6)):(1,(7,2)))"), "12:1");
  EXPECT_EQ(eval("coalesce(((2,2),(3,4)):((1,2),(8,24)), (1,1))"), "(4,12):(1,8)");
  EXPECT_EQ(eval("filter((4,2,3):(1,0,5))"), "(4,3):(1,5)");
  EXPECT_EQ(eval("filter(((4,2),3):((1,0),5), (1,1))"), "(4,3):(1,5)");
  EXPECT_EQ(eval("composition((8,8):(8,1), [4:2, 2:1])"), "(4,2):(16,1)");
  EXPECT_EQ(eval("complement(4:2, 24)"), "(2,3):(1,8)");
  EXPECT_EQ(eval("complement(4:2)"), "2:1");
  EXPECT_EQ(eval("complement(2:0, (3,5))"), "15:1");
  EXPECT_EQ(eval("right_inverse((4,2):(2,1))"), "(2,4):(4,1)");
  EXPECT_EQ(eval("left_inverse(4:2)"), "(2,4):(4,1)");
  EXPECT_EQ(eval("logical_divide((4,2,3):(2,1,8), 4:2)"), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(eval("zipped_divide((8,16):(1,8), [4,8])"), "((4,8),(2,2)):((1,8),(4,64))");
  EXPECT_EQ(eval("tiled_divide((8,16):(1,8), [4,8])"), "((4,8),2,2):((1,8),4,64)");
  EXPECT_EQ(eval("flat_divide((8,16):(1,8), [4,8])"), "(4,8,2,2):(1,8,4,64)");
  EXPECT_EQ(eval("logical_product((2,2):(4,1), 6)"), "((2,2),(2,3)):((4,1),(2,8))");
  EXPECT_EQ(eval("zipped_product((2,2):(4,1), [2,3])"), "((2,2),(2,3)):((4,1),(1,2))");
  EXPECT_EQ(eval("tiled_product((2,2):(4,1), [2,3])"), "((2,2),2,3):((4,1),1,2)");
  EXPECT_EQ(eval("blocked_product((2,5):(5,1), (3,4):(1,3))"), "(6,(5,4)):(5,(1,30))");
  EXPECT_EQ(eval("raked_product((2,5):(5,1), (3,4):(1,3))"), "((3,2),(4,5)):((10,5),(30,1))");
  EXPECT_EQ(eval("tile_to_shape(composition(Sw<3,3,3>, (8,64):(64,1)), (128,64))"),
            "Sw<3,3,3> o 0 o (128,64):(64,1)");
  EXPECT_EQ(eval("make_layout((4,2))"), "(4,2):(1,4)");
  EXPECT_EQ(eval("make_layout(4:1, 2:4)"), "(4,2):(1,4)");
  EXPECT_EQ(eval("make_layout((4,2):(2,1))"), "((4,2)):((2,1))");  // CuTe: one layout, one mode
  EXPECT_EQ(eval("size((4,(2,3)))"), "24");
  EXPECT_EQ(eval("cosize((4,2):(2,1))"), "8");
  EXPECT_EQ(eval("size([4, (2,2)])"), "16");
  EXPECT_EQ(eval("upcast((8,4):(4,1), 2)"), "(8,2):(2,1)");
  EXPECT_EQ(eval("downcast((8,2):(2,1), 2)"), "(8,4):(4,1)");
}

TEST(Expression, SwizzledLayoutsGoThroughDividesAndProducts) {
  EXPECT_EQ(eval("logical_divide(composition(Sw<1,1,1>, (4,4):(4,1)), [2,2])"),
            "Sw<1,1,1> o 0 o ((2,2),(2,2)):((4,8),(1,2))");
  EXPECT_EQ(eval("composition(composition(Sw<1,1,1>, 16:1), (4,4):(4,1))"),
            "Sw<1,1,1> o 0 o (4,4):(4,1)");
}

// ---- errors, each with its column -----------------------------------------------------------

TEST(ExpressionErrors, Syntax) {
  expect_error("composition(4:1, 2:1", 20, "expected ',' or ')' in the arguments of composition");
  expect_error("(4,2", 4, "expected ',' or ')' in the tuple");
  expect_error("(4,2):(1,4) x", 12, "unexpected 'x' after the end of the expression");
  expect_error("", 0, "empty expression");
  expect_error("   ", 3, "empty expression");
  expect_error("coalesce", 8, "expected '(' after the function name 'coalesce'");
  expect_error("()", 1, "expected an integer");
  expect_error("[4,", 3, "expected a layout");
  expect_error("[4 8]", 3, "expected ',' or ']' in the tiler");
  expect_error("Sw<3,3>", 6, "expected ',' after the swizzle's M");
  expect_error("#", 0, "expected a layout, a tiler");
}

TEST(ExpressionErrors, UnknownFunctionListsTheKnownOnes) {
  expect_error("  transpose(4:1)", 2,
               "unknown function 'transpose'; known functions: coalesce, filter, composition");
}

TEST(ExpressionErrors, ArgumentCountsAndTypes) {
  expect_error("complement(4:1, 8, 2)", 0, "complement takes 1 to 2 arguments, got 3");
  expect_error("right_inverse(4:1, 2)", 0, "right_inverse takes 1 argument, got 2");
  expect_error("coalesce(Sw<1,1,1>)", 9, "coalesce: argument 1 must be a layout or a swizzled");
  expect_error("blocked_product(4:1, [2,2])", 21, "argument 2 must be a layout, found a tiler");
  expect_error("tile_to_shape(4:1, 8:2)", 19, "argument 2 must be a shape");
  expect_error("upcast(4:1, (2,2))", 12, "argument 2 must be an integer");
  expect_error("[Sw<1,1,1>]", 1, "a tiler entry must be a layout, found a swizzle");
}

TEST(ExpressionErrors, AlgebraErrorsPointAtTheCall) {
  expect_error("coalesce(composition((2,5):(1,10), 3:3))", 9,
               "composition: stride divisibility violated: stride 3 of the right layout does not "
               "divide shape 2 of the left layout's mode 0");
  expect_error("complement((2,2):(1,3), 12)", 0, "complement: stride 3 is not divisible by 2");
  expect_error("left_inverse((2,2):(0,1))", 0, "left_inverse: layout (2,2):(0,1) is not injective");
}

TEST(ExpressionErrors, LiteralsShapesAndStrides) {
  expect_error("(4,0):(1,4)", 0, "shape 0 is not positive");
  expect_error("-4:1", 0, "shape -4 is not positive");
  expect_error("99999999999999999999", 0, "integer literal does not fit in 64 bits");
  expect_error("(4,2):(1,(4,2))", 6, "stride (1,(4,2)) is not congruent with shape (4,2)");
  expect_error("Sw<3,3,2>", 0, "|S| >= B");
  expect_error("Sw<1000,0,0>", 3, "swizzle B = 1000 is out of range");
  expect_error("size((4294967296,4294967296))", 0, "overflow");  // the layout itself is fine
  expect_error("((4294967296,4294967296),2)", 0, "a compact stride does not fit in 64 bits");
}

TEST(ExpressionErrors, NestingDepthIsBounded) {
  std::string deep(100, '(');
  deep += "1" + std::string(100, ')');
  expect_error(deep, 64, "nesting deeper than 64 levels");
  std::string calls;
  for (int i = 0; i < 100; ++i) calls += "coalesce(";
  expect_error(calls + "1" + std::string(100, ')'), 9 * 65, "nesting deeper than 64 levels");
}

}  // namespace
}  // namespace tessel::rt
