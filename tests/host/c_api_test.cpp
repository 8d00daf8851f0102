// Runs the C99 checks of c_api_test.c as GoogleTests, and checks from C++ what C cannot see:
// tessel_gemm_args_init() and GemmArguments{} agree field by field, likewise the conv2d
// args_init functions and Conv2d*Arguments{}, and the C conv2d functions answer exactly as
// the C++ validate() does on the same arguments (every field reaches its C++ counterpart).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tessel.h"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

// One C function of c_api_test.c: returns null when its behaviour holds, else the failed check.
#define TESSEL_C_API_TEST(name)                       \
  extern "C" const char* c_##name(void);              \
  TEST(CApi, name) {                                  \
    const char* failure = c_##name();                 \
    if (failure != nullptr) ADD_FAILURE() << failure; \
  }

TESSEL_C_API_TEST(init_fills_the_documented_defaults)
TESSEL_C_API_TEST(init_ignores_null)
TESSEL_C_API_TEST(valid_problem_passes)
TESSEL_C_API_TEST(failure_names_the_argument_in_the_last_error)
TESSEL_C_API_TEST(success_clears_the_last_error)
TESSEL_C_API_TEST(last_error_survives_calls_that_return_no_status)
TESSEL_C_API_TEST(null_args_are_an_invalid_argument)
TESSEL_C_API_TEST(enumeration_garbage_is_an_invalid_argument)
TESSEL_C_API_TEST(f32_inputs_are_not_supported)
TESSEL_C_API_TEST(misaligned_pointer_is_misaligned)
TESSEL_C_API_TEST(null_or_empty_config_means_the_heuristic)
TESSEL_C_API_TEST(unknown_config_is_an_invalid_argument)
TESSEL_C_API_TEST(empty_problem_is_a_no_op_without_a_gpu)
TESSEL_C_API_TEST(status_strings_name_each_status)
TESSEL_C_API_TEST(version_matches_the_macros)
TESSEL_C_API_TEST(conv_init_fills_the_documented_defaults)
TESSEL_C_API_TEST(conv_init_ignores_null)
TESSEL_C_API_TEST(conv_valid_arguments_pass)
TESSEL_C_API_TEST(conv_null_args_are_an_invalid_argument)
TESSEL_C_API_TEST(conv_null_tensors_are_named)
TESSEL_C_API_TEST(conv_residual_is_read_only_with_beta)
TESSEL_C_API_TEST(conv_residual_may_be_the_output_itself)
TESSEL_C_API_TEST(conv_misaligned_tensor_is_misaligned)
TESSEL_C_API_TEST(conv_enumeration_garbage_is_an_invalid_argument)
TESSEL_C_API_TEST(conv_f32_inputs_are_not_supported)
TESSEL_C_API_TEST(conv_output_overlapping_an_input_is_invalid)
TESSEL_C_API_TEST(conv_bad_problem_is_an_invalid_argument)
TESSEL_C_API_TEST(conv_zero_sizes_are_invalid)
TESSEL_C_API_TEST(conv_run_functions_refuse_bad_arguments_without_a_gpu)
TESSEL_C_API_TEST(conv_output_size_is_the_formula)
TESSEL_C_API_TEST(conv_output_size_refuses_what_the_run_functions_refuse)

namespace tessel {
namespace {

TEST(CApi, InitFillsTheDefaultsOfGemmArguments) {
  const GemmArguments g;
  tessel_gemm_args_t c;
  tessel_gemm_args_init(&c);
  EXPECT_EQ(c.m, g.m);
  EXPECT_EQ(c.n, g.n);
  EXPECT_EQ(c.k, g.k);
  EXPECT_EQ(c.batch, g.batch);
  EXPECT_EQ(int(c.input_type), int(g.input_type));
  EXPECT_EQ(int(c.output_type), int(g.output_type));
  EXPECT_EQ(c.a, g.a);
  EXPECT_EQ(int(c.a_layout), int(g.a_layout));
  EXPECT_EQ(c.lda, g.lda);
  EXPECT_EQ(c.a_batch_stride, g.a_batch_stride);
  EXPECT_EQ(c.b, g.b);
  EXPECT_EQ(int(c.b_layout), int(g.b_layout));
  EXPECT_EQ(c.ldb, g.ldb);
  EXPECT_EQ(c.b_batch_stride, g.b_batch_stride);
  EXPECT_EQ(c.c, g.c);
  EXPECT_EQ(c.ldc, g.ldc);
  EXPECT_EQ(c.c_batch_stride, g.c_batch_stride);
  EXPECT_EQ(c.d, g.d);
  EXPECT_EQ(int(c.d_layout), int(g.d_layout));
  EXPECT_EQ(c.ldd, g.ldd);
  EXPECT_EQ(c.d_batch_stride, g.d_batch_stride);
  EXPECT_EQ(c.alpha, g.alpha);
  EXPECT_EQ(c.beta, g.beta);
  EXPECT_EQ(c.bias, g.bias);
  EXPECT_EQ(int(c.activation), int(g.activation));
  EXPECT_EQ(c.config, nullptr);
  EXPECT_TRUE(g.config.empty());
}

TEST(CApi, LastErrorIsPerThread) {
  ASSERT_EQ(tessel_gemm_validate(nullptr), TESSEL_ERROR_INVALID_ARGUMENT);
  std::string other_thread_error = "not run";
  std::thread([&] { other_thread_error = tessel_get_last_error(); }).join();
  EXPECT_EQ(other_thread_error, "");
  EXPECT_NE(std::strstr(tessel_get_last_error(), "args is NULL"), nullptr);
}

TEST(CApi, StatusStringsAreTheRuntimesNames) {
  for (int code = TESSEL_SUCCESS; code <= TESSEL_ERROR_INTERNAL; ++code) {
    EXPECT_STREQ(tessel_status_string(tessel_status_t(code)), status_code_name(StatusCode(code)));
  }
}

void expect_same_problem(const tessel_conv2d_problem_t& c, const Conv2dProblem& p) {
  EXPECT_EQ(c.n, p.n);
  EXPECT_EQ(c.h, p.h);
  EXPECT_EQ(c.w, p.w);
  EXPECT_EQ(c.c, p.c);
  EXPECT_EQ(c.k, p.k);
  EXPECT_EQ(c.r, p.r);
  EXPECT_EQ(c.s, p.s);
  EXPECT_EQ(c.pad_h, p.pad_h);
  EXPECT_EQ(c.pad_w, p.pad_w);
  EXPECT_EQ(c.stride_h, p.stride_h);
  EXPECT_EQ(c.stride_w, p.stride_w);
  EXPECT_EQ(c.dilation_h, p.dilation_h);
  EXPECT_EQ(c.dilation_w, p.dilation_w);
  EXPECT_EQ(int(c.mode), int(p.mode));
  EXPECT_EQ(c.groups, p.groups);
}

TEST(CApi, ConvInitFillsTheDefaultsOfTheCppArguments) {
  const Conv2dArguments f;
  tessel_conv2d_fprop_args_t cf;
  tessel_conv2d_fprop_args_init(&cf);
  expect_same_problem(cf.problem, f.problem);
  EXPECT_EQ(int(cf.input_type), int(f.input_type));
  EXPECT_EQ(int(cf.output_type), int(f.output_type));
  EXPECT_EQ(cf.x, f.x);
  EXPECT_EQ(cf.w, f.w);
  EXPECT_EQ(cf.residual, f.residual);
  EXPECT_EQ(cf.y, f.y);
  EXPECT_EQ(cf.alpha, f.alpha);
  EXPECT_EQ(cf.beta, f.beta);
  EXPECT_EQ(cf.bias, f.bias);
  EXPECT_EQ(int(cf.activation), int(f.activation));

  const Conv2dDgradArguments d;
  tessel_conv2d_dgrad_args_t cd;
  tessel_conv2d_dgrad_args_init(&cd);
  expect_same_problem(cd.problem, d.problem);
  EXPECT_EQ(int(cd.input_type), int(d.input_type));
  EXPECT_EQ(int(cd.output_type), int(d.output_type));
  EXPECT_EQ(cd.dy, d.dy);
  EXPECT_EQ(cd.w, d.w);
  EXPECT_EQ(cd.residual, d.residual);
  EXPECT_EQ(cd.dx, d.dx);
  EXPECT_EQ(cd.alpha, d.alpha);
  EXPECT_EQ(cd.beta, d.beta);
  EXPECT_EQ(cd.bias, d.bias);
  EXPECT_EQ(int(cd.activation), int(d.activation));

  const Conv2dWgradArguments w;
  tessel_conv2d_wgrad_args_t cw;
  tessel_conv2d_wgrad_args_init(&cw);
  expect_same_problem(cw.problem, w.problem);
  EXPECT_EQ(int(cw.input_type), int(w.input_type));
  EXPECT_EQ(int(cw.output_type), int(w.output_type));
  EXPECT_EQ(cw.dy, w.dy);
  EXPECT_EQ(cw.x, w.x);
  EXPECT_EQ(cw.residual, w.residual);
  EXPECT_EQ(cw.dw, w.dw);
  EXPECT_EQ(cw.alpha, w.alpha);
  EXPECT_EQ(cw.beta, w.beta);
}

// The same arguments, once as C and once as C++, written field by field by the test (not by
// the library's converters). The C call must answer exactly as the C++ validate(): a field
// that did not reach its C++ counterpart (dropped, swapped with another) changes the answer
// for some variant below.
struct ConvPair {
  tessel_conv2d_fprop_args_t cf;
  tessel_conv2d_dgrad_args_t cd;
  tessel_conv2d_wgrad_args_t cw;
  Conv2dArguments f;
  Conv2dDgradArguments d;
  Conv2dWgradArguments w;
};

void* address(std::uintptr_t a) { return reinterpret_cast<void*>(a); }

// Sets one problem field (by index, 0..14) to `value` in both the C and the C++ problem.
void set_problem_field(tessel_conv2d_problem_t& c, Conv2dProblem& p, int field, int value) {
  int* c_fields[] = {&c.n,        &c.h,          &c.w,          &c.c,     &c.k,
                     &c.r,        &c.s,          &c.pad_h,      &c.pad_w, &c.stride_h,
                     &c.stride_w, &c.dilation_h, &c.dilation_w, nullptr,  &c.groups};
  int* p_fields[] = {&p.n,        &p.h,          &p.w,          &p.c,     &p.k,
                     &p.r,        &p.s,          &p.pad_h,      &p.pad_w, &p.stride_h,
                     &p.stride_w, &p.dilation_h, &p.dilation_w, nullptr,  &p.groups};
  if (field == 13) {  // the mode
    c.mode = tessel_conv_mode_t(value);
    p.mode = ConvMode(value);
    return;
  }
  *c_fields[field] = value;
  *p_fields[field] = value;
}

// A valid problem whose fields differ from their defaults and from the other fields of each
// output-extent formula (so that a swap shows in a message): N=2 H=13 W=11 C=12 K=18 R=3 S=2,
// pad 1,4, stride 4,5, dilation 2,3, true convolution, 3 groups -> P = 3, Q = 4.
ConvPair valid_pair() {
  ConvPair a;
  tessel_conv2d_fprop_args_init(&a.cf);
  tessel_conv2d_dgrad_args_init(&a.cd);
  tessel_conv2d_wgrad_args_init(&a.cw);
  const int values[15] = {2, 13, 11, 12, 18, 3, 2, 1, 4, 4, 5, 2, 3, 1, 3};
  for (int field = 0; field < 15; ++field) {
    set_problem_field(a.cf.problem, a.f.problem, field, values[field]);
    set_problem_field(a.cd.problem, a.d.problem, field, values[field]);
    set_problem_field(a.cw.problem, a.w.problem, field, values[field]);
  }
  a.cf.x = a.cd.dy = a.cw.dy = a.f.x = a.d.dy = a.w.dy = address(0x10000000);
  a.cf.w = a.cd.w = a.cw.x = a.f.w = a.d.w = a.w.x = address(0x20000000);
  a.cf.y = a.cd.dx = a.cw.dw = a.f.y = a.d.dx = a.w.dw = address(0x30000000);
  a.cf.residual = a.cd.residual = a.cw.residual = address(0x40000000);
  a.f.residual = a.d.residual = a.w.residual = address(0x40000000);
  a.cf.bias = a.cd.bias = a.f.bias = a.d.bias = address(0x50000000);
  return a;
}

// Every answer of the C functions equals the C++ validate()'s on the same arguments.
void expect_c_answers_as_cpp(const ConvPair& a, const std::string& variant) {
  SCOPED_TRACE(variant);
  const Status f = validate(a.f), d = validate(a.d), w = validate(a.w);
  EXPECT_EQ(int(tessel_conv2d_fprop_validate(&a.cf)), int(f.code()));
  EXPECT_EQ(tessel_get_last_error(), f.message());
  EXPECT_EQ(int(tessel_conv2d_dgrad_validate(&a.cd)), int(d.code()));
  EXPECT_EQ(tessel_get_last_error(), d.message());
  EXPECT_EQ(int(tessel_conv2d_wgrad_validate(&a.cw)), int(w.code()));
  EXPECT_EQ(tessel_get_last_error(), w.message());
}

TEST(CApi, ConvValidationAnswersAsTheCppValidation) {
  const ConvPair valid = valid_pair();
  ASSERT_TRUE(validate(valid.f).ok()) << validate(valid.f).message();
  ASSERT_TRUE(validate(valid.d).ok()) << validate(valid.d).message();
  ASSERT_TRUE(validate(valid.w).ok()) << validate(valid.w).message();
  expect_c_answers_as_cpp(valid, "valid");

  // Each problem field set to a value that breaks a rule naming it; a filter too tall (too
  // wide) for the image, whose message gives every value of P's (Q's) formula; C and K not
  // multiples of groups; tensors too large (the message gives N, H, W, C or N, P, Q, K).
  const struct {
    int field, value;
  } problem_variants[] = {{0, 0},   {1, -3}, {2, -4},        {3, 0},        {4, -5},  {5, 0},
                          {6, -6},  {7, -1}, {8, -2},        {9, 0},        {10, -7}, {11, 0},
                          {12, -8}, {13, 5}, {14, -1},       {14, 5},       {3, 10},  {4, 20},
                          {5, 40},  {6, 40}, {0, 200000000}, {4, 300000000}};
  for (const auto& v : problem_variants) {
    ConvPair a = valid_pair();
    set_problem_field(a.cf.problem, a.f.problem, v.field, v.value);
    set_problem_field(a.cd.problem, a.d.problem, v.field, v.value);
    set_problem_field(a.cw.problem, a.w.problem, v.field, v.value);
    expect_c_answers_as_cpp(
        a, "problem field " + std::to_string(v.field) + " = " + std::to_string(v.value));
  }

  // Each tensor pointer null, then misaligned; the types, activation, alpha and beta.
  const std::vector<std::pair<std::string, std::function<void(ConvPair&)>>> variants = {
      {"x/dy null",
       [](ConvPair& a) { a.cf.x = a.cd.dy = a.cw.dy = a.f.x = a.d.dy = a.w.dy = nullptr; }},
      {"w/x null", [](ConvPair& a) { a.cf.w = a.cd.w = a.cw.x = a.f.w = a.d.w = a.w.x = nullptr; }},
      {"y/dx/dw null",
       [](ConvPair& a) { a.cf.y = a.cd.dx = a.cw.dw = a.f.y = a.d.dx = a.w.dw = nullptr; }},
      {"residual null, beta 1",
       [](ConvPair& a) {
         a.cf.residual = a.cd.residual = a.cw.residual = nullptr;
         a.f.residual = a.d.residual = a.w.residual = nullptr;
         a.cf.beta = a.cd.beta = a.cw.beta = a.f.beta = a.d.beta = a.w.beta = 1.0f;
       }},
      {"residual misaligned, beta 0.5",
       [](ConvPair& a) {
         a.cf.residual = a.cd.residual = a.cw.residual = address(0x40000002);
         a.f.residual = a.d.residual = a.w.residual = address(0x40000002);
         a.cf.beta = a.cd.beta = a.cw.beta = a.f.beta = a.d.beta = a.w.beta = 0.5f;
       }},
      {"bias misaligned",
       [](ConvPair& a) { a.cf.bias = a.cd.bias = a.f.bias = a.d.bias = address(0x50000001); }},
      {"x/dy misaligned",
       [](ConvPair& a) {
         a.cf.x = a.cd.dy = a.cw.dy = a.f.x = a.d.dy = a.w.dy = address(0x10000001);
       }},
      {"w/x misaligned",
       [](ConvPair& a) { a.cf.w = a.cd.w = a.cw.x = a.f.w = a.d.w = a.w.x = address(0x20000001); }},
      {"output misaligned",
       [](ConvPair& a) {
         a.cf.y = a.cd.dx = a.cw.dw = a.f.y = a.d.dx = a.w.dw = address(0x30000002);
       }},
      {"input type 5",
       [](ConvPair& a) {
         a.cf.input_type = a.cd.input_type = a.cw.input_type = tessel_dtype_t(5);
         a.f.input_type = a.d.input_type = a.w.input_type = DataType(5);
       }},
      {"input type f32",
       [](ConvPair& a) {
         a.cf.input_type = a.cd.input_type = a.cw.input_type = TESSEL_F32;
         a.f.input_type = a.d.input_type = a.w.input_type = DataType::kF32;
       }},
      {"output type -2",
       [](ConvPair& a) {
         a.cf.output_type = a.cd.output_type = a.cw.output_type = tessel_dtype_t(-2);
         a.f.output_type = a.d.output_type = a.w.output_type = DataType(-2);
       }},
      {"output type bf16, output at 0x30000002 (aligned to bf16 only)",
       [](ConvPair& a) {
         a.cf.output_type = a.cd.output_type = a.cw.output_type = TESSEL_BF16;
         a.f.output_type = a.d.output_type = a.w.output_type = DataType::kBF16;
         a.cf.y = a.cd.dx = a.cw.dw = a.f.y = a.d.dx = a.w.dw = address(0x30000002);
       }},
      {"activation 7",
       [](ConvPair& a) {
         a.cf.activation = a.cd.activation = tessel_activation_t(7);
         a.f.activation = a.d.activation = Activation(7);
       }},
      {"alpha 0 and beta -0 leave the residual unread",
       [](ConvPair& a) {
         a.cf.alpha = a.cd.alpha = a.cw.alpha = a.f.alpha = a.d.alpha = a.w.alpha = 0.0f;
         a.cf.beta = a.cd.beta = a.cw.beta = a.f.beta = a.d.beta = a.w.beta = -0.0f;
         a.cf.residual = a.cd.residual = a.cw.residual = address(0x30000004);  // inside the output
         a.f.residual = a.d.residual = a.w.residual = address(0x30000004);
       }},
      {"beta 2 reads a residual inside the output",
       [](ConvPair& a) {
         a.cf.beta = a.cd.beta = a.cw.beta = a.f.beta = a.d.beta = a.w.beta = 2.0f;
         a.cf.residual = a.cd.residual = a.cw.residual = address(0x30000004);
         a.f.residual = a.d.residual = a.w.residual = address(0x30000004);
       }},
      {"output on the first input's last element",
       [](ConvPair& a) {
         // fprop's X: 2*13*11*12 f16; dgrad's and wgrad's dY: 2*P*Q*18 f16 (P=3, Q=4).
         a.cf.y = a.f.y = address(0x10000000 + 2 * (2 * 13 * 11 * 12) - 4);
         a.cd.dx = a.cw.dw = a.d.dx = a.w.dw = address(0x10000000 + 2 * (2 * 3 * 4 * 18) - 4);
       }},
  };
  for (const auto& [name, change] : variants) {
    ConvPair a = valid_pair();
    change(a);
    expect_c_answers_as_cpp(a, name);
  }
}

}  // namespace
}  // namespace tessel
