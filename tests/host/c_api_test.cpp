// Runs the C99 checks of c_api_test.c as GoogleTests, and checks from C++ what C cannot see:
// tessel_gemm_args_init() and GemmArguments{} agree field by field.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>

#include "tessel.h"
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

}  // namespace
}  // namespace tessel
