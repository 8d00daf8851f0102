// plan(): which kernel gemm() would run, decided on the host (without a GPU it plans for an
// H100's 132 SMs). Checked here without launching anything; the same decisions run on the
// GPU in tests/device/gemm_api_device_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>

#include "tessel/runtime/gemm.hpp"

namespace tessel {
namespace {

void* address(std::uintptr_t a) { return reinterpret_cast<void*>(a); }

// M x N x K, A row-major, B column-major, D row-major, all packed and 16-byte aligned.
GemmArguments packed(int m, int n, int k) {
  GemmArguments args;
  args.m = m, args.n = n, args.k = k;
  args.lda = k, args.ldb = k, args.ldd = n;
  args.a = address(std::uintptr_t(1) << 36), args.b = address(std::uintptr_t(2) << 36);
  args.d = address(std::uintptr_t(3) << 36);
  return args;
}

GemmPlan plan_of(GemmArguments const& args) {
  GemmPlan p;
  Status s = plan(args, &p);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

TEST(GemmPlan, TileMultiplesRunTheInteriorKernel) {
  GemmPlan p = plan_of(packed(1024, 1024, 1024));
  EXPECT_EQ(p.variant, "interior");
  EXPECT_EQ(p.access, "16B");
  EXPECT_FALSE(p.swapped);
  EXPECT_EQ(p.split_k, 1);
}

TEST(GemmPlan, RaggedSizesRunTheEdgeKernel) { EXPECT_EQ(plan_of(packed(1000, 1000, 1000)).variant, "edge"); }

TEST(GemmPlan, OddKPackedRowsTakeTheNarrowPath) { EXPECT_EQ(plan_of(packed(256, 256, 33)).access, "2B"); }

TEST(GemmPlan, AnOffsetPointerTakesTheNarrowPath) {
  GemmArguments args = packed(256, 256, 256);
  args.a = address((std::uintptr_t(1) << 36) + 2);  // element-aligned, not 16-byte aligned
  EXPECT_EQ(plan_of(args).access, "2B");
}

TEST(GemmPlan, ColumnMajorDIsComputedTransposed) {
  GemmArguments args = packed(256, 512, 256);
  args.d_layout = MatrixLayout::kColumnMajor, args.ldd = 256;
  EXPECT_TRUE(plan_of(args).swapped);
}

TEST(GemmPlan, DeepKWithFewTilesIsSplit) {
  GemmPlan p = plan_of(packed(256, 256, 65536));
  EXPECT_GT(p.split_k, 1);
  EXPECT_NE(p.variant.find("+splitk" + std::to_string(p.split_k)), std::string::npos) << p.variant;
}

TEST(GemmPlan, ShortKOrManyTilesIsNotSplit) {
  EXPECT_EQ(plan_of(packed(256, 256, 1024)).split_k, 1);   // K below 2048
  EXPECT_EQ(plan_of(packed(4096, 4096, 8192)).split_k, 1);  // tiles fill the GPU
}

TEST(GemmPlan, EveryConfigurationCanBeForced) {
  for (auto const& name : gemm_config_names()) {
    GemmArguments args = packed(512, 512, 512);
    args.config = name;
    EXPECT_EQ(plan_of(args).config, name);
  }
}

TEST(GemmPlan, NullOutIsAnInvalidArgument) {
  EXPECT_EQ(plan(packed(64, 64, 64), nullptr).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessel
