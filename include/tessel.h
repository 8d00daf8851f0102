/* tessel.h: the C API of libtessel (C99 and C++). The same GEMM as tessel::gemm() in
 * tessel/runtime/gemm.hpp, whose top comment is the full contract:
 *
 *   D = act(alpha * A * B + beta * C + bias)       (batch times, strided)
 *
 *   A  M x K, B  K x N, C and D  M x N (both in d_layout), bias  N values or NULL.
 *   Element (i,j) of a row-major matrix X is x[i*ldx + j]; of a column-major one x[i + j*ldx].
 *   Inputs f16 or bf16 (A and B the same), fp32 accumulation, C, D and bias f16, bf16 or f32.
 *
 * Example:
 *   tessel_gemm_args_t args;
 *   tessel_gemm_args_init(&args);
 *   args.m = 4096; args.n = 4096; args.k = 4096;
 *   args.a = a; args.a_layout = TESSEL_ROW_MAJOR; args.lda = 4096;
 *   args.b = b; args.b_layout = TESSEL_COLUMN_MAJOR; args.ldb = 4096;
 *   args.d = d; args.ldd = 4096;                      (f32 output, row-major)
 *   if (tessel_gemm(&args, stream) != TESSEL_SUCCESS)
 *     fprintf(stderr, "%s\n", tessel_get_last_error());
 *
 * No function lets a C++ exception escape; the last error is kept per thread. */
#ifndef TESSEL_H_
#define TESSEL_H_

#include <cuda_runtime_api.h> /* cudaStream_t */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version; tessel_version() gives the one that is linked. */
#define TESSEL_VERSION_MAJOR 0
#define TESSEL_VERSION_MINOR 1
#define TESSEL_VERSION_PATCH 0

/* What every call that can fail returns (the values of tessel::StatusCode).
 * tessel_get_last_error() says which argument, which value and what was expected. */
typedef enum {
  TESSEL_SUCCESS = 0,
  TESSEL_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, a negative size, an ld too small, ... */
  TESSEL_ERROR_NOT_SUPPORTED = 2,    /* valid, but not implemented (f32 inputs, a matrix of
                                        2^31 elements or more) */
  TESSEL_ERROR_MISALIGNED = 3,       /* a pointer not a multiple of its element size */
  TESSEL_ERROR_NO_DEVICE = 4,        /* no CUDA device, or one older than sm_80 */
  TESSEL_ERROR_CUDA = 5,             /* the CUDA runtime reported an error */
  TESSEL_ERROR_INTERNAL = 6          /* a bug in tessel: please report it with the message */
} tessel_status_t;

/* Element types (tessel::DataType). */
typedef enum {
  TESSEL_F16 = 0,  /* IEEE half */
  TESSEL_BF16 = 1, /* bfloat16 */
  TESSEL_F32 = 2   /* IEEE single; output only */
} tessel_dtype_t;

/* Storage order of a matrix (tessel::MatrixLayout). */
typedef enum {
  TESSEL_ROW_MAJOR = 0,   /* element (i,j) at i*ld + j */
  TESSEL_COLUMN_MAJOR = 1 /* element (i,j) at i + j*ld */
} tessel_layout_t;

/* The epilogue's elementwise function (tessel::Activation). */
typedef enum {
  TESSEL_ACTIVATION_NONE = 0,
  TESSEL_ACTIVATION_RELU = 1, /* max(x, 0) */
  TESSEL_ACTIVATION_GELU = 2  /* tanh approximation */
} tessel_activation_t;

/* One (batched) GEMM, field by field tessel::GemmArguments. Fill it with
 * tessel_gemm_args_init() first, then set what the problem needs. Leading dimensions and
 * batch strides count elements. All pointers are device pointers aligned to their element. */
typedef struct tessel_gemm_args {
  int m, n, k; /* >= 0; m == 0 or n == 0 is a no-op (every pointer may be NULL); k == 0
                  computes D = act(beta*C + bias) without reading A or B */
  int batch;   /* >= 1: the number of GEMMs */

  tessel_dtype_t input_type;  /* A and B: TESSEL_F16 or TESSEL_BF16 */
  tessel_dtype_t output_type; /* C, D and bias: any type */

  const void* a; /* M x K, read when k > 0 */
  tessel_layout_t a_layout;
  int64_t lda;            /* >= K (row-major) or >= M (column-major) */
  int64_t a_batch_stride; /* >= 0; 0 repeats one A for every batch */

  const void* b; /* K x N, read when k > 0 */
  tessel_layout_t b_layout;
  int64_t ldb;            /* >= N (row-major) or >= K (column-major) */
  int64_t b_batch_stride; /* >= 0 */

  const void* c;          /* M x N in d_layout, read only when beta != 0 (NULL otherwise
                             allowed); either exactly d (ldc == ldd, c_batch_stride ==
                             d_batch_stride) or disjoint from D */
  int64_t ldc;            /* >= N (row-major) or >= M (column-major) when C is read */
  int64_t c_batch_stride; /* >= 0 */

  void* d;                  /* M x N, written; disjoint from A, B and bias */
  tessel_layout_t d_layout; /* also C's layout */
  int64_t ldd;              /* >= N (row-major) or >= M (column-major) */
  int64_t d_batch_stride;   /* with batch > 1: >= the span of one D, (rows-1)*ldd + cols */

  float alpha, beta; /* any value, NaN and inf included (IEEE arithmetic) */
  const void* bias;  /* N values of output_type (one per column of D), or NULL */
  tessel_activation_t activation;

  const char* config; /* a tile configuration's name, or NULL or "" for the
                         heuristic; an unknown name is an invalid argument */
} tessel_gemm_args_t;

/* Fills *args with the defaults of tessel::GemmArguments: every size, pointer, leading
 * dimension and stride 0 (NULL), batch 1, f16 inputs, f32 output, A row-major, B
 * column-major, D row-major, alpha 1, beta 0, no activation, config NULL. Does nothing when
 * args is NULL. */
void tessel_gemm_args_init(tessel_gemm_args_t* args);

/* Runs the GEMM on `stream` (NULL: the legacy default stream), asynchronously: errors of the
 * launch are returned, errors inside the kernel surface at the next synchronisation. Checks
 * everything tessel_gemm_validate() checks first. A NULL args is an invalid argument. */
tessel_status_t tessel_gemm(const tessel_gemm_args_t* args, cudaStream_t stream);

/* Checks *args as tessel_gemm() would, without touching the GPU. */
tessel_status_t tessel_gemm_validate(const tessel_gemm_args_t* args);

/* The message of the last failing tessel_gemm() or tessel_gemm_validate() on this thread,
 * or "" when the last such call succeeded (or none was made). Never NULL. The text belongs to
 * the library and stays valid until the next tessel_gemm() or tessel_gemm_validate() on this
 * thread. */
const char* tessel_get_last_error(void);

/* A status's name, e.g. "invalid argument"; "unknown status" for a value outside
 * tessel_status_t. A static string. */
const char* tessel_status_string(tessel_status_t status);

/* The linked library's version, MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 -> 100): compare
 * with the TESSEL_VERSION_* the caller was compiled against. */
int tessel_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSEL_H_ */
