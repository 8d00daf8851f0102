// Conv2dProblem: output sizes, the implicit GEMMs' extents, and every validation error path.
#include <gtest/gtest.h>

#include <string>

#include "tessel/conv/problem.hpp"
#include "tessel/runtime/conv2d_problem_check.hpp"

namespace tessel {
namespace {

// The ResNet-50 stem at N = 32: 224x224x3, 64 filters 7x7, stride 2, pad 3.
Conv2dProblem resnet50_stem() {
  Conv2dProblem pb;
  pb.n = 32, pb.h = 224, pb.w = 224, pb.c = 3, pb.k = 64, pb.r = 7, pb.s = 7;
  pb.pad_h = 3, pb.pad_w = 3, pb.stride_h = 2, pb.stride_w = 2;
  return pb;
}

// A valid problem small enough to break one field at a time.
Conv2dProblem small_problem() {
  Conv2dProblem pb;
  pb.n = 2, pb.h = 5, pb.w = 6, pb.c = 8, pb.k = 4, pb.r = 3, pb.s = 3, pb.pad_h = 1, pb.pad_w = 1;
  return pb;
}

// The message contains every piece, e.g. the field name, its value and what was expected.
void expect_error(const Conv2dProblem& pb, StatusCode code,
                  std::initializer_list<const char*> pieces) {
  Status status = validate(pb);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), code) << status.message();
  for (const char* piece : pieces) {
    EXPECT_NE(status.message().find(piece), std::string::npos)
        << "missing \"" << piece << "\" in: " << status.message();
  }
}

TEST(Conv2dProblemOutputSize, ResNet50StemIs112x112) {
  Conv2dProblem pb = resnet50_stem();
  EXPECT_EQ(pb.p(), 112);
  EXPECT_EQ(pb.q(), 112);
}

TEST(Conv2dProblemOutputSize, SamePadding3x3KeepsTheSize) {
  Conv2dProblem pb = small_problem();  // 5x6, 3x3, pad 1, stride 1
  EXPECT_EQ(pb.p(), 5);
  EXPECT_EQ(pb.q(), 6);
}

TEST(Conv2dProblemOutputSize, StrideRoundsDown) {
  Conv2dProblem pb;
  pb.h = 8, pb.w = 9, pb.r = 3, pb.s = 3, pb.stride_h = 2, pb.stride_w = 3;
  EXPECT_EQ(pb.p(), 3);  // (8 - 2 - 1) / 2 + 1
  EXPECT_EQ(pb.q(), 3);  // (9 - 2 - 1) / 3 + 1
}

TEST(Conv2dProblemOutputSize, DilationWidensTheFilter) {
  Conv2dProblem pb;
  pb.h = 10, pb.w = 10, pb.r = 3, pb.s = 2, pb.dilation_h = 2, pb.dilation_w = 4, pb.pad_w = 1;
  EXPECT_EQ(pb.p(), 6);  // 10 - 2*2 - 1 + 1
  EXPECT_EQ(pb.q(), 8);  // 10 + 2 - 4*1 - 1 + 1
}

TEST(Conv2dProblemOutputSize, TooLargeAFilterGivesFloorBelowOne) {
  Conv2dProblem pb;
  pb.h = 5, pb.r = 7, pb.w = 5, pb.s = 8, pb.stride_w = 2;
  EXPECT_EQ(pb.p(), -1);  // (5 - 6 - 1) / 1 + 1
  EXPECT_EQ(pb.q(), -1);  // floor((5 - 7 - 1) / 2) + 1 = -2 + 1
}

TEST(Conv2dProblemGemmExtents, FpropOfTheStem) {
  ConvGemmExtents e = fprop_gemm_extents(resnet50_stem());
  EXPECT_EQ(e.m, 32LL * 112 * 112);  // N*P*Q
  EXPECT_EQ(e.n, 64);                // K
  EXPECT_EQ(e.k, 7 * 7 * 3);         // R*S*C
}

TEST(Conv2dProblemGemmExtents, DgradOfTheStem) {
  ConvGemmExtents e = dgrad_gemm_extents(resnet50_stem());
  EXPECT_EQ(e.m, 32LL * 224 * 224);  // N*H*W
  EXPECT_EQ(e.n, 3);                 // C
  EXPECT_EQ(e.k, 7 * 7 * 64);        // R*S*K
}

TEST(Conv2dProblemGemmExtents, WgradOfTheStem) {
  ConvGemmExtents e = wgrad_gemm_extents(resnet50_stem());
  EXPECT_EQ(e.m, 64);                // K
  EXPECT_EQ(e.n, 7 * 7 * 3);         // R*S*C
  EXPECT_EQ(e.k, 32LL * 112 * 112);  // N*P*Q
}

TEST(Conv2dProblemGemmExtents, GroupsShortenTheReductionOrTheFilterRow) {
  Conv2dProblem pb = small_problem();  // C = 8, K = 4, 3x3
  pb.groups = 4;
  EXPECT_EQ(fprop_gemm_extents(pb).k, 9 * 2);  // R*S*C/G
  EXPECT_EQ(fprop_gemm_extents(pb).n, 4);      // all K columns, group = k / (K/G)
  EXPECT_EQ(dgrad_gemm_extents(pb).k, 9 * 1);  // R*S*K/G
  EXPECT_EQ(dgrad_gemm_extents(pb).n, 8);      // all C columns
  EXPECT_EQ(wgrad_gemm_extents(pb).n, 9 * 2);  // R*S*C/G
}

TEST(Conv2dProblemValidate, AcceptsTheStem) { EXPECT_TRUE(validate(resnet50_stem()).ok()); }

TEST(Conv2dProblemValidate, AcceptsDepthwiseConvolution) {
  Conv2dProblem pb = small_problem();
  pb.groups = pb.c = pb.k = 8;
  pb.mode = ConvMode::kConvolution;
  EXPECT_TRUE(validate(pb).ok()) << validate(pb).message();
}

TEST(Conv2dProblemValidate, RejectsEachNonPositiveSizeByName) {
  const struct {
    int Conv2dProblem::*field;
    const char* name;
  } fields[] = {{&Conv2dProblem::n, "N = "}, {&Conv2dProblem::h, "H = "},
                {&Conv2dProblem::w, "W = "}, {&Conv2dProblem::c, "C = "},
                {&Conv2dProblem::k, "K = "}, {&Conv2dProblem::r, "R = "},
                {&Conv2dProblem::s, "S = "}};
  for (const auto& f : fields) {
    for (int bad : {0, -3}) {
      SCOPED_TRACE(std::string(f.name) + std::to_string(bad));
      Conv2dProblem pb = small_problem();
      pb.*f.field = bad;
      expect_error(pb, StatusCode::kInvalidArgument,
                   {f.name, std::to_string(bad).c_str(), "must be at least 1"});
    }
  }
}

TEST(Conv2dProblemValidate, RejectsANegativePad) {
  Conv2dProblem pb = small_problem();
  pb.pad_w = -1;
  expect_error(pb, StatusCode::kInvalidArgument, {"pad_w = -1", "must be at least 0"});
}

TEST(Conv2dProblemValidate, RejectsAStrideBelowOne) {
  Conv2dProblem pb = small_problem();
  pb.stride_h = 0;
  expect_error(pb, StatusCode::kInvalidArgument, {"stride_h = 0", "must be at least 1"});
}

TEST(Conv2dProblemValidate, RejectsADilationBelowOne) {
  Conv2dProblem pb = small_problem();
  pb.dilation_w = -2;
  expect_error(pb, StatusCode::kInvalidArgument, {"dilation_w = -2", "must be at least 1"});
}

TEST(Conv2dProblemValidate, RejectsAnUnknownMode) {
  Conv2dProblem pb = small_problem();
  pb.mode = static_cast<ConvMode>(7);
  expect_error(pb, StatusCode::kInvalidArgument, {"mode = 7", "kCrossCorrelation"});
}

TEST(Conv2dProblemValidate, RejectsGroupsBelowOne) {
  Conv2dProblem pb = small_problem();
  pb.groups = 0;
  expect_error(pb, StatusCode::kInvalidArgument, {"groups = 0", "must be at least 1"});
}

TEST(Conv2dProblemValidate, RejectsChannelsNotDivisibleByGroups) {
  Conv2dProblem pb = small_problem();
  pb.c = 6, pb.k = 12, pb.groups = 4;
  expect_error(pb, StatusCode::kInvalidArgument,
               {"C = 6 is not a multiple of groups = 4", "C/groups"});
}

TEST(Conv2dProblemValidate, RejectsFiltersNotDivisibleByGroups) {
  Conv2dProblem pb = small_problem();
  pb.c = 8, pb.k = 6, pb.groups = 4;
  expect_error(pb, StatusCode::kInvalidArgument,
               {"K = 6 is not a multiple of groups = 4", "K/groups"});
}

TEST(Conv2dProblemValidate, RejectsOutputHeightBelowOneWithTheFormulaAndValues) {
  Conv2dProblem pb = small_problem();
  pb.h = 5, pb.r = 7, pb.pad_h = 0;
  expect_error(
      pb, StatusCode::kInvalidArgument,
      {"output height P = (H + 2*pad_h - dilation_h*(R-1) - 1) / stride_h + 1",
       "(5 + 2*0 - 1*(7-1) - 1) / 1 + 1 = -1 is below 1", "= 7 rows", "H + 2*pad_h = 5 rows"});
}

TEST(Conv2dProblemValidate, RejectsOutputWidthBelowOneWithTheFormulaAndValues) {
  Conv2dProblem pb = small_problem();
  pb.w = 4, pb.s = 2, pb.dilation_w = 5, pb.pad_w = 0;
  expect_error(pb, StatusCode::kInvalidArgument,
               {"output width Q = (W + 2*pad_w - dilation_w*(S-1) - 1) / stride_w + 1",
                "(4 + 2*0 - 5*(2-1) - 1) / 1 + 1 = -1 is below 1", "= 6 columns"});
}

TEST(Conv2dProblemValidate, ReportsTheFirstBrokenRule) {
  Conv2dProblem pb = small_problem();
  pb.pad_h = -1, pb.groups = 0, pb.n = 0;  // size before pad before groups
  expect_error(pb, StatusCode::kInvalidArgument, {"N = 0"});
}

TEST(Conv2dProblemValidate, RejectsAnActivationOf2To31Elements) {
  Conv2dProblem pb;
  pb.n = 1 << 16, pb.h = 256, pb.w = 256, pb.c = 1;
  expect_error(
      pb, StatusCode::kNotSupported,
      {"the activation has N*H*W*C = 65536*256*256*1 = 4294967296 elements", "at most 2^31-1"});
}

TEST(Conv2dProblemValidate, RejectsAPaddedActivationOf2To31Elements) {
  Conv2dProblem pb;
  pb.pad_h = pb.pad_w = 1 << 15;  // a 1x1 image padded to 65537x65537
  expect_error(pb, StatusCode::kNotSupported,
               {"the padded activation has N*(H+2*pad_h)*(W+2*pad_w)*C", "= 4295098369"});
}

TEST(Conv2dProblemValidate, RejectsAnOutputOf2To31Elements) {
  Conv2dProblem pb;
  pb.h = pb.w = 64, pb.k = 1 << 20;  // output 64*64*2^20 = 2^32
  expect_error(pb, StatusCode::kNotSupported, {"the output has N*P*Q*K", "= 4294967296"});
}

TEST(Conv2dProblemValidate, RejectsAFilterOf2To31Elements) {
  Conv2dProblem pb;
  pb.c = pb.k = 1 << 16;  // filter 2^16 * 2^16
  expect_error(pb, StatusCode::kNotSupported, {"the filter has K*R*S*(C/groups)", "4294967296"});
}

TEST(Conv2dProblemValidate, CountsBeyond64BitsWithoutOverflowing) {
  Conv2dProblem pb;
  pb.n = pb.h = pb.w = pb.c = 1 << 30;
  expect_error(pb, StatusCode::kNotSupported, {"more than 2^63"});
}

}  // namespace
}  // namespace tessel
