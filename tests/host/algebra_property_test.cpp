// Properties of the algebra over thousands of random layouts: random nesting (a set of
// skeletons), shapes 1..6, strides including 0 and gaps. Every failure prints the seed and
// the layouts involved.
#include <set>

#include "test_util.hpp"

namespace tessel {
namespace {

using test::random_layout;
using test::Rng;
using test::values;

// The nestings the properties run over.
const auto kRank1 = 0;
const auto kRank2 = make_shape(0, 0);
const auto kRank3 = make_shape(0, 0, 0);
const auto kNested = make_shape(make_shape(0, 0), 0);
const auto kDeep = make_shape(0, make_shape(0, make_shape(0, 0)));

// Calls f(skeleton) for every skeleton.
template <class F>
void for_each_skeleton(F&& f) {
  f(kRank1);
  f(kRank2);
  f(kRank3);
  f(kNested);
  f(kDeep);
}

constexpr int kCasesPerPair = 400;

bool injective(std::vector<long long> const& v) {
  return std::set<long long>(v.begin(), v.end()).size() == v.size();
}

// Also where B runs past size(A): both sides then continue A's last mode.
TEST(AlgebraProperty, CompositionIsFunctionComposition) {
  int ok = 0, rejected = 0;
  for_each_skeleton([&](auto ka) {
    for_each_skeleton([&](auto kb) {
      Rng rng(1000 + ok + rejected);
      for (int c = 0; c < kCasesPerPair; ++c) {
        auto a = random_layout(ka, rng);
        auto b = random_layout(kb, rng);
        try {
          auto r = composition(a, b);
          ASSERT_EQ(size(r), size(b)) << to_string(a) << " o " << to_string(b);
          for (int i = 0; i < size(b); ++i) {
            ASSERT_EQ(r(i), a(b(i))) << "seed " << rng.seed << ": " << to_string(a) << " o "
                                     << to_string(b) << " = " << to_string(r) << " at " << i;
          }
          ++ok;
        } catch (LayoutError const&) {
          ++rejected;  // inadmissible pair: the error is the correct answer
        }
      }
    });
  });
  EXPECT_GT(ok, 2000) << "too few admissible pairs to mean anything (rejected " << rejected << ")";
}

TEST(AlgebraProperty, CoalesceAndFilterKeepTheFunction) {
  for_each_skeleton([&](auto k) {
    Rng rng(2000);
    for (int c = 0; c < 1000; ++c) {
      auto a = random_layout(k, rng);
      auto co = coalesce(a);
      ASSERT_EQ(values(co), values(a)) << to_string(a) << " -> " << to_string(co);
      ASSERT_EQ(values(coalesce(a, make_shape(1))), values(a));
      // filter: same image, no broadcast modes.
      auto fi = filter(a);
      auto va = values(a), vf = values(fi);
      ASSERT_EQ(std::set<long long>(va.begin(), va.end()), std::set<long long>(vf.begin(), vf.end()))
          << to_string(a) << " -> " << to_string(fi);
    }
  });
}

TEST(AlgebraProperty, ComplementIsDisjointOrderedAndCompletes) {
  int ok = 0;
  for_each_skeleton([&](auto k) {
    Rng rng(3000);
    for (int c = 0; c < 1000; ++c) {
      auto a = random_layout(k, rng);
      int target = static_cast<int>(cosize(a)) * rng.uniform(1, 3);
      try {
        auto comp = complement(a, target);
        auto vc = values(comp);
        for (std::size_t j = 1; j < vc.size(); ++j) {
          ASSERT_LT(vc[j - 1], vc[j]) << "not ordered: " << to_string(a) << " -> " << to_string(comp);
        }
        auto va = values(a);
        std::set<long long> image(va.begin(), va.end());
        for (std::size_t j = 1; j < vc.size(); ++j) {
          ASSERT_EQ(image.count(vc[j]), 0u) << "not disjoint: " << to_string(a) << " -> " << to_string(comp);
        }
        ASSERT_GE(size(filter(a)) * size(comp), target) << to_string(a) << " -> " << to_string(comp);
        if (injective(values(filter(a)))) {
          ASSERT_TRUE(injective(values(make_layout(filter(a), comp))));
        }
        ++ok;
      } catch (LayoutError const&) {
        // overlapping or interleaved layouts have no complement
        ASSERT_FALSE(injective(values(filter(a))) && size(filter(a)) == 1) << to_string(a);
      }
    }
  });
  EXPECT_GT(ok, 2000);
}

TEST(AlgebraProperty, LogicalDivideIsCompositionWithTheTileAndItsComplement) {
  int ok = 0;
  for_each_skeleton([&](auto ka) {
    for_each_skeleton([&](auto kb) {
      Rng rng(4000);
      for (int c = 0; c < kCasesPerPair; ++c) {
        auto a = random_layout(ka, rng);
        auto b = random_layout(kb, rng);
        try {
          auto d = logical_divide(a, b);
          auto full = make_layout(b, complement(b, size(a)));
          auto expected = composition(a, full);
          ASSERT_EQ(values(d), values(expected));
          for (int i = 0; i < size(full); ++i) ASSERT_EQ(d(i), a(full(i))) << to_string(a) << " / " << to_string(b);
          ++ok;
        } catch (LayoutError const&) {
        }
      }
    });
  });
  EXPECT_GT(ok, 1000);
}

TEST(AlgebraProperty, RightInverse) {
  for_each_skeleton([&](auto k) {
    Rng rng(5000);
    for (int c = 0; c < 1000; ++c) {
      auto a = random_layout(k, rng);
      auto r = right_inverse(a);
      for (int i = 0; i < size(r); ++i) {
        ASSERT_EQ(a(r(i)), i) << to_string(a) << " right_inverse " << to_string(r);
      }
    }
  });
}

TEST(AlgebraProperty, LeftInverseOfInjectiveLayouts) {
  int ok = 0;
  for_each_skeleton([&](auto k) {
    Rng rng(6000);
    for (int c = 0; c < 2000; ++c) {
      auto a = random_layout(k, rng);
      if (!injective(values(a))) {
        EXPECT_ANY_THROW(left_inverse(a)) << to_string(a);  // never a silent wrong inverse
        continue;
      }
      try {
        auto l = left_inverse(a);
        for (int i = 0; i < size(a); ++i) ASSERT_EQ(l(a(i)), i) << to_string(a) << " -> " << to_string(l);
        ++ok;
      } catch (LayoutError const&) {
        // injective but interleaved (e.g. (5,2):(1,24)): no complement, reported as such
      }
    }
  });
  EXPECT_GT(ok, 1000);
}

TEST(AlgebraProperty, SwizzledCompactLayoutsArePermutations) {
  Rng rng(7000);
  for (int c = 0; c < 200; ++c) {
    int rows = 1 << rng.uniform(3, 5), cols = 1 << rng.uniform(3, 6);
    auto l = make_layout(make_shape(rows, cols), LayoutRight{});
    auto sl = composition(Swizzle<3, 3, 3>{}, l);
    if (rows * cols % Swizzle<3, 3, 3>::period != 0) continue;
    auto v = values(sl);
    std::sort(v.begin(), v.end());
    for (int i = 0; i < rows * cols; ++i) ASSERT_EQ(v[i], i) << rows << "x" << cols;
  }
}

// Static layouts and the same layouts with every integer made dynamic give the same
// functions (the dynamic results may keep extra size-1 modes).
TEST(AlgebraProperty, StaticAndDynamicAgree) {
  using namespace tessel::test;
  auto check = [](auto a, auto b) {
    auto da = dynamic(a), db = dynamic(b);
    EXPECT_EQ(values(coalesce(a)), values(coalesce(da))) << to_string(a);
    EXPECT_EQ(values(filter(a)), values(filter(da))) << to_string(a);
    EXPECT_EQ(values(composition(a, b)), values(composition(da, db))) << to_string(a) << " o " << to_string(b);
    EXPECT_EQ(values(complement(a, Int<64>{})), values(complement(da, 64))) << to_string(a);
    EXPECT_EQ(values(right_inverse(a)), values(right_inverse(da))) << to_string(a);
    EXPECT_EQ(values(logical_divide(a, b)), values(logical_divide(da, db))) << to_string(a);
    EXPECT_EQ(values(logical_product(a, b)), values(logical_product(da, db))) << to_string(a);
  };
  check(make_layout(make_shape(Int<4>{}, Int<8>{})), make_layout(Int<4>{}, Int<2>{}));
  check(make_layout(make_shape(Int<8>{}, Int<4>{}), LayoutRight{}), make_layout(make_shape(Int<2>{}, Int<2>{}), make_stride(Int<1>{}, Int<8>{})));
  check(make_layout(make_shape(make_shape(Int<2>{}, Int<2>{}), Int<4>{}), make_stride(make_stride(Int<1>{}, Int<8>{}), Int<2>{})),
        make_layout(Int<8>{}, Int<2>{}));
  check(make_layout(make_shape(Int<4>{}, Int<3>{}), make_stride(Int<3>{}, Int<1>{})), make_layout(Int<3>{}, Int<4>{}));
  check(make_layout(make_shape(Int<2>{}, Int<4>{}), make_stride(Int<0>{}, Int<1>{})), make_layout(Int<2>{}, Int<1>{}));
  auto st = make_layout(make_shape(Int<4>{}, Int<2>{}), make_stride(Int<2>{}, Int<8>{}));
  EXPECT_EQ(values(left_inverse(st)), values(left_inverse(dynamic(st))));
}

}  // namespace
}  // namespace tessel
