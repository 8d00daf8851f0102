/* The C API as a C99 program sees it: defaults, validation, the last error's text, NULL
 * arguments, status names, the version, and the no-op that needs no GPU; for convolution, the
 * three directions' defaults and validation, and run functions that refuse bad arguments
 * before any GPU work. Each function checks
 * one behaviour and returns NULL when it holds, or the check that failed (file:line: text);
 * c_api_test.cpp runs each as a GoogleTest. Pointers are made-up device addresses: nothing
 * here reaches a kernel. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tessel.h"

#define C_API_STRINGIFY2(x) #x
#define C_API_STRINGIFY(x) C_API_STRINGIFY2(x)
#define CHECK(condition)                                                             \
  do {                                                                               \
    if (!(condition)) return __FILE__ ":" C_API_STRINGIFY(__LINE__) ": " #condition; \
  } while (0)

/* Every test function, so that each has a prototype (the driver declares them too). */
const char* c_init_fills_the_documented_defaults(void);
const char* c_init_ignores_null(void);
const char* c_valid_problem_passes(void);
const char* c_failure_names_the_argument_in_the_last_error(void);
const char* c_success_clears_the_last_error(void);
const char* c_last_error_survives_calls_that_return_no_status(void);
const char* c_null_args_are_an_invalid_argument(void);
const char* c_enumeration_garbage_is_an_invalid_argument(void);
const char* c_f32_inputs_are_not_supported(void);
const char* c_misaligned_pointer_is_misaligned(void);
const char* c_null_or_empty_config_means_the_heuristic(void);
const char* c_unknown_config_is_an_invalid_argument(void);
const char* c_empty_problem_is_a_no_op_without_a_gpu(void);
const char* c_status_strings_name_each_status(void);
const char* c_version_matches_the_macros(void);
const char* c_conv_init_fills_the_documented_defaults(void);
const char* c_conv_init_ignores_null(void);
const char* c_conv_valid_arguments_pass(void);
const char* c_conv_null_args_are_an_invalid_argument(void);
const char* c_conv_null_tensors_are_named(void);
const char* c_conv_residual_is_read_only_with_beta(void);
const char* c_conv_residual_may_be_the_output_itself(void);
const char* c_conv_misaligned_tensor_is_misaligned(void);
const char* c_conv_enumeration_garbage_is_an_invalid_argument(void);
const char* c_conv_f32_inputs_are_not_supported(void);
const char* c_conv_output_overlapping_an_input_is_invalid(void);
const char* c_conv_bad_problem_is_an_invalid_argument(void);
const char* c_conv_zero_sizes_are_invalid(void);
const char* c_conv_run_functions_refuse_bad_arguments_without_a_gpu(void);
const char* c_conv_output_size_is_the_formula(void);
const char* c_conv_output_size_refuses_what_the_run_functions_refuse(void);

static const void* fake_address(uintptr_t address) { return (const void*)address; }

/* A valid 64 x 32 x 16 problem: A row-major, B column-major, D row-major f32. */
static tessel_gemm_args_t valid_args(void) {
  tessel_gemm_args_t args;
  tessel_gemm_args_init(&args);
  args.m = 64;
  args.n = 32;
  args.k = 16;
  args.a = fake_address(0x10000000u);
  args.lda = 16;
  args.b = fake_address(0x20000000u);
  args.ldb = 16;
  args.d = (void*)fake_address(0x30000000u);
  args.ldd = 32;
  return args;
}

static int contains(const char* text, const char* part) { return strstr(text, part) != NULL; }

const char* c_init_fills_the_documented_defaults(void) {
  tessel_gemm_args_t args;
  memset(&args, 0xAB, sizeof args);
  tessel_gemm_args_init(&args);
  CHECK(args.m == 0 && args.n == 0 && args.k == 0 && args.batch == 1);
  CHECK(args.input_type == TESSEL_F16 && args.output_type == TESSEL_F32);
  CHECK(args.a == NULL && args.a_layout == TESSEL_ROW_MAJOR && args.lda == 0);
  CHECK(args.b == NULL && args.b_layout == TESSEL_COLUMN_MAJOR && args.ldb == 0);
  CHECK(args.c == NULL && args.ldc == 0);
  CHECK(args.d == NULL && args.d_layout == TESSEL_ROW_MAJOR && args.ldd == 0);
  CHECK(args.a_batch_stride == 0 && args.b_batch_stride == 0);
  CHECK(args.c_batch_stride == 0 && args.d_batch_stride == 0);
  CHECK(args.alpha == 1.0f && args.beta == 0.0f);
  CHECK(args.bias == NULL && args.activation == TESSEL_ACTIVATION_NONE && args.config == NULL);
  return NULL;
}

const char* c_init_ignores_null(void) {
  tessel_gemm_args_init(NULL);
  return NULL;
}

const char* c_valid_problem_passes(void) {
  tessel_gemm_args_t args = valid_args();
  CHECK(tessel_gemm_validate(&args) == TESSEL_SUCCESS);
  CHECK(strcmp(tessel_get_last_error(), "") == 0);
  return NULL;
}

const char* c_failure_names_the_argument_in_the_last_error(void) {
  tessel_gemm_args_t args = valid_args();
  args.lda = 7;
  CHECK(tessel_gemm_validate(&args) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "lda = 7 is smaller than K = 16"));
  return NULL;
}

const char* c_success_clears_the_last_error(void) {
  tessel_gemm_args_t args = valid_args();
  args.d = NULL;
  CHECK(tessel_gemm_validate(&args) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "d is null"));
  args = valid_args();
  CHECK(tessel_gemm_validate(&args) == TESSEL_SUCCESS);
  CHECK(tessel_get_last_error() != NULL && tessel_get_last_error()[0] == '\0');
  return NULL;
}

const char* c_last_error_survives_calls_that_return_no_status(void) {
  tessel_gemm_args_t args = valid_args();
  args.batch = 0;
  CHECK(tessel_gemm_validate(&args) == TESSEL_ERROR_INVALID_ARGUMENT);
  tessel_gemm_args_init(&args);
  (void)tessel_status_string(TESSEL_SUCCESS);
  (void)tessel_version();
  CHECK(contains(tessel_get_last_error(), "batch = 0"));
  return NULL;
}

const char* c_null_args_are_an_invalid_argument(void) {
  CHECK(tessel_gemm_validate(NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "tessel_gemm_validate: args is NULL"));
  CHECK(tessel_gemm(NULL, NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "tessel_gemm: args is NULL"));
  return NULL;
}

const char* c_enumeration_garbage_is_an_invalid_argument(void) {
  tessel_gemm_args_t args = valid_args();
  args.a_layout = (tessel_layout_t)7;
  CHECK(tessel_gemm_validate(&args) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "a_layout = 7"));
  args = valid_args();
  args.output_type = (tessel_dtype_t)-1;
  CHECK(tessel_gemm_validate(&args) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "output_type = -1"));
  args = valid_args();
  args.activation = (tessel_activation_t)3;
  CHECK(tessel_gemm_validate(&args) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "activation = 3"));
  return NULL;
}

const char* c_f32_inputs_are_not_supported(void) {
  tessel_gemm_args_t args = valid_args();
  args.input_type = TESSEL_F32;
  CHECK(tessel_gemm_validate(&args) == TESSEL_ERROR_NOT_SUPPORTED);
  CHECK(contains(tessel_get_last_error(), "input_type = f32"));
  return NULL;
}

const char* c_misaligned_pointer_is_misaligned(void) {
  tessel_gemm_args_t args = valid_args();
  args.b = fake_address(0x20000001u);
  CHECK(tessel_gemm_validate(&args) == TESSEL_ERROR_MISALIGNED);
  CHECK(contains(tessel_get_last_error(), "b = 0x20000001"));
  return NULL;
}

const char* c_null_or_empty_config_means_the_heuristic(void) {
  tessel_gemm_args_t args = valid_args();
  args.config = NULL;
  CHECK(tessel_gemm_validate(&args) == TESSEL_SUCCESS);
  args.config = "";
  CHECK(tessel_gemm_validate(&args) == TESSEL_SUCCESS);
  return NULL;
}

const char* c_unknown_config_is_an_invalid_argument(void) {
  tessel_gemm_args_t args = valid_args();
  args.config = "no_such_tile";
  CHECK(tessel_gemm_validate(&args) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "config = \"no_such_tile\""));
  return NULL;
}

/* m == 0 must succeed without a CUDA device: CI has none. */
const char* c_empty_problem_is_a_no_op_without_a_gpu(void) {
  tessel_gemm_args_t args;
  tessel_gemm_args_init(&args);
  args.n = 32;
  args.k = 16;
  CHECK(tessel_gemm(&args, NULL) == TESSEL_SUCCESS);
  CHECK(strcmp(tessel_get_last_error(), "") == 0);
  return NULL;
}

const char* c_status_strings_name_each_status(void) {
  CHECK(strcmp(tessel_status_string(TESSEL_SUCCESS), "success") == 0);
  CHECK(strcmp(tessel_status_string(TESSEL_ERROR_INVALID_ARGUMENT), "invalid argument") == 0);
  CHECK(strcmp(tessel_status_string(TESSEL_ERROR_NOT_SUPPORTED), "not supported") == 0);
  CHECK(strcmp(tessel_status_string(TESSEL_ERROR_MISALIGNED), "misaligned") == 0);
  CHECK(strcmp(tessel_status_string(TESSEL_ERROR_NO_DEVICE), "no device") == 0);
  CHECK(strcmp(tessel_status_string(TESSEL_ERROR_CUDA), "CUDA error") == 0);
  CHECK(strcmp(tessel_status_string(TESSEL_ERROR_INTERNAL), "internal error") == 0);
  CHECK(strcmp(tessel_status_string((tessel_status_t)7), "unknown status") == 0);
  CHECK(strcmp(tessel_status_string((tessel_status_t)-1), "unknown status") == 0);
  return NULL;
}

const char* c_version_matches_the_macros(void) {
  CHECK(tessel_version() ==
        TESSEL_VERSION_MAJOR * 10000 + TESSEL_VERSION_MINOR * 100 + TESSEL_VERSION_PATCH);
  CHECK(tessel_version() == 100); /* 0.1.0 */
  return NULL;
}

/* ---- Convolution ---- */

/* A valid problem: N=2, 8x8, C=16 -> K=32, 3x3, pad 1, stride 2 (P = Q = 4), 2 groups.
 * Tensors: X and dX 2048 elements, dY and Y 1024, W and dW 32*3*3*8 = 2304. */
static tessel_conv2d_problem_t conv_problem(tessel_conv2d_problem_t problem) {
  problem.n = 2;
  problem.h = 8;
  problem.w = 8;
  problem.c = 16;
  problem.k = 32;
  problem.r = 3;
  problem.s = 3;
  problem.pad_h = 1;
  problem.pad_w = 1;
  problem.stride_h = 2;
  problem.stride_w = 2;
  problem.groups = 2;
  return problem;
}

static tessel_conv2d_fprop_args_t valid_fprop_args(void) {
  tessel_conv2d_fprop_args_t args;
  tessel_conv2d_fprop_args_init(&args);
  args.problem = conv_problem(args.problem);
  args.x = fake_address(0x10000000u);
  args.w = fake_address(0x20000000u);
  args.y = (void*)fake_address(0x30000000u);
  return args;
}

static tessel_conv2d_dgrad_args_t valid_dgrad_args(void) {
  tessel_conv2d_dgrad_args_t args;
  tessel_conv2d_dgrad_args_init(&args);
  args.problem = conv_problem(args.problem);
  args.dy = fake_address(0x10000000u);
  args.w = fake_address(0x20000000u);
  args.dx = (void*)fake_address(0x30000000u);
  return args;
}

static tessel_conv2d_wgrad_args_t valid_wgrad_args(void) {
  tessel_conv2d_wgrad_args_t args;
  tessel_conv2d_wgrad_args_init(&args);
  args.problem = conv_problem(args.problem);
  args.dy = fake_address(0x10000000u);
  args.x = fake_address(0x20000000u);
  args.dw = (void*)fake_address(0x30000000u);
  return args;
}

/* The problem part of the documented defaults. */
static int is_default_problem(const tessel_conv2d_problem_t* p) {
  return p->n == 1 && p->h == 1 && p->w == 1 && p->c == 1 && p->k == 1 && p->r == 1 && p->s == 1 &&
         p->pad_h == 0 && p->pad_w == 0 && p->stride_h == 1 && p->stride_w == 1 &&
         p->dilation_h == 1 && p->dilation_w == 1 && p->mode == TESSEL_CONV_CROSS_CORRELATION &&
         p->groups == 1;
}

const char* c_conv_init_fills_the_documented_defaults(void) {
  tessel_conv2d_fprop_args_t f;
  tessel_conv2d_dgrad_args_t d;
  tessel_conv2d_wgrad_args_t w;
  memset(&f, 0xAB, sizeof f);
  memset(&d, 0xAB, sizeof d);
  memset(&w, 0xAB, sizeof w);
  tessel_conv2d_fprop_args_init(&f);
  tessel_conv2d_dgrad_args_init(&d);
  tessel_conv2d_wgrad_args_init(&w);
  CHECK(is_default_problem(&f.problem));
  CHECK(f.input_type == TESSEL_F16 && f.output_type == TESSEL_F32);
  CHECK(f.x == NULL && f.w == NULL && f.residual == NULL && f.y == NULL && f.bias == NULL);
  CHECK(f.alpha == 1.0f && f.beta == 0.0f && f.activation == TESSEL_ACTIVATION_NONE);
  CHECK(is_default_problem(&d.problem));
  CHECK(d.input_type == TESSEL_F16 && d.output_type == TESSEL_F32);
  CHECK(d.dy == NULL && d.w == NULL && d.residual == NULL && d.dx == NULL && d.bias == NULL);
  CHECK(d.alpha == 1.0f && d.beta == 0.0f && d.activation == TESSEL_ACTIVATION_NONE);
  CHECK(is_default_problem(&w.problem));
  CHECK(w.input_type == TESSEL_F16 && w.output_type == TESSEL_F32);
  CHECK(w.dy == NULL && w.x == NULL && w.residual == NULL && w.dw == NULL);
  CHECK(w.alpha == 1.0f && w.beta == 0.0f);
  return NULL;
}

const char* c_conv_init_ignores_null(void) {
  tessel_conv2d_fprop_args_init(NULL);
  tessel_conv2d_dgrad_args_init(NULL);
  tessel_conv2d_wgrad_args_init(NULL);
  return NULL;
}

const char* c_conv_valid_arguments_pass(void) {
  tessel_conv2d_fprop_args_t f = valid_fprop_args();
  tessel_conv2d_dgrad_args_t d = valid_dgrad_args();
  tessel_conv2d_wgrad_args_t w = valid_wgrad_args();
  CHECK(tessel_conv2d_fprop_validate(&f) == TESSEL_SUCCESS);
  CHECK(strcmp(tessel_get_last_error(), "") == 0);
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_SUCCESS);
  CHECK(strcmp(tessel_get_last_error(), "") == 0);
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_SUCCESS);
  CHECK(strcmp(tessel_get_last_error(), "") == 0);
  /* Everything optional at once: bias, activation, bf16 in, bf16 out, beta with a residual. */
  d.bias = fake_address(0x40000000u);
  d.activation = TESSEL_ACTIVATION_GELU;
  d.input_type = TESSEL_BF16;
  d.output_type = TESSEL_BF16;
  d.beta = 0.5f;
  d.residual = fake_address(0x50000000u);
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_SUCCESS);
  return NULL;
}

const char* c_conv_null_args_are_an_invalid_argument(void) {
  CHECK(tessel_conv2d_fprop_validate(NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "tessel_conv2d_fprop_validate: args is NULL"));
  CHECK(contains(tessel_get_last_error(), "tessel_conv2d_fprop_args_init()"));
  CHECK(tessel_conv2d_dgrad_validate(NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "tessel_conv2d_dgrad_validate: args is NULL"));
  CHECK(contains(tessel_get_last_error(), "tessel_conv2d_dgrad_args_init()"));
  CHECK(tessel_conv2d_wgrad_validate(NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "tessel_conv2d_wgrad_validate: args is NULL"));
  CHECK(contains(tessel_get_last_error(), "tessel_conv2d_wgrad_args_init()"));
  CHECK(tessel_conv2d_fprop(NULL, NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "tessel_conv2d_fprop: args is NULL"));
  CHECK(tessel_conv2d_dgrad(NULL, NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "tessel_conv2d_dgrad: args is NULL"));
  CHECK(tessel_conv2d_wgrad(NULL, NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "tessel_conv2d_wgrad: args is NULL"));
  return NULL;
}

const char* c_conv_null_tensors_are_named(void) {
  tessel_conv2d_fprop_args_t f;
  tessel_conv2d_dgrad_args_t d;
  tessel_conv2d_wgrad_args_t w;
  f = valid_fprop_args(), f.x = NULL;
  CHECK(tessel_conv2d_fprop_validate(&f) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "fprop: x is null"));
  f = valid_fprop_args(), f.w = NULL;
  CHECK(tessel_conv2d_fprop_validate(&f) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "fprop: w is null"));
  f = valid_fprop_args(), f.y = NULL;
  CHECK(tessel_conv2d_fprop_validate(&f) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "fprop: y is null"));
  d = valid_dgrad_args(), d.dy = NULL;
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "dgrad: dy is null"));
  d = valid_dgrad_args(), d.w = NULL;
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "dgrad: w is null"));
  d = valid_dgrad_args(), d.dx = NULL;
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "dgrad: dx is null"));
  w = valid_wgrad_args(), w.dy = NULL;
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "wgrad: dy is null"));
  w = valid_wgrad_args(), w.x = NULL;
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "wgrad: x is null"));
  w = valid_wgrad_args(), w.dw = NULL;
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "wgrad: dw is null"));
  return NULL;
}

/* beta == 0 leaves the residual unread (NULL is fine); any other beta reads it. */
const char* c_conv_residual_is_read_only_with_beta(void) {
  tessel_conv2d_dgrad_args_t d = valid_dgrad_args();
  tessel_conv2d_wgrad_args_t w = valid_wgrad_args();
  CHECK(d.residual == NULL && tessel_conv2d_dgrad_validate(&d) == TESSEL_SUCCESS);
  d.beta = -1.0f;
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "dgrad: residual is null but beta != 0 reads it"));
  CHECK(w.residual == NULL && tessel_conv2d_wgrad_validate(&w) == TESSEL_SUCCESS);
  w.beta = 1.0f;
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "wgrad: residual is null but beta != 0 reads it"));
  return NULL;
}

/* Accumulation in place: residual == output with beta = 1. */
const char* c_conv_residual_may_be_the_output_itself(void) {
  tessel_conv2d_fprop_args_t f = valid_fprop_args();
  tessel_conv2d_dgrad_args_t d = valid_dgrad_args();
  tessel_conv2d_wgrad_args_t w = valid_wgrad_args();
  f.beta = 1.0f, f.residual = f.y;
  CHECK(tessel_conv2d_fprop_validate(&f) == TESSEL_SUCCESS);
  d.beta = 1.0f, d.residual = d.dx;
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_SUCCESS);
  w.beta = 1.0f, w.residual = w.dw;
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_SUCCESS);
  /* Two elements (f32) past the start is a partial overlap, not the output itself. */
  w.residual = fake_address(0x30000008u);
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "wgrad: dw overlaps residual"));
  return NULL;
}

const char* c_conv_misaligned_tensor_is_misaligned(void) {
  tessel_conv2d_dgrad_args_t d = valid_dgrad_args();
  tessel_conv2d_wgrad_args_t w = valid_wgrad_args();
  tessel_conv2d_fprop_args_t f = valid_fprop_args();
  d.w = fake_address(0x20000001u);
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_MISALIGNED);
  CHECK(contains(tessel_get_last_error(), "dgrad: w is not aligned to its 2-byte elements"));
  w.dw = (void*)fake_address(0x30000002u); /* f32: 4-byte elements */
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_MISALIGNED);
  CHECK(contains(tessel_get_last_error(), "wgrad: dw is not aligned to its 4-byte elements"));
  f.bias = fake_address(0x40000006u);
  CHECK(tessel_conv2d_fprop_validate(&f) == TESSEL_ERROR_MISALIGNED);
  CHECK(contains(tessel_get_last_error(), "fprop: bias is not aligned to its 4-byte elements"));
  return NULL;
}

const char* c_conv_enumeration_garbage_is_an_invalid_argument(void) {
  tessel_conv2d_fprop_args_t f = valid_fprop_args();
  tessel_conv2d_dgrad_args_t d = valid_dgrad_args();
  tessel_conv2d_wgrad_args_t w = valid_wgrad_args();
  f.problem.mode = (tessel_conv_mode_t)2;
  CHECK(tessel_conv2d_fprop_validate(&f) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "mode = 2"));
  d.activation = (tessel_activation_t)3;
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "dgrad: activation = 3"));
  d = valid_dgrad_args();
  d.input_type = (tessel_dtype_t)-1;
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "input_type = -1"));
  w.output_type = (tessel_dtype_t)9;
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "output_type = 9"));
  return NULL;
}

const char* c_conv_f32_inputs_are_not_supported(void) {
  tessel_conv2d_dgrad_args_t d = valid_dgrad_args();
  tessel_conv2d_wgrad_args_t w = valid_wgrad_args();
  d.input_type = TESSEL_F32;
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_NOT_SUPPORTED);
  CHECK(contains(tessel_get_last_error(), "dgrad: input_type = f32 is not supported"));
  w.input_type = TESSEL_F32;
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_NOT_SUPPORTED);
  CHECK(contains(tessel_get_last_error(), "wgrad: input_type = f32 is not supported"));
  return NULL;
}

const char* c_conv_output_overlapping_an_input_is_invalid(void) {
  tessel_conv2d_dgrad_args_t d = valid_dgrad_args();
  tessel_conv2d_wgrad_args_t w = valid_wgrad_args();
  /* dY spans 1024 f16 elements from 0x10000000: dX (f32) on its last two overlaps it. */
  d.dx = (void*)fake_address(0x10000000u + 2 * 1022);
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "dgrad: dx overlaps dy"));
  d.dx = (void*)fake_address(0x10000000u + 2 * 1024); /* right after dY: fine */
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_SUCCESS);
  d = valid_dgrad_args();
  d.bias = fake_address(0x30000000u + 4 * 100);
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "dgrad: dx overlaps bias"));
  /* X spans 2048 f16 elements from 0x20000000: dW (f32) on its last two overlaps it. */
  w.dw = (void*)fake_address(0x20000000u + 2 * 2046);
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "wgrad: dw overlaps x"));
  return NULL;
}

const char* c_conv_bad_problem_is_an_invalid_argument(void) {
  tessel_conv2d_dgrad_args_t d = valid_dgrad_args();
  tessel_conv2d_wgrad_args_t w = valid_wgrad_args();
  d.problem.c = 18; /* not a multiple of groups = 4 */
  d.problem.groups = 4;
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "C = 18 is not a multiple of groups = 4"));
  w.problem.r = 11; /* a 11-row filter on 8 + 2*1 rows: P < 1 */
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "output height P"));
  w = valid_wgrad_args();
  w.problem.stride_w = 0;
  CHECK(tessel_conv2d_wgrad_validate(&w) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "stride_w = 0 must be at least 1"));
  return NULL;
}

/* Unlike the GEMM's m == 0, a convolution has no empty case: every size is at least 1. */
const char* c_conv_zero_sizes_are_invalid(void) {
  tessel_conv2d_fprop_args_t f = valid_fprop_args();
  tessel_conv2d_dgrad_args_t d = valid_dgrad_args();
  f.problem.n = 0;
  CHECK(tessel_conv2d_fprop_validate(&f) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "N = 0 must be at least 1"));
  d.problem.k = 0;
  CHECK(tessel_conv2d_dgrad_validate(&d) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "K = 0 must be at least 1"));
  return NULL;
}

/* The run functions check first: bad arguments never reach the GPU, so this needs none. */
const char* c_conv_run_functions_refuse_bad_arguments_without_a_gpu(void) {
  tessel_conv2d_fprop_args_t f = valid_fprop_args();
  tessel_conv2d_dgrad_args_t d = valid_dgrad_args();
  tessel_conv2d_wgrad_args_t w = valid_wgrad_args();
  f.w = NULL;
  CHECK(tessel_conv2d_fprop(&f, NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "fprop: w is null"));
  d.problem.pad_h = -1;
  CHECK(tessel_conv2d_dgrad(&d, NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "pad_h = -1 must be at least 0"));
  w.x = fake_address(0x20000001u);
  CHECK(tessel_conv2d_wgrad(&w, NULL) == TESSEL_ERROR_MISALIGNED);
  CHECK(contains(tessel_get_last_error(), "wgrad: x is not aligned"));
  return NULL;
}

/* The ResNet-50 stem (224, 7x7, pad 3, stride 2) gives 112; a dilated, strided, unevenly
 * padded filter works the formula on each axis separately. */
const char* c_conv_output_size_is_the_formula(void) {
  tessel_conv2d_fprop_args_t args;
  int p = -1, q = -1;
  tessel_conv2d_fprop_args_init(&args);
  args.problem.n = 1, args.problem.h = 224, args.problem.w = 224, args.problem.c = 3, args.problem.k = 64;
  args.problem.r = 7, args.problem.s = 7, args.problem.pad_h = 3, args.problem.pad_w = 3;
  args.problem.stride_h = 2, args.problem.stride_w = 2;
  CHECK(tessel_conv2d_output_size(&args.problem, &p, &q) == TESSEL_SUCCESS);
  CHECK(p == 112 && q == 112);
  CHECK(strcmp(tessel_get_last_error(), "") == 0);
  /* H = 20: (20 + 2*1 - 3*(3-1) - 1) / 2 + 1 = 8;  W = 17: (17 + 0 - 1*(5-1) - 1) / 3 + 1 = 5 */
  args.problem.h = 20, args.problem.w = 17, args.problem.r = 3, args.problem.s = 5;
  args.problem.pad_h = 1, args.problem.pad_w = 0, args.problem.stride_h = 2, args.problem.stride_w = 3;
  args.problem.dilation_h = 3, args.problem.dilation_w = 1;
  CHECK(tessel_conv2d_output_size(&args.problem, &p, &q) == TESSEL_SUCCESS);
  CHECK(p == 8 && q == 5);
  return NULL;
}

const char* c_conv_output_size_refuses_what_the_run_functions_refuse(void) {
  tessel_conv2d_fprop_args_t args = valid_fprop_args();
  int p = -1, q = -1;
  CHECK(tessel_conv2d_output_size(NULL, &p, &q) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "problem is NULL"));
  CHECK(tessel_conv2d_output_size(&args.problem, NULL, &q) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "p is NULL"));
  CHECK(tessel_conv2d_output_size(&args.problem, &p, NULL) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "q is NULL"));
  args.problem.r = 11; /* taller than the padded image: P < 1 */
  CHECK(tessel_conv2d_output_size(&args.problem, &p, &q) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "output height P"));
  args = valid_fprop_args();
  args.problem.stride_h = 0;
  CHECK(tessel_conv2d_output_size(&args.problem, &p, &q) == TESSEL_ERROR_INVALID_ARGUMENT);
  CHECK(contains(tessel_get_last_error(), "stride_h = 0 must be at least 1"));
  CHECK(p == -1 && q == -1); /* untouched on failure */
  return NULL;
}
