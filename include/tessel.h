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
 * Convolution (tessel/runtime/conv2d.hpp): conv2d in its three directions, NHWC activations
 * and KRSC filters, on the same pipeline; see "Convolution" below.
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

/* ---- Convolution ----
 *
 *   fprop  Y  = act(alpha * conv(X, W) + beta * R + bias)       tessel_conv2d_fprop()
 *   dgrad  dX = act(alpha * dgrad(dY, W) + beta * R + bias)     tessel_conv2d_dgrad()
 *   wgrad  dW = alpha * wgrad(dY, X) + beta * R                 tessel_conv2d_wgrad()
 *
 * Tensors, packed, row-major (the last index fastest), named by their fprop roles:
 *   X  activations  N x H x W x C            (NHWC)
 *   W  filters      K x R x S x (C/groups)   (KRSC); group g owns filters [g*K/G, (g+1)*K/G)
 *                                            and reads channels [g*C/G, (g+1)*C/G) of X
 *   Y  outputs      N x P x Q x K            (NHWC)
 *
 *   Y[n,p,q,k] = sum over r, s, c of X[n, p*stride_h - pad_h + r'*dilation_h,
 *                                       q*stride_w - pad_w + s'*dilation_w, g*C/G + c] W[k,r,s,c]
 * with g = k / (K/G), r' = r, s' = s (cross-correlation) or r' = R-1-r, s' = S-1-s (true
 * convolution); taps outside the image read zero. dgrad is its adjoint in X (dX[n,h,w,c] sums
 * dY[n,p,q,k] W[k,r,s,c] over the (p,q,k,r,s) that the formula connects to (h,w,c)), wgrad its
 * adjoint in W (dW[k,r,s,c] sums dY[n,p,q,k] X[n,h,w,g*C/G+c] over n, p, q).
 *   P = (H + 2*pad_h - dilation_h*(R-1) - 1) / stride_h + 1 (rounded down), Q likewise.
 *
 * Inputs f16 or bf16 (both the same), fp32 accumulation; outputs, the residual R and the
 * bias f16, bf16 or f32. R has the output's shape and type, is read only when beta != 0 (a
 * NaN beta reads it; NULL allowed otherwise) and is either exactly the output or disjoint
 * from it. The output overlaps no input (bias included). All pointers are device pointers
 * aligned to their element; wider alignment is never required (the narrow path runs).
 *
 * Example (ResNet-50's stem, f16 in, f32 out):
 *   tessel_conv2d_fprop_args_t args;
 *   tessel_conv2d_fprop_args_init(&args);
 *   args.problem.n = 32; args.problem.h = 224; args.problem.w = 224; args.problem.c = 3;
 *   args.problem.k = 64; args.problem.r = 7; args.problem.s = 7;
 *   args.problem.pad_h = 3; args.problem.pad_w = 3;
 *   args.problem.stride_h = 2; args.problem.stride_w = 2;     (P = Q = 112)
 *   args.x = x; args.w = w; args.y = y;
 *   if (tessel_conv2d_fprop(&args, stream) != TESSEL_SUCCESS)
 *     fprintf(stderr, "%s\n", tessel_get_last_error()); */

/* Where a filter tap lands in the image (tessel::ConvMode). */
typedef enum {
  TESSEL_CONV_CROSS_CORRELATION = 0, /* h = p*stride_h - pad_h + r*dilation_h: what
                                        frameworks call convolution */
  TESSEL_CONV_CONVOLUTION = 1        /* h = p*stride_h - pad_h + (R-1-r)*dilation_h: the
                                        filter flipped */
} tessel_conv_mode_t;

/* One 2-D convolution, field by field tessel::Conv2dProblem. Every size is at least 1 (there
 * are no empty convolutions), P and Q must come out at least 1, and each of X (also with its
 * padding), Y and W holds fewer than 2^31 elements (more is TESSEL_ERROR_NOT_SUPPORTED). */
typedef struct tessel_conv2d_problem {
  int n, h, w, c;             /* activations: batch, height, width, channels; >= 1 */
  int k;                      /* output channels (filters); >= 1 */
  int r, s;                   /* filter height and width; >= 1 */
  int pad_h, pad_w;           /* zero rows / columns added on each side; >= 0 */
  int stride_h, stride_w;     /* >= 1 */
  int dilation_h, dilation_w; /* >= 1 (1: a dense filter) */
  tessel_conv_mode_t mode;    /* TESSEL_CONV_CROSS_CORRELATION or TESSEL_CONV_CONVOLUTION */
  int groups;                 /* >= 1, dividing C and K; groups == C == K is depthwise */
} tessel_conv2d_problem_t;

/* fprop, field by field tessel::Conv2dArguments. Fill it with tessel_conv2d_fprop_args_init()
 * first, then set what the problem needs. */
typedef struct tessel_conv2d_fprop_args {
  tessel_conv2d_problem_t problem;
  tessel_dtype_t input_type;  /* X and W: TESSEL_F16 or TESSEL_BF16 */
  tessel_dtype_t output_type; /* Y, the residual and the bias: any type */
  const void* x;              /* N x H x W x C, read */
  const void* w;              /* K x R x S x C/groups, read */
  const void* residual;       /* N x P x Q x K, read only when beta != 0: y itself or disjoint */
  void* y;                    /* N x P x Q x K, written; disjoint from x, w and bias */
  float alpha, beta;          /* any value, NaN and inf included (IEEE arithmetic) */
  const void* bias;           /* K values (one per output channel), or NULL */
  tessel_activation_t activation;
} tessel_conv2d_fprop_args_t;

/* dgrad, the gradient of the activations, field by field tessel::Conv2dDgradArguments. Fill it
 * with tessel_conv2d_dgrad_args_init() first. With stride > 1 some (h, w) receive no tap at
 * all: there dX = act(beta * R + bias). */
typedef struct tessel_conv2d_dgrad_args {
  tessel_conv2d_problem_t problem;
  tessel_dtype_t input_type;  /* dY and W: TESSEL_F16 or TESSEL_BF16 */
  tessel_dtype_t output_type; /* dX, the residual and the bias: any type */
  const void* dy;             /* N x P x Q x K, read */
  const void* w;              /* K x R x S x C/groups, read */
  const void* residual;       /* N x H x W x C, read only when beta != 0: dx itself or disjoint */
  void* dx;                   /* N x H x W x C, written; disjoint from dy, w and bias */
  float alpha, beta;          /* any value, NaN and inf included (IEEE arithmetic) */
  const void* bias;           /* C values (one per input channel), or NULL */
  tessel_activation_t activation;
} tessel_conv2d_dgrad_args_t;

/* wgrad, the gradient of the filters, field by field tessel::Conv2dWgradArguments. Fill it
 * with tessel_conv2d_wgrad_args_init() first. residual == dw with beta = 1 accumulates into
 * dW. The reduction over N*P*Q may be split into slices summed in a fixed order: results are
 * deterministic. No bias, no activation. */
typedef struct tessel_conv2d_wgrad_args {
  tessel_conv2d_problem_t problem;
  tessel_dtype_t input_type;  /* dY and X: TESSEL_F16 or TESSEL_BF16 */
  tessel_dtype_t output_type; /* dW and the residual: any type */
  const void* dy;             /* N x P x Q x K, read */
  const void* x;              /* N x H x W x C, read */
  const void* residual;       /* K x R x S x C/groups, read only when beta != 0: dw itself or
                                 disjoint */
  void* dw;                   /* K x R x S x C/groups, written; disjoint from dy and x */
  float alpha, beta;          /* any value, NaN and inf included (IEEE arithmetic) */
} tessel_conv2d_wgrad_args_t;

/* Fill *args with the C++ defaults (tessel::Conv2dArguments and its kin): the problem
 * N = H = W = C = K = R = S = 1, pads 0, strides and dilations 1, cross-correlation, 1 group;
 * f16 inputs, f32 output, every pointer NULL, alpha 1, beta 0, no activation. Do nothing when
 * args is NULL. */
void tessel_conv2d_fprop_args_init(tessel_conv2d_fprop_args_t* args);
void tessel_conv2d_dgrad_args_init(tessel_conv2d_dgrad_args_t* args);
void tessel_conv2d_wgrad_args_init(tessel_conv2d_wgrad_args_t* args);

/* Run one direction on `stream` (NULL: the legacy default stream), asynchronously, as
 * tessel_gemm() does: everything the matching _validate() checks is checked first, and no
 * kernel is launched for arguments that fail. Split reductions and channel-padded operand
 * copies (few or odd channels, see tessel/runtime/conv2d.hpp) take stream-ordered temporary
 * memory (cudaMallocAsync) freed on the stream. A NULL args is an invalid argument. */
tessel_status_t tessel_conv2d_fprop(const tessel_conv2d_fprop_args_t* args, cudaStream_t stream);
tessel_status_t tessel_conv2d_dgrad(const tessel_conv2d_dgrad_args_t* args, cudaStream_t stream);
tessel_status_t tessel_conv2d_wgrad(const tessel_conv2d_wgrad_args_t* args, cudaStream_t stream);

/* Check *args as the run function would, without touching the GPU: the problem first (sizes,
 * pads, strides, dilations, mode, groups, P and Q, tensor sizes), then the types, the
 * activation, NULL tensors, element alignment and overlaps; the first broken rule is reported,
 * naming the field (e.g. "conv2d: dgrad: dy is null"). */
tessel_status_t tessel_conv2d_fprop_validate(const tessel_conv2d_fprop_args_t* args);
tessel_status_t tessel_conv2d_dgrad_validate(const tessel_conv2d_dgrad_args_t* args);
tessel_status_t tessel_conv2d_wgrad_validate(const tessel_conv2d_wgrad_args_t* args);

/* The output size of *problem, P (rows) into *p and Q (columns) into *q:
 *   P = (H + 2*pad_h - dilation_h*(R-1) - 1) / stride_h + 1,  Q likewise with W, S, pad_w, ...
 * after checking the problem as the run functions do. A NULL pointer or a problem they would
 * refuse (e.g. P < 1) returns its status, with the message in tessel_get_last_error(), and
 * leaves *p and *q unchanged. Y (fprop) and dY (dgrad, wgrad) are N x P x Q x K. */
tessel_status_t tessel_conv2d_output_size(const tessel_conv2d_problem_t* problem, int* p, int* q);

/* The message of the last failing call on this thread that returns a tessel_status_t
 * (tessel_gemm*, tessel_conv2d_*), or "" when the last such call succeeded (or none was
 * made). Never NULL. The text belongs to the library and stays valid until the next such
 * call on this thread. */
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
