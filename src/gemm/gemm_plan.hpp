// Planning the GEMM: from validated GemmArguments and the device to one precompiled kernel.
// Host code that calls no CUDA function (the device is an input, runtime/device_info.hpp), so
// that tests/host/plan_fuzz_test.cpp plans random problems without a GPU; dispatch.cpp
// launches what it chose.
//
//   1. the kernel's view: D row-major (M,N) = A (M,K) * B (N,K)^T. A column-major D is
//      computed as D^T = B^T A^T (A and B swap, M and N swap, the bias runs along rows)
//   2. each operand K-major or MN-major
//   3. the kernel: on a device with sm_90a's wgmma (DeviceInfo::wgmma()), the warp-specialized
//      TMA kernel (gemm/kernel_sm90_tma.hpp). Its operands are TMA maps, which need 16-byte
//      aligned pointers, leading dimensions and batch strides; an operand without them is
//      staged (StagedOperand) when the problem is large enough to pay for the copy, else the
//      sm80 kernel runs it. Elsewhere the sm80 kernel, with the widest cp.async both operands
//      allow (16, 8 or 4 bytes; element-wise loads where rows are odd numbers of elements),
//      operands below 16 bytes staged where that pays
//   4. a tile configuration (the override, or the heuristic); for sm80, interior or edge variant
//   5. the TMA kernel: stream-K when the last wave of tiles would leave SMs idle, where it
//      measured at least as fast (tessel/gemm/stream_k.hpp: the blocks share the last tiles'
//      K tiles and the last contributor of each tile adds the partials). Otherwise, and on
//      sm80: split-K when the output tiles would leave most SMs idle and K is deep: the kernel
//      writes each K slice's fp32 partial sums to a stream-ordered workspace, split_k_reduce
//      sums them in order and applies the epilogue
#pragma once

#include <cstdint>

#include "gemm/instances_sm80.hpp"
#include "runtime/device_info.hpp"
#include "runtime/tma_map.hpp"
#include "tessel/gemm/stream_k.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel::sm90 {
struct TmaTileConfigInfo;  // gemm/tile_configs_sm90.hpp
}  // namespace tessel::sm90

namespace tessel::gemm_detail {

// One operand as the kernel sees it: (MN, K), K-major or MN-major.
struct OperandView {
  const void* ptr;
  Major major;
  std::int64_t ld, batch_stride;
  int mn;
};

struct KernelProblem {
  int m, n, k, batch;
  OperandView a, b;  // (M,K) and (N,K)
  bool swapped;
};

enum class GemmKernel { kSm80, kSm90Tma };

// An operand whose rows a kernel cannot read at full width (a pointer, leading dimension or
// batch stride that is not a multiple of 16 bytes: K = 700 in a packed row-major A) can first
// be copied into a workspace with 16-byte rows: (batches, rows, ld) with ld the contiguous
// extent rounded up to 16 elements (32 bytes: gemm_plan.cpp's kStageRowElements), zeros past
// it (runtime/pad_rows.hpp); the kernel reads the copy (the TMA engine up to the extent).
// For the sm80 kernel the copy holds whole tiles: ld and rows rounded up to its tile's
// extents, zeros past the operand, so that it reads the copy without edge predicates.
struct StagedOperand {
  bool on = false;
  std::int64_t ld = 0, batch_stride = 0;  // of the copy
  int batches = 1;                        // 1 when every batch reads the same matrix
  int contiguous = 0, strided = 0;        // the operand's elements per row, rows per matrix
  int rows = 0;                           // the copy's rows per matrix (>= strided)
  std::int64_t bytes() const { return std::int64_t(batches) * batch_stride * 2; }
};

// The sm_90a TMA kernel's choice: a configuration and the operands' maps (encoded at launch;
// unused when K is 0: the kernel loads nothing).
struct TmaChoice {
  int config = 0;  // index into sm90::kTmaTileConfigs
  sm90::TmaMapParams a, b;  // over the staged copies where the operands are staged
  bool a_broadcast = false, b_broadcast = false;  // batch stride 0: a map of one batch
  StreamKSchedule stream_k;  // sk_items == 0: whole tiles only (its blocks and items set at launch)
  bool d_tma = false;        // D stored by the TMA engine (epilogue_tma_store_sm90.hpp), through map d
  sm90::TmaMapParams d;
};

struct Choice {
  KernelProblem problem;
  GemmKernel kernel;
  sm80::KernelChoice sm80;  // kernel == kSm80
  TmaChoice sm90;           // kernel == kSm90Tma
  StagedOperand a_staged, b_staged;  // copied first (either kernel)
  int splits;               // K slices (1: none; 1 when the TMA kernel runs stream-K)
  int k_tiles_per_split;    // K tiles each slice accumulates
};

// The map of one operand (MN, K) of `batch` batches for tiles of tile_mn x 64 (TmaMatrix,
// tessel/gemm/matrix_operand_sm90.hpp); false when the TMA engine cannot read it.
bool plan_operand_map(OperandView const& v, int k, int batch, int tile_mn, sm90::TmaMapParams* out, bool* broadcast);

// D's map for the TMA epilogue (tessel/gemm/epilogue_tma_store_sm90.hpp) of configuration c:
// (N, M, batch) in the kernel's view, boxes of 64 columns and a warpgroup's rows, 128-byte
// swizzle. False where the epilogue stores from the registers: D not 16-bit, split-K (the
// kernel writes fp32 slices), the store warps' configurations, D or C not in 16-byte runs
// (epilogue_vectorizes), N (the kernel's) not a multiple of 8, or TESSEL_DISABLE_TMA_STORE set
// (DeviceInfo::tma_store).
bool plan_d_map(GemmArguments const& args, KernelProblem const& p, sm90::TmaTileConfigInfo const& c, int splits,
                DeviceInfo const& device, sm90::TmaMapParams* out);

// Stream-K for the persistent TMA kernel on `batch` (M, N, K) GEMMs in tiles of tile_m x tile_n x
// tile_k, where whole tiles would leave SMs idle and K is deep (the rule: gemm_plan.cpp); an
// empty schedule (sk_items 0) otherwise. conv2d's wgrad plans with it too.
StreamKSchedule choose_stream_k(int m, int n, int k, int batch, int tile_m, int tile_n, int tile_k,
                                DeviceInfo const& device);

// Whether the epilogue can access D (and C, when beta != 0) in 16-byte runs: pointers,
// leading dimensions and batch strides multiples of 16 bytes (EpilogueParams::vector_ok).
bool epilogue_vectorizes(GemmArguments const& args);

// The kernel for valid, non-empty arguments (m, n >= 1) on `device`; kInvalidArgument or
// kNotSupported for a config override that this build lacks or that cannot run the problem.
Status choose(GemmArguments const& args, DeviceInfo const& device, Choice* out);

// The view the kernel reads: v itself, or, when staged, the copy at `copy`.
OperandView kernel_view(OperandView const& v, StagedOperand const& s, const void* copy);

// What choose() picked, as tessel::plan() reports it.
GemmPlan describe(Choice const& choice);

}  // namespace tessel::gemm_detail
