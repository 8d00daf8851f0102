// The GEMM runtime: one call, any problem the kernels cover, errors as Status.
//
//   D = act(alpha * A * B + beta * C + bias)         (batch times, strided)
//
//   A  M x K, row- or column-major, leading dimension lda: element (m,k) is a[m*lda + k]
//      (row-major) or a[m + k*lda] (column-major)
//   B  K x N, row- or column-major, leading dimension ldb: element (k,n) is b[k*ldb + n]
//      (row-major) or b[k + n*ldb] (column-major)
//   C, D  M x N, both with d_layout; C has its own ldc and may be the same memory as D
//      (then ldc == ldd and c_batch_stride == d_batch_stride)
//   bias  N values (one per column of D, the same for every batch), the output type, or null
//   act   none, ReLU (max(x,0)) or GELU (tanh approximation)
//
// Inputs f16 or bf16 (A and B the same), accumulation in fp32, alpha and beta fp32, C and D
// f16, bf16 or f32 (the same type). C is read exactly when beta != 0 (a NaN beta reads C);
// with beta == 0 it may be null. Alpha and beta may be any float, NaN and inf included.
//
// Memory rules (validate() checks them; src/runtime/validate_gemm.cpp lists its checks):
//   - m == 0 or n == 0 is a no-op: nothing is read or written, pointers may be null;
//     k == 0 is not: D = act(beta * C + bias), A and B are not read and may be null.
//   - each pointer is a multiple of its element size; wider alignment is never required
//     (the dispatcher picks narrower loads).
//   - one matrix spans (rows-1)*ld + cols < 2^31 elements, and ld < 2^31: the kernels
//     index within a matrix with 32-bit ints (larger is kNotSupported).
//   - with batch > 1, d_batch_stride >= the span of one D (batches of D do not overlap).
//   - D's bytes over all batches do not overlap those of A, B or bias, nor those of C unless
//     c == d with ldc == ldd and c_batch_stride == d_batch_stride. Overlap is judged on byte
//     ranges from the first to one past the last element, so interleaved buffers are refused.
//
// In BLAS terms (column-major D), cuBLAS's "TN" (op(A) = A^T, op(B) = B) is A row-major and
// B column-major here: both K-contiguous, the fastest case.
//
// Example:
//   tessel::GemmArguments args;
//   args.m = 4096; args.n = 4096; args.k = 4096;
//   args.a = a; args.a_layout = tessel::MatrixLayout::kRowMajor; args.lda = 4096;
//   args.b = b; args.b_layout = tessel::MatrixLayout::kColumnMajor; args.ldb = 4096;
//   args.d = d; args.ldd = 4096;                       // f32 output, row-major
//   tessel::Status s = tessel::gemm(args, stream);
//   if (!s) std::fprintf(stderr, "%s\n", s.message().c_str());
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tessel/runtime/status.hpp"
#include "tessel/runtime/types.hpp"

namespace tessel {

const char* data_type_name(DataType t);  // "f16", "bf16", "f32"
int data_type_bytes(DataType t);         // 2, 2, 4

struct GemmArguments {
  int m = 0, n = 0, k = 0;  // >= 0; m or n == 0: a no-op; k == 0: D = act(beta*C + bias)
  int batch = 1;            // >= 1

  DataType input_type = DataType::kF16;   // A and B
  DataType output_type = DataType::kF32;  // C and D

  const void* a = nullptr;
  MatrixLayout a_layout = MatrixLayout::kRowMajor;
  std::int64_t lda = 0;             // >= K (row-major) or >= M (column-major) when read
  std::int64_t a_batch_stride = 0;  // elements between batches; 0 broadcasts one A

  const void* b = nullptr;
  MatrixLayout b_layout = MatrixLayout::kColumnMajor;
  std::int64_t ldb = 0;  // >= N (row-major) or >= K (column-major), >= 1
  std::int64_t b_batch_stride = 0;

  const void* c = nullptr;  // read only when beta != 0
  std::int64_t ldc = 0;  // >= N (row-major) or >= M (column-major) when read
  std::int64_t c_batch_stride = 0;

  void* d = nullptr;
  MatrixLayout d_layout = MatrixLayout::kRowMajor;  // also C's layout
  std::int64_t ldd = 0;  // >= N (row-major) or >= M (column-major), >= 1
  std::int64_t d_batch_stride = 0;  // with batch > 1: batches of D must not overlap

  float alpha = 1.0f, beta = 0.0f;
  const void* bias = nullptr;  // N values of output_type, or null
  Activation activation = Activation::kNone;

  // A tile configuration by name (see gemm_config_names()), or empty for the heuristic.
  std::string config;
};

// Runs the GEMM on `stream` (asynchronous; errors of the launch itself are reported, errors
// inside the kernel surface at the next synchronisation). Validates everything first.
Status gemm(const GemmArguments& args, cudaStream_t stream = nullptr);

// Checks the arguments without touching the GPU: the same checks gemm() makes.
Status validate(const GemmArguments& args);

// What gemm() would run for these arguments. On an H100 with libtessel built for sm_90a:
//   {config "sm90_128x128x64_s5", variant "tma", access "TMA",
//    kernel "sm90_tma_warp_specialized", schedule "cooperative persistent"}
// elsewhere, with TESSEL_DISABLE_SM90=1, or with operands the TMA engine cannot read:
//   {config "128x128x32_s4_w2x2", variant "edge", access "16B", kernel "sm80_multistage", ...}
// Validates first. Without a GPU it plans for an H100 with this build's kernels.
struct GemmPlan {
  std::string config;   // a name from gemm_config_names()
  std::string variant;  // sm80: "interior" (tile multiples, or staged copies of whole tiles:
                        // nothing predicated) or "edge", with
                        // "+splitk<n>" when K is cut into n slices summed by a second kernel;
                        // sm90: "tma" (the engine zero-fills the edges), "tma+streamk" when
                        // the blocks share the last tiles' K tiles (a stream-ordered fp32
                        // workspace of 2 tiles per SM for the call)
  std::string access;   // global loads: "TMA"; sm80: "16B", "8B" or "4B" (cp.async of 8, 4 or 2
                        // elements: the widest the operands' rows, leading dimensions, batch
                        // strides and pointers allow) or "2B" (element-wise); "+staged" when
                        // operands are first copied to 16-byte rows (a stream-ordered workspace
                        // for the call: large problems whose rows are odd numbers of elements)
  bool swapped = false; // computed as D^T = B^T A^T (column-major D)
  int split_k = 1;      // K slices; above 1, gemm() takes a stream-ordered fp32 workspace of
                        // split_k * batch * M * N floats (cudaMallocAsync) for the call
  std::string kernel;   // "sm90_tma_warp_specialized" or "sm80_multistage"
  std::string schedule; // "cooperative persistent" (both MMA warpgroups on one tile, one block
                        // per SM walking the tiles), "ping-pong persistent" (each warpgroup
                        // its own tile, in turn) or "one tile per block" (sm80); ", clusters
                        // of 2 along M (B multicast)" for the _c2 configurations; ", D
                        // stored by the TMA engine" where the epilogue stages 16-bit D in
                        // shared memory for the engine to store
};
Status plan(const GemmArguments& args, GemmPlan* out);

// The shipped tile configurations: the sm80 kernel's, then the sm_90a kernel's ("sm90_...",
// compute capability 9.0 only), each largest first.
std::vector<std::string> gemm_config_names();

}  // namespace tessel
