// validate() of the three conv2d directions and the run functions' refusals: checked on the
// host, no launch. dgrad and wgrad share one typed suite (the tensors' names and sizes differ),
// with dgrad's bias on its own.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"  // data_type_bytes, data_type_name

namespace tessel {
namespace {

void* address(std::uintptr_t a) { return reinterpret_cast<void*>(a); }

// A valid 1x8x8x16 -> 32 3x3 problem with distant, aligned buffers.
Conv2dArguments valid_args() {
  Conv2dArguments args;
  args.problem.n = 1, args.problem.h = 8, args.problem.w = 8, args.problem.c = 16;
  args.problem.k = 32, args.problem.r = 3, args.problem.s = 3,
  args.problem.pad_h = args.problem.pad_w = 1;
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

TEST(Conv2dArguments, ZeroGroupsIsAnErrorNotACrash) {
  Conv2dArguments args = valid_args();
  args.problem.groups = 0;
  const Status s = validate(args);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("groups = 0 must be at least 1"), std::string::npos) << s.message();
}

TEST(Conv2dArguments, Conv2dFpropRefusesBeforeTouchingTheGpu) {
  Conv2dArguments args = valid_args();
  args.x = nullptr;
  EXPECT_EQ(conv2d_fprop(args, nullptr).code(), StatusCode::kInvalidArgument);
}

// ---- dgrad and wgrad ----

// The backward tests' problem: N=2, 8x8, C=16 -> K=32, 3x3, pad 1, stride 2 (P = Q = 4),
// 2 groups. Element counts, for the overlap boundaries below:
//   X, dX  2*8*8*16 = 2048    Y, dY  2*4*4*32 = 1024    W, dW  32*3*3*(16/2) = 2304
Conv2dProblem backward_problem() {
  Conv2dProblem pb;
  pb.n = 2, pb.h = 8, pb.w = 8, pb.c = 16, pb.k = 32, pb.r = 3, pb.s = 3;
  pb.pad_h = pb.pad_w = 1, pb.stride_h = pb.stride_w = 2, pb.groups = 2;
  return pb;
}
constexpr long long kActivationElements = 2048, kOutputElements = 1024, kFilterElements = 2304;

// Inputs at 1 MiB and 2 MiB, the output at 3 MiB: far apart, 16-byte aligned.
constexpr std::uintptr_t kInput0 = 1 << 20, kInput1 = 2 << 20, kOutput = 3 << 20;

// What differs between dgrad and wgrad: the tensors' names and sizes, the run function.
struct Dgrad {
  using Args = Conv2dDgradArguments;
  static constexpr const char* kDirection = "dgrad";
  static constexpr const char* kInputNames[2] = {"dy", "w"};
  static constexpr long long kInputElements[2] = {kOutputElements, kFilterElements};
  static constexpr const char* kOutputName = "dx";
  static constexpr long long kOutputTensorElements = kActivationElements;
  static const void*& input(Args& a, int i) { return i == 0 ? a.dy : a.w; }
  static void*& output(Args& a) { return a.dx; }
  static Status run(const Args& a) { return conv2d_dgrad(a, nullptr); }
};
struct Wgrad {
  using Args = Conv2dWgradArguments;
  static constexpr const char* kDirection = "wgrad";
  static constexpr const char* kInputNames[2] = {"dy", "x"};
  static constexpr long long kInputElements[2] = {kOutputElements, kActivationElements};
  static constexpr const char* kOutputName = "dw";
  static constexpr long long kOutputTensorElements = kFilterElements;
  static const void*& input(Args& a, int i) { return i == 0 ? a.dy : a.x; }
  static void*& output(Args& a) { return a.dw; }
  static Status run(const Args& a) { return conv2d_wgrad(a, nullptr); }
};

template <class Direction>
class Conv2dBackwardArguments : public ::testing::Test {
 protected:
  using D = Direction;
  using Args = typename Direction::Args;

  // Valid: f16 in, f32 out, beta 0, no residual (and for dgrad no bias).
  static Args valid() {
    Args args;
    args.problem = backward_problem();
    D::input(args, 0) = address(kInput0);
    D::input(args, 1) = address(kInput1);
    D::output(args) = address(kOutput);
    return args;
  }
  // The input's first address.
  static std::uintptr_t input_at(int i) { return i == 0 ? kInput0 : kInput1; }

  // validate() fails with `code` and its message contains "<direction>: <text>".
  static void expect_error(const Args& args, StatusCode code, const std::string& text) {
    const Status s = validate(args);
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(std::string(D::kDirection) + ": " + text), std::string::npos)
        << "missing \"" << D::kDirection << ": " << text << "\" in: " << s.message();
  }
  static void expect_ok(const Args& args) {
    const Status s = validate(args);
    EXPECT_TRUE(s.ok()) << s.message();
  }
};

struct DirectionName {
  template <class T>
  static std::string GetName(int) {
    return T::kDirection;
  }
};
using Directions = ::testing::Types<Dgrad, Wgrad>;
TYPED_TEST_SUITE(Conv2dBackwardArguments, Directions, DirectionName);

TYPED_TEST(Conv2dBackwardArguments, ValidArgumentsPass) {
  auto args = this->valid();
  this->expect_ok(args);
  args.input_type = DataType::kBF16, args.output_type = DataType::kBF16;
  this->expect_ok(args);
  args.output_type = DataType::kF16, args.alpha = -2.0f, args.beta = 0.5f;
  args.residual = address(4 << 20);
  this->expect_ok(args);
}

// The problem is checked before anything else: broken problem, null tensors and a garbage type
// report the problem.
TYPED_TEST(Conv2dBackwardArguments, ProblemErrorsComeFirst) {
  using D = typename TestFixture::D;
  auto args = this->valid();
  args.problem.groups = 3;  // C = 16 is not a multiple
  D::input(args, 0) = nullptr, D::input(args, 1) = nullptr, D::output(args) = nullptr;
  args.input_type = DataType(9);
  Status s = validate(args);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("C = 16 is not a multiple of groups = 3"), std::string::npos)
      << s.message();
  args = this->valid();
  args.problem.r = 12;  // 12 rows on 8 + 2*1: P < 1
  D::input(args, 1) = address(kInput1 + 1);
  s = validate(args);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("output height P"), std::string::npos) << s.message();
  args = this->valid();
  args.problem.n = 200000000;  // N*H*W*C >= 2^31
  D::output(args) = nullptr;
  EXPECT_EQ(validate(args).code(), StatusCode::kNotSupported) << validate(args).message();
}

// groups = 0 is a problem error like any other: a status, not a division by zero while sizing
// the tensors (C/groups) before the problem is checked.
TYPED_TEST(Conv2dBackwardArguments, ZeroGroupsIsAnErrorNotACrash) {
  auto args = this->valid();
  args.problem.groups = 0;
  const Status s = validate(args);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("groups = 0 must be at least 1"), std::string::npos) << s.message();
}

TYPED_TEST(Conv2dBackwardArguments, NullTensorsAreNamed) {
  using D = typename TestFixture::D;
  for (int i = 0; i < 2; ++i) {
    auto args = this->valid();
    D::input(args, i) = nullptr;
    this->expect_error(args, StatusCode::kInvalidArgument,
                       std::string(D::kInputNames[i]) + " is null");
  }
  auto args = this->valid();
  D::output(args) = nullptr;
  this->expect_error(args, StatusCode::kInvalidArgument, std::string(D::kOutputName) + " is null");
}

// beta == 0 (either sign) leaves the residual unread; any other beta, NaN included, reads it.
TYPED_TEST(Conv2dBackwardArguments, ResidualIsNeededOnlyWithBeta) {
  auto args = this->valid();
  args.beta = -0.0f;
  this->expect_ok(args);
  for (float beta : {0.5f, -1.0f, std::nanf("")}) {
    args.beta = beta;
    this->expect_error(args, StatusCode::kInvalidArgument,
                       "residual is null but beta != 0 reads it");
  }
}

TYPED_TEST(Conv2dBackwardArguments, UnreadResidualIsNotChecked) {
  auto args = this->valid();
  args.residual = address(kOutput + 2);  // misaligned and inside the output, but beta == 0
  this->expect_ok(args);
}

TYPED_TEST(Conv2dBackwardArguments, ResidualMayBeTheOutputItself) {
  using D = typename TestFixture::D;
  auto args = this->valid();
  args.beta = 1.0f, args.residual = D::output(args);
  this->expect_ok(args);
}

// The residual has the output's shape and type: it may end where the output starts or start
// where it ends, one element further in overlaps.
TYPED_TEST(Conv2dBackwardArguments, ResidualPartlyOverlappingTheOutputIsInvalid) {
  using D = typename TestFixture::D;
  const std::string message = std::string(D::kOutputName) +
                              " overlaps residual; the residual must be " + D::kOutputName +
                              " itself or separate memory";
  for (DataType out : {DataType::kF16, DataType::kF32}) {
    SCOPED_TRACE(data_type_name(out));
    const std::uintptr_t bytes = D::kOutputTensorElements * data_type_bytes(out),
                         elem = data_type_bytes(out);
    auto args = this->valid();
    args.output_type = out, args.beta = 1.0f;
    args.residual = address(kOutput + bytes);
    this->expect_ok(args);
    args.residual = address(kOutput + bytes - elem);
    this->expect_error(args, StatusCode::kInvalidArgument, message);
    args.residual = address(kOutput - bytes);
    this->expect_ok(args);
    args.residual = address(kOutput - bytes + elem);
    this->expect_error(args, StatusCode::kInvalidArgument, message);
    args.residual = address(kOutput + elem);
    this->expect_error(args, StatusCode::kInvalidArgument, message);
  }
}

// The output may touch an input on either side; one element further in, it overlaps it. The
// boundaries are the tensors' sizes: dY has N*P*Q*K elements, not N*H*W*K.
TYPED_TEST(Conv2dBackwardArguments, OutputOverlappingEachInputIsInvalid) {
  using D = typename TestFixture::D;
  for (DataType out : {DataType::kF16, DataType::kF32}) {
    for (int i = 0; i < 2; ++i) {
      SCOPED_TRACE(std::string(data_type_name(out)) + ", " + D::kInputNames[i]);
      const std::string message = std::string(D::kOutputName) + " overlaps " + D::kInputNames[i] +
                                  "; the output must be separate memory";
      const std::uintptr_t begin = this->input_at(i), end = begin + D::kInputElements[i] * 2;
      const std::uintptr_t out_bytes = D::kOutputTensorElements * data_type_bytes(out),
                           elem = data_type_bytes(out);
      auto args = this->valid();
      args.output_type = out;
      D::output(args) = address(end);
      this->expect_ok(args);
      D::output(args) = address(end - elem);
      this->expect_error(args, StatusCode::kInvalidArgument, message);
      D::output(args) = address(begin - out_bytes);
      this->expect_ok(args);
      D::output(args) = address(begin - out_bytes + elem);
      this->expect_error(args, StatusCode::kInvalidArgument, message);
      D::output(args) = address(begin);
      this->expect_error(args, StatusCode::kInvalidArgument, message);
    }
  }
}

// The inputs are only read: they may overlap each other (even be the same memory).
TYPED_TEST(Conv2dBackwardArguments, InputsMayOverlapEachOther) {
  using D = typename TestFixture::D;
  auto args = this->valid();
  D::input(args, 1) = D::input(args, 0);
  this->expect_ok(args);
}

// Each tensor aligned to its element, no more: f16 at 2 bytes, f32 at 4.
TYPED_TEST(Conv2dBackwardArguments, MisalignedTensorsAreReported) {
  using D = typename TestFixture::D;
  for (int i = 0; i < 2; ++i) {
    auto args = this->valid();
    D::input(args, i) = address(this->input_at(i) + 1);
    this->expect_error(args, StatusCode::kMisaligned,
                       std::string(D::kInputNames[i]) + " is not aligned to its 2-byte elements");
    D::input(args, i) = address(this->input_at(i) + 2);
    this->expect_ok(args);
  }
  auto args = this->valid();
  D::output(args) = address(kOutput + 2);
  this->expect_error(args, StatusCode::kMisaligned,
                     std::string(D::kOutputName) + " is not aligned to its 4-byte elements");
  args.output_type = DataType::kBF16;  // 2-byte elements: now aligned
  this->expect_ok(args);
  args = this->valid();
  args.beta = 1.0f, args.residual = address((4 << 20) + 2);
  this->expect_error(args, StatusCode::kMisaligned,
                     "residual is not aligned to its 4-byte elements");
}

TYPED_TEST(Conv2dBackwardArguments, F32InputsAreNotSupported) {
  auto args = this->valid();
  args.input_type = DataType::kF32;
  this->expect_error(args, StatusCode::kNotSupported, "input_type = f32 is not supported");
}

// An enumeration outside its values is invalid, and the message gives the value found.
TYPED_TEST(Conv2dBackwardArguments, GarbageEnumsAreInvalid) {
  auto input = this->valid(), output = this->valid(), mode = this->valid();
  input.input_type = DataType(3);
  output.output_type = DataType(-1);
  mode.problem.mode = ConvMode(2);
  for (auto [args, text] : {std::pair{input, "input_type = 3"},
                            std::pair{output, "output_type = -1"}, std::pair{mode, "mode = 2"}}) {
    const Status s = validate(args);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
    EXPECT_NE(s.message().find(text), std::string::npos)
        << "missing \"" << text << "\" in: " << s.message();
  }
}

// The run function returns validate()'s status, code and message, before it looks for a GPU:
// on a machine without one these are not kNoDevice.
TYPED_TEST(Conv2dBackwardArguments, RunRefusesBadArgumentsBeforeTouchingTheGpu) {
  using D = typename TestFixture::D;
  using Args = typename TestFixture::Args;
  auto null_output = this->valid();
  D::output(null_output) = nullptr;
  auto misaligned = this->valid();
  D::input(misaligned, 0) = address(kInput0 + 1);
  auto overlapping = this->valid();
  D::output(overlapping) = const_cast<void*>(D::input(overlapping, 1));
  auto bad_problem = this->valid();
  bad_problem.problem.stride_h = 0;
  auto f32_inputs = this->valid();
  f32_inputs.input_type = DataType::kF32;
  for (const Args& args : {null_output, misaligned, overlapping, bad_problem, f32_inputs}) {
    const Status expected = validate(args), got = D::run(args);
    ASSERT_FALSE(expected.ok());
    EXPECT_EQ(got.code(), expected.code()) << got.message();
    EXPECT_EQ(got.message(), expected.message());
  }
}

// dgrad's bias: C values of the output type (one per input channel), like any other tensor.
Conv2dDgradArguments valid_dgrad_with_bias() {
  Conv2dDgradArguments args;
  args.problem = backward_problem();
  args.dy = address(kInput0), args.w = address(kInput1), args.dx = address(kOutput);
  args.bias = address(4 << 20);
  args.activation = Activation::kGELU;
  return args;
}

TEST(Conv2dDgradArguments, BiasAndActivationPass) {
  EXPECT_TRUE(validate(valid_dgrad_with_bias()).ok())
      << validate(valid_dgrad_with_bias()).message();
}

// The bias holds C = 16 values: ending where dX starts is fine, one more overlaps.
TEST(Conv2dDgradArguments, BiasOverlappingDxIsInvalid) {
  for (DataType out : {DataType::kF16, DataType::kF32}) {
    SCOPED_TRACE(data_type_name(out));
    const std::uintptr_t elem = data_type_bytes(out), bias_bytes = 16 * elem;
    Conv2dDgradArguments args = valid_dgrad_with_bias();
    args.output_type = out;
    args.bias = address(kOutput - bias_bytes);
    EXPECT_TRUE(validate(args).ok()) << validate(args).message();
    args.bias = address(kOutput - bias_bytes + elem);
    Status s = validate(args);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("dgrad: dx overlaps bias; the output must be separate memory"),
              std::string::npos)
        << s.message();
    args.bias = address(kOutput + kActivationElements * elem - elem);  // dX's last element
    EXPECT_EQ(validate(args).code(), StatusCode::kInvalidArgument);
    args.bias = address(kOutput + kActivationElements * elem);  // right after dX
    EXPECT_TRUE(validate(args).ok()) << validate(args).message();
  }
}

TEST(Conv2dDgradArguments, MisalignedBiasIsReported) {
  Conv2dDgradArguments args = valid_dgrad_with_bias();
  args.bias = address((4 << 20) + 2);
  Status s = validate(args);
  EXPECT_EQ(s.code(), StatusCode::kMisaligned);
  EXPECT_NE(s.message().find("dgrad: bias is not aligned to its 4-byte elements"),
            std::string::npos)
      << s.message();
}

TEST(Conv2dDgradArguments, GarbageActivationIsInvalid) {
  for (int activation : {-1, 3}) {
    Conv2dDgradArguments args = valid_dgrad_with_bias();
    args.activation = Activation(activation);
    Status s = validate(args);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("dgrad: activation = " + std::to_string(activation)),
              std::string::npos)
        << s.message();
  }
}

}  // namespace
}  // namespace tessel
