/* The C API as a C99 program sees it: defaults, validation, the last error's text, NULL
 * arguments, status names, the version, and the no-op that needs no GPU. Each function checks
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
