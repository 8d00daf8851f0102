// The compile-time algebra (include/tessel/layout) and the run-time one behind tessel-layout
// (tools/layout) must not drift apart:
//  * fully static layouts: the printed results are identical, over generated cases;
//  * dynamic integers over random layouts: both succeed with the same function (the
//    compile-time result may keep extra size-1 modes), or both reject the input.
#include <cstdint>
#include <optional>
#include <set>

#include "expression.hpp"
#include "runtime_algebra.hpp"
#include "test_util.hpp"

namespace tessel {
namespace {

std::string runtime_result(std::string const& expr) {
  try {
    return rt::to_string(rt::evaluate(expr));
  } catch (std::exception const& e) {
    return std::string("error: ") + e.what();
  }
}

// ---- static cases: generated at compile time -----------------------------------------------

constexpr uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
constexpr int pick(int seed, int slot, int lo, int hi) {
  return lo + int(mix(uint32_t(seed) * 977U + uint32_t(slot)) % uint32_t(hi - lo + 1));
}

// An injective, complementable static layout of flat rank 3 whose modes are stacked in a
// seed-chosen order with seed-chosen gaps; Nested groups the first two modes.
template <int Seed, bool Nested>
constexpr auto generated_layout() {
  constexpr int s0 = pick(Seed, 0, 1, 4), s1 = pick(Seed, 1, 1, 4), s2 = pick(Seed, 2, 1, 4);
  constexpr int p = pick(Seed, 3, 0, 5);  // one of the 6 stacking orders
  constexpr int g0 = pick(Seed, 4, 1, 3), g1 = pick(Seed, 5, 1, 2), g2 = pick(Seed, 6, 1, 2);
  constexpr int order[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  constexpr int sizes[3] = {s0, s1, s2};
  constexpr auto strides = [&] {
    std::array<int, 3> d{};
    int extent = 1;
    int gaps[3] = {g0, g1, g2};
    for (int k = 0; k < 3; ++k) {
      int m = order[p][k];
      d[m] = extent * gaps[k];
      extent = d[m] * sizes[m];
    }
    return d;
  }();
  if constexpr (Nested) {
    return make_layout(make_shape(make_shape(Int<s0>{}, Int<s1>{}), Int<s2>{}),
                       make_stride(make_stride(Int<strides[0]>{}, Int<strides[1]>{}), Int<strides[2]>{}));
  } else {
    return make_layout(make_shape(Int<s0>{}, Int<s1>{}, Int<s2>{}),
                       make_stride(Int<strides[0]>{}, Int<strides[1]>{}, Int<strides[2]>{}));
  }
}

template <int Seed, bool Nested>
void check_generated(int& compared) {
  constexpr auto a = generated_layout<Seed, Nested>();
  std::string t = to_string(a);
  auto same = [&](std::string const& expr, auto const& result) {
    EXPECT_EQ(to_string(result), runtime_result(expr)) << expr;
    ++compared;
  };
  same("coalesce(" + t + ")", coalesce(a));
  same("filter(" + t + ")", filter(a));
  same("complement(" + t + ")", complement(a));
  same("complement(" + t + ", " + std::to_string(2 * cosize(a)) + ")", complement(a, Int<2 * cosize(a)>{}));
  same("right_inverse(" + t + ")", right_inverse(a));
  same("left_inverse(" + t + ")", left_inverse(a));
  same("composition(" + t + ", " + std::to_string(size(a)) + ")", composition(a, size(a)));
  same("zipped_divide(" + t + ", " + to_string(make_layout(size(a))) + ")",
       zipped_divide(a, make_layout(size(a))));
  same("logical_product(" + to_string(make_layout(shape(a))) + ", 2:1)",
       logical_product(make_layout(shape(a)), make_layout(Int<2>{}, Int<1>{})));
  // A's own right inverse composed back in is always admissible.
  same("composition(" + t + ", " + to_string(right_inverse(a)) + ")", composition(a, right_inverse(a)));
}

TEST(StaticRuntimeAgreement, GeneratedStaticLayoutsPrintTheSame) {
  int compared = 0;
  [&]<int... Seeds>(std::integer_sequence<int, Seeds...>) {
    (check_generated<Seeds, false>(compared), ...);
    (check_generated<Seeds, true>(compared), ...);
  }(std::make_integer_sequence<int, 48>{});
  EXPECT_EQ(compared, 48 * 2 * 10);
}

// Hand-picked static cases for the operations whose admissibility random layouts rarely meet.
TEST(StaticRuntimeAgreement, CuratedStaticCasesPrintTheSame) {
  using _1 = Int<1>;
  using _2 = Int<2>;
  using _3 = Int<3>;
  using _4 = Int<4>;
  using _8 = Int<8>;
  auto same = [](std::string const& expr, auto const& result) {
    EXPECT_EQ(to_string(result), runtime_result(expr)) << expr;
  };
  auto a = make_layout(make_shape(Int<6>{}, _2{}), make_stride(_8{}, _2{}));
  auto b = make_layout(make_shape(_4{}, _3{}), make_stride(_3{}, _1{}));
  same("composition((6,2):(8,2), (4,3):(3,1))", composition(a, b));
  same("composition(20:2, (5,4):(4,1))",
       composition(make_layout(Int<20>{}, _2{}), make_layout(make_shape(Int<5>{}, _4{}), make_stride(_4{}, _1{}))));
  same("composition((12,(4,8)):(59,(13,1)), [3:4, 8:2])",
       composition(make_layout(make_shape(Int<12>{}, make_shape(_4{}, _8{})), make_stride(Int<59>{}, make_stride(Int<13>{}, _1{}))),
                   make_tuple(make_layout(_3{}, _4{}), make_layout(_8{}, _2{}))));
  same("composition((4,3):(1,10), 5:4)",
       composition(make_layout(make_shape(_4{}, _3{}), make_stride(_1{}, Int<10>{})), make_layout(Int<5>{}, _4{})));
  same("composition((4,3):(1,10), 3:0)",
       composition(make_layout(make_shape(_4{}, _3{}), make_stride(_1{}, Int<10>{})), make_layout(_3{}, Int<0>{})));
  auto m = make_layout(make_shape(Int<12>{}, _8{}));
  same("logical_divide((12,8):(1,12), [3,4])", logical_divide(m, make_tuple(_3{}, _4{})));
  same("zipped_divide((12,8):(1,12), [3,4])", zipped_divide(m, make_tuple(_3{}, _4{})));
  same("tiled_divide((12,8):(1,12), [3,4])", tiled_divide(m, make_tuple(_3{}, _4{})));
  same("flat_divide((12,8):(1,12), [3,4])", flat_divide(m, make_tuple(_3{}, _4{})));
  same("logical_divide((4,2,3):(2,1,8), 4:2)",
       logical_divide(make_layout(make_shape(_4{}, _2{}, _3{}), make_stride(_2{}, _1{}, _8{})), make_layout(_4{}, _2{})));
  same("zipped_divide((4,2,3):(2,1,8), 4:2)",
       zipped_divide(make_layout(make_shape(_4{}, _2{}, _3{}), make_stride(_2{}, _1{}, _8{})), make_layout(_4{}, _2{})));
  auto blk = make_layout(make_shape(_2{}, _2{}));
  auto til = make_tuple(make_layout(_3{}), make_layout(_4{}));
  same("logical_product((2,2):(1,2), [3:1,4:1])", logical_product(blk, til));
  same("zipped_product((2,2):(1,2), [3:1,4:1])", zipped_product(blk, til));
  same("tiled_product((2,2):(1,2), [3:1,4:1])", tiled_product(blk, til));
  same("flat_product((2,2):(1,2), [3:1,4:1])", flat_product(blk, til));
  same("blocked_product((2,5):(5,1), (3,4):(1,3))",
       blocked_product(make_layout(make_shape(_2{}, Int<5>{}), make_stride(Int<5>{}, _1{})),
                       make_layout(make_shape(_3{}, _4{}), make_stride(_1{}, _3{}))));
  same("raked_product((2,5):(5,1), (3,4):(1,3))",
       raked_product(make_layout(make_shape(_2{}, Int<5>{}), make_stride(Int<5>{}, _1{})),
                     make_layout(make_shape(_3{}, _4{}), make_stride(_1{}, _3{}))));
  same("blocked_product(4:1, 3:4)", blocked_product(make_layout(_4{}, _1{}), make_layout(_3{}, _4{})));
  same("raked_product((2,2):(1,2), 3:1)", raked_product(blk, make_layout(_3{}, _1{})));
  same("composition((1,1,1):(3,3,3), 1:1)",
       composition(make_layout(make_shape(_1{}, _1{}, _1{}), make_stride(_3{}, _3{}, _3{})), make_layout(_1{}, _1{})));
  same("tile_to_shape((2,2):(1,2), (4,6))", tile_to_shape(blk, make_shape(_4{}, Int<6>{})));
  same("tile_to_shape((8,64):(64,1), (128,64,3))",
       tile_to_shape(make_layout(make_shape(_8{}, Int<64>{}), LayoutRight{}), make_shape(Int<128>{}, Int<64>{}, _3{})));
  same("composition(Sw<3,3,3>, (8,64):(64,1))",
       composition(Swizzle<3, 3, 3>{}, make_layout(make_shape(_8{}, Int<64>{}), LayoutRight{})));
  same("coalesce(((2,2),(3,4)):((1,2),(8,24)), (1,1))",
       coalesce(make_layout(make_shape(make_shape(_2{}, _2{}), make_shape(_3{}, _4{})),
                            make_stride(make_stride(_1{}, _2{}), make_stride(_8{}, Int<24>{}))),
                make_shape(_1{}, _1{})));
}

// ---- dynamic integers over random layouts --------------------------------------------------

// The run-time function of an expression, or nothing when it is rejected.
std::optional<std::vector<long long>> runtime_values(std::string const& expr) {
  try {
    rt::Value v = rt::evaluate(expr);
    std::vector<long long> out;
    if (auto* l = std::get_if<rt::Layout>(&v)) {
      for (int64_t i = 0; i < l->size(); ++i) out.push_back((*l)(i));
      return out;
    }
    ADD_FAILURE() << expr << " did not give a layout";
  } catch (rt::ExpressionError const&) {
  }
  return std::nullopt;
}

template <class F>
std::optional<std::vector<long long>> static_values(F&& f) {
  try {
    return test::values(f());
  } catch (LayoutError const&) {
    return std::nullopt;
  }
}

TEST(StaticRuntimeAgreement, RandomDynamicLayoutsGiveTheSameFunctionsAndErrors) {
  const auto skeletons = make_tuple(0, make_shape(0, 0), make_shape(make_shape(0, 0), 0),
                                    make_shape(0, make_shape(0, 0), 0));
  int both_ok = 0, both_rejected = 0;
  for_each(skeletons, [&](auto ka) {
    for_each(skeletons, [&](auto kb) {
      test::Rng rng(9000 + both_ok);
      for (int c = 0; c < 150; ++c) {
        auto a = test::random_layout(ka, rng);
        auto b = test::random_layout(kb, rng);
        std::string ta = to_string(a), tb = to_string(b);
        auto check = [&](std::string const& expr, auto&& f) {
          auto s = static_values(f);
          auto r = runtime_values(expr);
          ASSERT_EQ(s.has_value(), r.has_value())
              << expr << ": compile-time " << (s ? "accepts" : "rejects") << ", run-time "
              << (r ? "accepts" : "rejects") << " (" << runtime_result(expr) << ")";
          if (s) {
            ASSERT_EQ(*s, *r) << expr << " = " << runtime_result(expr);
            ++both_ok;
          } else {
            ++both_rejected;
          }
        };
        check("coalesce(" + ta + ")", [&] { return coalesce(a); });
        check("filter(" + ta + ")", [&] { return filter(a); });
        check("composition(" + ta + "," + tb + ")", [&] { return composition(a, b); });
        check("complement(" + ta + ",64)", [&] { return complement(a, 64); });
        check("right_inverse(" + ta + ")", [&] { return right_inverse(a); });
        check("left_inverse(" + ta + ")", [&] { return left_inverse(a); });
        check("logical_divide(" + ta + "," + tb + ")", [&] { return logical_divide(a, b); });
        check("logical_product(" + ta + "," + tb + ")", [&] { return logical_product(a, b); });
      }
    });
  });
  EXPECT_GT(both_ok, 5000);
  EXPECT_GT(both_rejected, 100);
}

}  // namespace
}  // namespace tessel
