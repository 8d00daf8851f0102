// The run-time algebra (tools/layout/runtime_algebra.hpp): hand-worked examples, every error
// rule, and property tests over thousands of random layouts.
#include <algorithm>
#include <set>

#include "runtime_test_util.hpp"

namespace tessel::rt {
namespace {

using testing::L;
using testing::RandomLayouts;
using testing::T;

// ---- int-tuples ---------------------------------------------------------------------------

TEST(RuntimeIntTuple, ProductFlattenAndPrefixProducts) {
  EXPECT_EQ(product(T("(2,(3,4))")), 24);
  EXPECT_EQ(to_string(flatten(T("(2,(3,4))"))), "(2,3,4)");
  EXPECT_EQ(to_string(prefix_product(T("(2,(3,4))"))), "(1,(2,6))");
  EXPECT_EQ(to_string(compact_col_major(T("(4,1,2)"))), "(1,0,4)");  // shape-1 -> stride 0
  EXPECT_EQ(to_string(compact_row_major(T("(2,3,4)"))), "(12,4,1)");
}

TEST(RuntimeIntTuple, ShapeDivRoundsAwayFromZeroAndRejectsNonDivisors) {
  EXPECT_EQ(shape_div(12, 4), 3);
  EXPECT_EQ(shape_div(4, 12), 1);
  EXPECT_EQ(to_string(shape_div(T("(4,6)"), IntTree(8))), "(1,3)");
  EXPECT_THROW(shape_div(6, 4), AlgebraError);
  EXPECT_EQ(to_string(ceil_div(T("(3,5)"), IntTree(2))), "(2,5)");
}

TEST(RuntimeIntTuple, CongruentCompatibleAndCoordinates) {
  EXPECT_TRUE(congruent(T("(2,(3,4))"), T("(5,(6,7))")));
  EXPECT_FALSE(congruent(T("(2,3)"), T("6")));
  EXPECT_TRUE(compatible(T("24"), T("(4,6)")));
  EXPECT_FALSE(compatible(T("(4,6)"), T("24")));
  EXPECT_EQ(to_string(idx2crd(5, T("(2,3)"))), "(1,2)");
  EXPECT_EQ(crd2idx(idx2crd(5, T("(2,3)")), T("(2,3)"), T("(3,1)")), 5);
}

TEST(RuntimeIntTuple, SliceKeepsUnderscoreModes) {
  const IntTree c = make_tuple({underscore(), make_tuple({underscore(), IntTree(0)})});
  EXPECT_EQ(to_string(slice(c, T("(4,(2,3))"))), "(4,2)");
  EXPECT_EQ(to_string(append(IntTree(4), IntTree(1))), "(4,1)");
  EXPECT_EQ(to_string(prepend(T("(2,3)"), IntTree(1))), "(1,2,3)");
}

// ---- hand-worked examples (CuTe's documentation, seeds 002/004) -----------------------------

TEST(RuntimeAlgebra, MakeLayoutIsCompactColumnMajor) {
  EXPECT_EQ(to_string(make_layout(T("(4,(2,3))"))), "(4,(2,3)):(1,(4,8))");
  EXPECT_EQ(to_string(make_layout(T("1"))), "1:0");
  EXPECT_EQ(to_string(make_layout_right(T("(4,2)"))), "(4,2):(2,1)");
  EXPECT_EQ(to_string(make_layout({L("4:1"), L("2:4")})), "(4,2):(1,4)");
}

TEST(RuntimeAlgebra, CoalesceMergesToAnIntegerOrOneZero) {
  EXPECT_EQ(to_string(coalesce(L("(2,(1,6)):(1,(7,2))"))), "12:1");
  EXPECT_EQ(to_string(coalesce(L("(4,3):(1,5)"))), "(4,3):(1,5)");
  EXPECT_EQ(to_string(coalesce(L("(2,4):(0,0)"))), "8:0");
  EXPECT_EQ(to_string(coalesce(L("(1,1):(2,3)"))), "1:0");
  EXPECT_EQ(to_string(coalesce(L("((2,2),(3,4)):((1,2),(8,24))"), T("(1,1)"))), "(4,12):(1,8)");
  EXPECT_EQ(to_string(coalesce(L("((2,2),(3,4)):((1,2),(8,24))"), T("(1)"))),
            "(4,(3,4)):(1,(8,24))");
}

TEST(RuntimeAlgebra, FilterDropsStrideZeroAndUnitModes) {
  EXPECT_EQ(to_string(filter(L("(4,2,3):(1,0,5)"))), "(4,3):(1,5)");
  EXPECT_EQ(to_string(filter(L("(4,2):(0,0)"))), "1:0");
}

TEST(RuntimeAlgebra, CompositionDocumentationExamples) {
  EXPECT_EQ(to_string(composition(L("(6,2):(8,2)"), L("(4,3):(3,1)"))), "((2,2),3):((24,2),8)");
  EXPECT_EQ(to_string(composition(L("20:2"), L("(5,4):(4,1)"))), "(5,4):(8,2)");
  EXPECT_EQ(to_string(composition(L("(10,2):(16,4)"), L("(5,4):(1,5)"))), "(5,(2,2)):(16,(80,4))");
}

TEST(RuntimeAlgebra, CompositionShortcuts) {
  EXPECT_EQ(to_string(composition(L("(4,2):(1,4)"), L("(3,2):(0,0)"))), "(3,2):(0,0)");
  EXPECT_EQ(to_string(composition(L("4:2"), L("1:3"))), "1:6");  // integral A: N:(D*d)
  // A's trailing shape-1 mode still places indices past size(A) (CuTe's coalesce_x).
  EXPECT_EQ(to_string(composition(L("(4,1):(1,8)"), L("8:1"))), "(4,2):(1,8)");
  // A size-1 mode of B never moves, whatever its stride.
  EXPECT_EQ(to_string(composition(L("(5,3):(1,12)"), L("1:6"))), "1:0");
}

TEST(RuntimeAlgebra, CompositionTakesAShapeThatFitsInAMode) {
  // 2 elements at stride 2 inside a mode of 6: a layout, though CuTe's static shape_div(2,3)
  // would refuse it. Only a shape spilling into the next mode must be a multiple.
  EXPECT_EQ(to_string(composition(L("(6,5):(1,10)"), L("2:2"))), "2:2");
  EXPECT_EQ(to_string(composition(L("(6,5):(1,10)"), L("(2,5):(2,6)"))), "(2,5):(2,10)");
}

TEST(RuntimeAlgebra, CompositionByModeWithATiler) {
  EXPECT_EQ(to_string(composition(L("(8,8):(8,1)"), Tiler{{L("4:2"), L("2:1")}})), "(4,2):(16,1)");
  // A's modes past the tiler's rank are dropped, as in CuTe.
  EXPECT_EQ(to_string(composition(L("(8,8):(8,1)"), Tiler{{L("4:2")}})), "(4):(16)");
}

TEST(RuntimeAlgebra, SwizzleCompositionKeepsTheLayoutInside) {
  const SwizzledLayout s = composition(Swizzle{3, 3, 3}, L("(8,32):(32,1)"));
  EXPECT_EQ(to_string(s), "Sw<3,3,3> o 0 o (8,32):(32,1)");
  EXPECT_EQ(s(1), 32 ^ (0 << 3));  // row 1, column 0: 32 has no bits 6..8 set
  EXPECT_EQ(s(8), 1 ^ 0);          // row 0, column 1
  EXPECT_EQ(s(2 + 8 * 0), 64 ^ (1 << 3));
  EXPECT_EQ(to_string(composition(s, L("(8,8):(1,8)"))), "Sw<3,3,3> o 0 o (8,8):(32,1)");
}

TEST(RuntimeAlgebra, ComplementExamples) {
  EXPECT_EQ(to_string(complement(L("4:2"), IntTree(24))), "(2,3):(1,8)");
  EXPECT_EQ(to_string(complement(L("4:1"), IntTree(24))), "6:4");
  EXPECT_EQ(to_string(complement(L("6:4"), IntTree(24))), "4:1");
  EXPECT_EQ(to_string(complement(L("(4,6):(1,4)"), IntTree(24))), "1:0");
  EXPECT_EQ(to_string(complement(L("(2,2):(1,6)"), IntTree(24))), "(3,2):(2,12)");
  EXPECT_EQ(to_string(complement(L("(2,4):(1,8)"), IntTree(64))), "(4,2):(2,32)");
  EXPECT_EQ(to_string(complement(L("(2,2):(0,1)"), IntTree(16))), "8:2");
  EXPECT_EQ(to_string(complement(L("2:0"), T("(3,5)"))), "15:1");
  EXPECT_EQ(to_string(complement(L("4:2"))), "2:1");  // cotarget cosize(A) = 7
}

TEST(RuntimeAlgebra, InverseExamples) {
  EXPECT_EQ(to_string(right_inverse(L("(4,2):(2,1)"))), "(2,4):(4,1)");
  EXPECT_EQ(to_string(right_inverse(L("4:2"))), "1:0");  // nothing at offset 1
  EXPECT_EQ(to_string(right_inverse(L("8:-1"))), "8:-1");
  EXPECT_EQ(to_string(right_inverse(L("(4,2):(0,1)"))), "2:4");
  EXPECT_EQ(to_string(left_inverse(L("4:2"))), "(2,4):(4,1)");
  EXPECT_EQ(to_string(left_inverse(L("(2,4):(4,1)"))), "(4,2):(2,1)");
}

TEST(RuntimeAlgebra, DivideExamples) {
  EXPECT_EQ(to_string(logical_divide(L("(4,2,3):(2,1,8)"), L("4:2"))),
            "((2,2),(2,3)):((4,1),(2,8))");
  const Layout a = L("(9,(4,8)):(59,(13,1))");
  const Tiler t{{L("3:3"), L("(2,4):(1,8)")}};
  EXPECT_EQ(to_string(logical_divide(a, t)), "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
  EXPECT_EQ(to_string(zipped_divide(a, t)), "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
  EXPECT_EQ(to_string(tiled_divide(a, t)), "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
  EXPECT_EQ(to_string(flat_divide(a, t)), "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
  EXPECT_EQ(to_string(zipped_divide(L("(8,16):(1,8)"), Tiler{{L("4:1"), L("8:1")}})),
            "((4,8),(2,2)):((1,8),(4,64))");
}

TEST(RuntimeAlgebra, ProductExamples) {
  EXPECT_EQ(to_string(logical_product(L("(2,2):(4,1)"), L("6:1"))), "((2,2),(2,3)):((4,1),(2,8))");
  // CuTe coalesces each mode of blocked/raked products: (2,3):(5,10) -> 6:5.
  EXPECT_EQ(to_string(blocked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)"))), "(6,(5,4)):(5,(1,30))");
  EXPECT_EQ(to_string(raked_product(L("(2,5):(5,1)"), L("(3,4):(1,3)"))),
            "((3,2),(4,5)):((10,5),(30,1))");
  EXPECT_EQ(to_string(zipped_product(L("(2,2):(4,1)"), Tiler{{L("2:1"), L("3:1")}})),
            "((2,2),(2,3)):((4,1),(1,2))");
  EXPECT_EQ(to_string(tiled_product(L("(2,2):(4,1)"), Tiler{{L("2:1"), L("3:1")}})),
            "((2,2),2,3):((4,1),1,2)");
  EXPECT_EQ(to_string(tile_to_shape(L("(2,2):(1,2)"), T("(4,6)"))), "((2,2),(2,3)):((1,4),(2,8))");
  EXPECT_EQ(to_string(tile_to_shape(L("(8,64):(64,1)"), T("(128,64)"))), "(128,64):(64,1)");
}

TEST(RuntimeAlgebra, UpcastAndDowncast) {
  EXPECT_EQ(to_string(upcast(L("(8,4):(4,1)"), 2)), "(8,2):(2,1)");
  EXPECT_EQ(to_string(upcast(L("(8,4):(0,1)"), 4)), "(8,1):(0,1)");
  EXPECT_EQ(to_string(downcast(L("(8,2):(2,1)"), 2)), "(8,4):(4,1)");
}

TEST(RuntimeAlgebra, SizeAndCosize) {
  EXPECT_EQ(size(L("(4,(2,3)):(1,(8,2))")), 24);
  EXPECT_EQ(cosize(L("(4,(2,3)):(1,(8,2))")), 1 + 3 + 8 + 4);
  EXPECT_EQ(cosize(L("4:-2")), 7);
  EXPECT_EQ(size(Tiler{{L("4:1"), L("(2,2):(1,8)")}}), 16);
}

// ---- every error rule ---------------------------------------------------------------------

// Expects an AlgebraError whose message contains `rule`.
template <class F>
void expect_rule(F&& f, const std::string& rule) {
  try {
    f();
    ADD_FAILURE() << "expected an AlgebraError naming '" << rule << "'";
  } catch (const AlgebraError& e) {
    EXPECT_NE(std::string(e.what()).find(rule), std::string::npos) << e.what();
  }
}

TEST(RuntimeAlgebraErrors, CompositionStrideDivisibility) {
  expect_rule([] { composition(L("(2,5):(1,10)"), L("3:3")); },
              "composition: stride divisibility violated: stride 3 of the right layout does not "
              "divide shape 2 of the left layout's mode 0");
}

TEST(RuntimeAlgebraErrors, CompositionShapeDivisibility) {
  expect_rule([] { composition(L("(4,5):(1,10)"), L("6:1")); },
              "composition: shape divisibility violated: shape 6 of the right layout");
}

TEST(RuntimeAlgebraErrors, CompositionModesThatCarry) {
  expect_rule([] { composition(L("(4,3):(1,10)"), L("(2,4):(2,1)")); },
              "overlap inside mode 0 of the left layout");
}

TEST(RuntimeAlgebraErrors, CompositionNegativeRightStrideAndTilerRank) {
  expect_rule([] { composition(L("(4,2):(1,4)"), L("2:-1")); }, "is negative");
  expect_rule([] { composition(L("4:1"), Tiler{{L("2:1"), L("2:1")}}); }, "has 2 modes");
}

TEST(RuntimeAlgebraErrors, ComplementNeedsOrderedDivisibleNonNegativeStrides) {
  expect_rule([] { complement(L("(2,2):(1,3)"), IntTree(12)); },
              "complement: stride 3 is not divisible by 2");
  expect_rule([] { complement(L("(4,2):(1,2)"), IntTree(12)); }, "is not injective");
  expect_rule([] { complement(L("4:-1"), IntTree(12)); }, "complement: stride -1");
  expect_rule([] { complement(L("4:1"), IntTree(0)); }, "shape 0 is not positive");
}

TEST(RuntimeAlgebraErrors, LeftInverseNeedsInjective) {
  expect_rule([] { left_inverse(L("(4,2):(0,1)")); },
              "left_inverse: layout (4,2):(0,1) is not injective");
  expect_rule([] { left_inverse(L("(2,2):(1,3)")); }, "left_inverse needs an injective layout");
}

TEST(RuntimeAlgebraErrors, DivideAndProductRules) {
  expect_rule(
      [] {
        logical_divide(L("8:1"), Tiler{{L("2:1"), L("2:1")}});
      },
      "logical_divide: the tiler [2:1,2:1] has 2 modes");
  expect_rule([] { tile_to_shape(L("(2,3):(1,2)"), T("(4,4)")); },
              "tile_to_shape: block shape does not divide the target shape");
  expect_rule([] { tile_to_shape(L("(2,2,2):(1,2,4)"), T("(4,4)")); }, "has rank 3");
  expect_rule([] { coalesce(L("4:1"), T("(1,1)")); }, "coalesce: the profile (1,1) has 2 modes");
}

TEST(RuntimeAlgebraErrors, UpcastDowncastRules) {
  expect_rule([] { upcast(L("6:1"), 4); }, "upcast: mode 6:1 cannot be regrouped by 4");
  expect_rule([] { downcast(L("(4,2):(2,8)"), 2); }, "downcast requires adjacent elements");
  expect_rule([] { upcast(L("4:1"), 0); }, "the factor 0 is not positive");
}

TEST(RuntimeAlgebraErrors, ShapesOverflowAndSwizzles) {
  expect_rule(
      [] {
        make_layout(make_tuple({IntTree(4), IntTree(0)}));
      },
      "make_layout: shape 0 is not positive");
  expect_rule(
      [] {
        coalesce(Layout{make_tuple({IntTree(2), IntTree(3)}), IntTree(1)});
      },
      "are not congruent");
  expect_rule([] { L("(4294967296,4294967296)").size(); }, "overflow");
  expect_rule([] { L("(3037000500,3037000500):(3037000500,1)").cosize(); }, "overflow");
  expect_rule([] { Swizzle{3, 3, 2}.validate(); }, "|S| >= B");
  expect_rule(
      [] {
        composition(Swizzle{1, 0, 1}, L("(8192,4096):(1,8192)")).cosize();
      },
      "past the limit");
}

// ---- properties over random layouts -------------------------------------------------------

constexpr uint64_t kSeed = 20260522;
constexpr int kTrials = 3000;

// Evaluates f over [0, n) and checks it against g, with the layouts in the message.
#define EXPECT_SAME_FUNCTION(n, f, g, what)                                         \
  for (int64_t i_ = 0; i_ < (n); ++i_) {                                            \
    const int64_t x_ = (f)(i_), y_ = (g)(i_);                                       \
    if (x_ != y_) {                                                                 \
      ADD_FAILURE() << what << ": differs at " << i_ << ": " << x_ << " != " << y_; \
      break;                                                                        \
    }                                                                               \
  }

TEST(RuntimeAlgebraProperty, CoalesceKeepsTheFunction) {
  RandomLayouts gen(kSeed);
  for (int t = 0; t < kTrials; ++t) {
    const Layout a = gen.any(3);
    const Layout c = coalesce(a);
    SCOPED_TRACE("seed " + std::to_string(kSeed) + " trial " + std::to_string(t) + ": " +
                 to_string(a) + " -> " + to_string(c));
    ASSERT_EQ(c.size(), a.size());
    ASSERT_LE(c.shape.depth(), 1);
    EXPECT_SAME_FUNCTION(a.size(), a, c, "coalesce");
    const Layout f = filter(a);
    std::set<int64_t> image_a, image_f;
    for (int64_t i = 0; i < a.size(); ++i) image_a.insert(a(i));
    for (int64_t i = 0; i < f.size(); ++i) image_f.insert(f(i));
    EXPECT_EQ(image_a, image_f) << "filter keeps the image";
  }
}

TEST(RuntimeAlgebraProperty, CompositionIsAOfB) {
  RandomLayouts gen(kSeed + 1);
  int admissible = 0;
  for (int t = 0; t < kTrials; ++t) {
    const Layout a = gen.any(2);
    // B is anything, or half the time a permutation of A's domain: compact strides in a random
    // order over a random refinement of size(A) (admissible more often).
    Layout b = gen.any(2);
    if (gen.coin(50)) {
      const Layout p = gen.injective(2, 0);
      if (a.size() % p.size() == 0) b = p;
    }
    SCOPED_TRACE("seed " + std::to_string(kSeed + 1) + " trial " + std::to_string(t) + ": " +
                 to_string(a) + " o " + to_string(b));
    Layout c;
    try {
      c = composition(a, b);
    } catch (const AlgebraError&) {
      continue;  // inadmissible: refused, never a wrong layout
    }
    ++admissible;
    ASSERT_EQ(c.size(), b.size()) << to_string(c);
    ASSERT_TRUE(compatible(b.shape, c.shape) || congruent(b.shape, c.shape)) << to_string(c);
    EXPECT_SAME_FUNCTION(
        b.size(), c, [&](int64_t i) { return a(b(i)); }, to_string(c));
  }
  EXPECT_GT(admissible, kTrials / 4) << "the generator should produce admissible pairs";
}

TEST(RuntimeAlgebraProperty, ComplementIsDisjointAndOrderedAfter) {
  RandomLayouts gen(kSeed + 2);
  for (int t = 0; t < kTrials; ++t) {
    const Layout a = gen.injective(2);
    if (a.cosize() > 20000) continue;  // keeps the enumeration below small
    const int64_t cotarget = a.cosize() * gen.uniform(1, 3) + gen.uniform(0, 5);
    SCOPED_TRACE("seed " + std::to_string(kSeed + 2) + " trial " + std::to_string(t) + ": " +
                 to_string(a) + ", " + std::to_string(cotarget));
    const Layout c = complement(a, IntTree(cotarget));
    // C is ordered (increasing), starts at 0, and (A, C) is injective: C(i) + A(j) never repeat.
    for (int64_t i = 1; i < c.size(); ++i) ASSERT_LT(c(i - 1), c(i)) << to_string(c);
    ASSERT_EQ(c(0), 0);
    const Layout ac = make_layout({a, c});
    std::vector<char> seen(static_cast<size_t>(ac.cosize()), 0);
    for (int64_t i = 0; i < ac.size(); ++i) {
      ASSERT_FALSE(seen[static_cast<size_t>(ac(i))]) << to_string(c) << " overlaps A at " << ac(i);
      seen[static_cast<size_t>(ac(i))] = 1;
    }
    EXPECT_GE(ac.size(), cotarget) << "(A, C) covers the cotarget: " << to_string(c);
    EXPECT_EQ(c, coalesce(c)) << "the result is coalesced";
  }
}

TEST(RuntimeAlgebraProperty, LogicalDivideIsCompositionWithTheComplement) {
  RandomLayouts gen(kSeed + 3);
  int checked = 0;
  for (int t = 0; t < kTrials; ++t) {
    const Layout a = gen.any(2);
    const Layout b = gen.injective(1, 20);
    SCOPED_TRACE("seed " + std::to_string(kSeed + 3) + " trial " + std::to_string(t) + ": " +
                 to_string(a) + " / " + to_string(b));
    Layout d, e;
    try {
      d = logical_divide(a, b);
      e = composition(a, make_layout({b, complement(b, IntTree(a.size()))}));
    } catch (const AlgebraError&) {
      continue;
    }
    ++checked;
    EXPECT_EQ(d, e);
    const Layout be = make_layout({b, complement(b, IntTree(a.size()))});
    EXPECT_SAME_FUNCTION(
        d.size(), d, [&](int64_t i) { return a(be(i)); }, to_string(d));
  }
  EXPECT_GT(checked, kTrials / 10);
}

TEST(RuntimeAlgebraProperty, RightInverseAndLeftInverse) {
  RandomLayouts gen(kSeed + 4);
  for (int t = 0; t < kTrials; ++t) {
    const Layout a = gen.any(2);
    SCOPED_TRACE("seed " + std::to_string(kSeed + 4) + " trial " + std::to_string(t) + ": " +
                 to_string(a));
    const Layout r = right_inverse(a);
    for (int64_t i = 0; i < r.size(); ++i) ASSERT_EQ(a(r(i)), i) << to_string(r);
    std::set<int64_t> image;
    bool injective = true;
    for (int64_t i = 0; i < a.size(); ++i) injective = image.insert(a(i)).second && injective;
    Layout l;
    try {
      l = left_inverse(a);
    } catch (const AlgebraError&) {
      continue;  // refused: not injective, or not ordered-divisible
    }
    ASSERT_TRUE(injective) << "left_inverse accepted a non-injective layout: " << to_string(l);
    for (int64_t i = 0; i < a.size(); ++i) ASSERT_EQ(l(a(i)), i) << to_string(l);
  }
}

TEST(RuntimeAlgebraProperty, ProductsTileTheBlock) {
  RandomLayouts gen(kSeed + 5);
  for (int t = 0; t < kTrials; ++t) {
    const Layout a = gen.injective(1, 20), b = gen.injective(1, 20);
    SCOPED_TRACE("seed " + std::to_string(kSeed + 5) + " trial " + std::to_string(t) + ": " +
                 to_string(a) + " x " + to_string(b));
    Layout p;
    try {
      p = logical_product(a, b);
    } catch (const AlgebraError&) {
      continue;
    }
    ASSERT_EQ(p.size(), a.size() * b.size());
    EXPECT_EQ(p.mode(0), a);
    std::vector<int64_t> vp, vb, vr;
    for (int64_t i = 0; i < p.size(); ++i) vp.push_back(p(i));
    const Layout bl = blocked_product(a, b), ra = raked_product(a, b);
    for (int64_t i = 0; i < bl.size(); ++i) vb.push_back(bl(i));
    for (int64_t i = 0; i < ra.size(); ++i) vr.push_back(ra(i));
    std::sort(vp.begin(), vp.end());
    std::sort(vb.begin(), vb.end());
    std::sort(vr.begin(), vr.end());
    EXPECT_EQ(vp, vb) << "blocked_product rearranges the logical product: " << to_string(bl);
    EXPECT_EQ(vp, vr) << "raked_product rearranges the logical product: " << to_string(ra);
    EXPECT_TRUE(std::adjacent_find(vp.begin(), vp.end()) == vp.end()) << "injective";
  }
}

TEST(RuntimeAlgebraProperty, SwizzlesAreBijectiveInvolutions) {
  RandomLayouts gen(kSeed + 6);
  for (int t = 0; t < 300; ++t) {
    const int b = static_cast<int>(gen.uniform(0, 4)), m = static_cast<int>(gen.uniform(0, 4));
    int s = static_cast<int>(gen.uniform(b, 5));
    if (gen.coin(30)) s = -s;
    const Swizzle sw{b, m, s};
    SCOPED_TRACE("seed " + std::to_string(kSeed + 6) + ": " + to_string(sw));
    const int64_t n = int64_t{1} << (b + m + (s < 0 ? -s : s));
    std::set<int64_t> image;
    for (int64_t x = 0; x < n; ++x) {
      const int64_t y = sw(x);
      ASSERT_GE(y, 0);
      ASSERT_LT(y, n);
      ASSERT_EQ(sw(y), x);
      image.insert(y);
    }
    EXPECT_EQ(static_cast<int64_t>(image.size()), n);
  }
}

}  // namespace
}  // namespace tessel::rt
