// validate(Conv2dArguments) and conv2d_fprop's refusals: checked on the host, no launch.
#include <gtest/gtest.h>

#include <cstdint>

#include "tessel/runtime/conv2d.hpp"

namespace tessel {
namespace {

void* address(std::uintptr_t a) { return reinterpret_cast<void*>(a); }

// A valid 1x8x8x16 -> 32 3x3 problem with distant, aligned buffers.
Conv2dArguments valid_args() {
  Conv2dArguments args;
  args.problem.n = 1, args.problem.h = 8, args.problem.w = 8, args.problem.c = 16;
  args.problem.k = 32, args.problem.r = 3, args.problem.s = 3, args.problem.pad_h = args.problem.pad_w = 1;
  args.x = address(1 << 20), args.w = address(2 << 20), args.y = address(3 << 20);
  return args;
}

TEST(Conv2dArguments, ValidArgumentsPass) { EXPECT_TRUE(validate(valid_args()).ok()); }

TEST(Conv2dArguments, ProblemErrorsComeFirst) {
  Conv2dArguments args = valid_args();
  args.problem.r = 20;  // P < 1
  Status s = validate(args);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("P"), std::string::npos) << s.message();
}

TEST(Conv2dArguments, NullTensorsAreNamed) {
  for (int which = 0; which < 3; ++which) {
    Conv2dArguments args = valid_args();
    if (which == 0) args.x = nullptr;
    if (which == 1) args.w = nullptr;
    if (which == 2) args.y = nullptr;
    const std::string name = which == 0 ? "x" : which == 1 ? "w" : "y";
    Status s = validate(args);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find(name + " is null"), std::string::npos) << s.message();
  }
}

TEST(Conv2dArguments, ResidualIsNeededOnlyWithBeta) {
  Conv2dArguments args = valid_args();
  args.beta = 0.5f;
  EXPECT_EQ(validate(args).code(), StatusCode::kInvalidArgument);
  args.residual = args.y;  // the output itself: allowed
  EXPECT_TRUE(validate(args).ok()) << validate(args).message();
}

TEST(Conv2dArguments, F32InputsAreNotSupported) {
  Conv2dArguments args = valid_args();
  args.input_type = DataType::kF32;
  EXPECT_EQ(validate(args).code(), StatusCode::kNotSupported);
}

TEST(Conv2dArguments, GarbageEnumsAreInvalid) {
  Conv2dArguments args = valid_args();
  args.output_type = DataType(7);
  EXPECT_EQ(validate(args).code(), StatusCode::kInvalidArgument);
  args = valid_args();
  args.activation = Activation(-1);
  EXPECT_EQ(validate(args).code(), StatusCode::kInvalidArgument);
}

TEST(Conv2dArguments, MisalignedTensorsAreReported) {
  Conv2dArguments args = valid_args();
  args.x = address((1 << 20) + 1);
  EXPECT_EQ(validate(args).code(), StatusCode::kMisaligned);
}

TEST(Conv2dArguments, OutputOverlappingAnInputIsInvalid) {
  Conv2dArguments args = valid_args();
  args.y = const_cast<void*>(args.x);
  EXPECT_EQ(validate(args).code(), StatusCode::kInvalidArgument);
  args = valid_args();
  args.beta = 1.0f, args.residual = static_cast<const char*>(args.y) + 4;  // part of y
  EXPECT_EQ(validate(args).code(), StatusCode::kInvalidArgument);
}

TEST(Conv2dArguments, Conv2dFpropRefusesBeforeTouchingTheGpu) {
  Conv2dArguments args = valid_args();
  args.x = nullptr;
  EXPECT_EQ(conv2d_fprop(args, nullptr).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessel
