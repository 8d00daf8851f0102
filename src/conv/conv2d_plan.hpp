// Planning conv2d: from validated arguments and the device to the implicit GEMMs that run.
// Host code that calls no CUDA function (the device is an input, runtime/device_info.hpp), so
// that tests/host/plan_fuzz_test.cpp plans hundreds of thousands of random problems without a
// GPU, under AddressSanitizer and UBSan; conv2d_{fprop,dgrad,wgrad}.cpp validate, plan, and
// then only execute the plan.
//
// Each direction runs one GEMM shape for every group, the groups as the kernel's batches (one
// grid layer each: a single launch), on
//   - the TMA kernel (sm_90a; fprop of 64 or more channels, dgrad of 64 or more filters, wgrad
//     of whole 64-channel blocks and filters other than 1x1; a grouped layer's groups whole
//     64-channel blocks, dgrad's 64-filter blocks; that the engine can describe:
//     conv_tma_maps.hpp), else
//   - the cp.async wgmma kernel (sm_90a; the 16-byte path with the optimized iterator), else
//   - the sm80 kernel: 16-byte loads, or the narrow (element-wise) path,
// split along K when its tiles fill less than half the SMs, or when between one and two
// tiles per SM would leave some SMs twice the work of others (choose_split); wgrad on the TMA
// kernel runs stream-K instead where tessel::gemm's rule takes it (tiles leave SMs idle, 64 K
// tiles or more), on the persistent kernel in clusters of two tile rows sharing B; wgrad of 512
// filters or more that the TMA kernel would run goes through tessel::gemm over an explicit
// im2col copy instead (WgradPlan::im2col_gemm).
#pragma once

#include <cstddef>
#include <vector>

#include "conv/conv_configs_sm80.hpp"
#include "conv/conv_tma_maps.hpp"
#include "gemm/split_k_reduce.hpp"
#include "tessel/gemm/stream_k.hpp"
#include "runtime/device_info.hpp"
#include "tessel/conv/depthwise_direct.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel::conv_detail {

bool aligned(const void* p, int bytes);

// Split-K for one implicit GEMM of `batches` groups: when their tiles fill less than half the SMs, as
// many slices of K as blocks_per_sm blocks an SM hold, rounded down so that there is never a
// second wave (two; one for fprop's and dgrad's 128x128 TMA tiles, which then run deep), each of at
// least 16 K tiles (on the wgmma kernels 1024 K: 32 tiles of 32, 16 of 64), at most 64. E.g.
// wgrad 64 -> 64 3x3 at N = 32, 56x56: 5 tiles of 64x128, 3136 K tiles of 32 on 132 SMs ->
// 52 slices of 61 (260 items). Between one and two tiles per SM (more tiles than SMs, fewer
// than twice as many), the fewest slices, at most 8 of at least the same length, whose busiest
// SM gets at most 1.3 tiles' work: wgrad 7x7x512 at N = 128, 144 tiles -> 4 slices. Groups
// (batches > 1) on the cp.async kernels between half the SMs and all of them: the fewest slices,
// at most 8 of at least the same length, that cut the busiest SM's K tiles by a fifth (ResNeXt's
// 7x7x1024 g32 wgrad at N = 128, 96 tiles of 196 K tiles -> 4 slices, 3 items of 49 an SM).
// (Slices of 8 K tiles lost to 16 where both split; splitting at up to 2 tiles per SM lost
// overall: docs/PERFORMANCE.md.) An empty GEMM (m or n = 0) is not split.
struct Split {
  int splits = 1, k_tiles_per_split = 1 << 30;  // no split: one slice of everything
  // Output columns the GEMM computes but D does not have (wgrad on channel-padded
  // activations); with any, the GEMM goes through the workspace even unsplit.
  sm80::ColumnCompaction columns{};
  bool partials() const { return splits > 1 || columns.block > 0; }
  std::size_t workspace_bytes(int m, int n) const {
    return partials() ? std::size_t(splits) * std::size_t(m) * std::size_t(n) * sizeof(float) : 0;
  }
};
Split choose_split(int m, int n, int k, sm80::ConvTile tile, int sms, int batches = 1, int blocks_per_sm = 2);

// One implicit GEMM as it runs for each group.
struct ConvGemm {
  int m = 0, n = 0, k = 0;  // the GEMM; on the TMA kernel k counts each tap's channels in whole tiles
  int groups = 1;           // the GEMM's batches, one per group (grid layers, conv2d_common.hpp)
  sm80::ConvTile tile;      // the kernel: tile, wgmma, tma, persistent
  bool optimized = true;    // fprop and dgrad: the optimized activation iterator (else the analytic)
  Split split;
  // wgrad on the TMA kernel, persistent: the stream-K schedule (sk_items > 0; split none)
  StreamKSchedule stream_k;
  sm90::ConvTmaMaps tma;  // tile.tma: its operands' maps
  std::size_t workspace_bytes() const { return split.workspace_bytes(m, n) * std::size_t(groups); }
};

// Depthwise layers (C/G = K/G = 1) and narrow groups (C/G = K/G = 2, 4 or 8, C % 8 == 0 and
// 16-byte aligned tensors; wgrad up to kDirectWgradMaxGroupWidth), R*S*C/G at most
// kDepthwiseMaxTaps, run on the direct kernels instead of G GEMMs of C/G columns
// (tessel/conv/depthwise_direct.hpp). Their launch:
struct DepthwisePlan {
  bool direct = false;
  // What the kernel computes: the layer itself, or, for dgrad at stride 1, the fprop over dY
  // whose output is dX (as_fprop: dgrad_as_fprop(layer)).
  Conv2dProblem problem;
  bool as_fprop = false;
  bool strip = false;              // fprop: depthwise_fprop_strip_kernel (depthwise_strip(problem) > 0)
  int cg = 1;                      // channels per group, C/G = K/G (1: depthwise)
  int vec = 1;                     // channels per thread: 8 (16-byte loads: C % 8 == 0, aligned tensors), kSlideVec (slide) or 1
  int vectors = 1;                 // channel vectors per block
  int blocks_x = 0, blocks_y = 0;  // the grid: pixel (or strip) blocks (wgrad: blocks of slices), channel blocks
  int blocks_per_sm = 0;           // fprop, dgrad: the kernel's blocks an SM that the grid assumed (whole waves)
  int pixels_per_slice = 0;        // wgrad: pixels of a slice
  int slices = 0, slice_lanes = 1;  // wgrad: slices of N*P*Q (partial sums), slices a block
  bool row_taps = false;            // wgrad: a thread per filter row (depthwise, S of 5 to 7, or slide), else per tap
  bool slide = false;               // wgrad: depthwise_wgrad_slide_kernel (row_taps; slices of row pieces)
  // slide: each output row in row_pieces runs of ceil(Q / row_pieces) columns, a slice
  // pieces_per_slice of them (pixels_per_slice unused)
  int row_pieces = 1, pieces_per_slice = 0;
  // slide: units in (n, piece, p) order, so that a slice walks its piece down the rows and a
  // lane's filter-row threads re-read the few columns L1 holds (else (n, p, piece): along rows)
  bool slide_down = false;
  std::size_t workspace_bytes = 0;  // wgrad: the blocks' fp32 partial sums (blocks_x, R*S, K, C/G)
};
enum class ConvDirection { kFprop, kDgrad, kWgrad };
// wgrad takes the direct kernel for groups up to this wide; wider ones run as grouped GEMMs.
inline constexpr int kDirectWgradMaxGroupWidth = 4;
// fprop and dgrad on the direct kernels: at most this many pixels (or strips) a thread.
inline constexpr int kDirectUnitsPerThread = 8;
// dgrad of a stride-1 layer as an fprop: dX = the true-convolution-flipped filter over dY (P x Q)
// with pads (R-1)*dilation - pad, whose output extent is H x W.
Conv2dProblem dgrad_as_fprop(const Conv2dProblem& pb);
// `aligned`: every tensor the kernel reads or writes by vectors is 16-byte aligned.
DepthwisePlan plan_depthwise(ConvDirection direction, const Conv2dProblem& pb, bool aligned, int sms);

// Groups of 8 to 32 channels (wgrad: 4 to 16), C = K a multiple of 64, run as
// C/64 groups of 64 channels over a block-diagonal filter (conv/packed_groups.hpp) where
// device.packed_groups and `aligned` (the activations the 64-channel layer reads by vectors
// are 16-byte aligned). The
// direction's plan then holds only that layer (`packed_groups`, `problem` or `filter`): its
// runner makes the copies and plans the layer of 64-channel groups when it runs it.
bool packs_groups(ConvDirection direction, const Conv2dProblem& pb, bool aligned, const DeviceInfo& device);

// An ungrouped 1x1 layer with stride 1 and no padding is a plain GEMM over the NHWC pixel
// rows, and runs as tessel::gemm (its planner's tiles, split-K and stream-K) where
// device.conv_as_gemm:
//   fprop  Y (NHW, K) = X (NHW, C) . W^T    W (K, C) row-major: a column-major (C, K) B
//   dgrad  dX (NHW, C) = dY (NHW, K) . W    W a row-major (K, C) B
//   wgrad  dW (K, C) = dY^T . X             dY^T a column-major (K, NHW) A, lda = K
// with the layer's epilogue (bias per column, the residual as C). These return false for
// every other layer, or with conv_as_gemm off.
bool fprop_as_gemm(const Conv2dArguments& args, const DeviceInfo& device, GemmArguments* out);
bool dgrad_as_gemm(const Conv2dDgradArguments& args, const DeviceInfo& device, GemmArguments* out);
bool wgrad_as_gemm(const Conv2dWgradArguments& args, const DeviceInfo& device, GemmArguments* out);

// fprop. Ungrouped layers whose channels (or pointers) rule out 16-byte loads, such as the RGB
// stem (C = 3), run on copies of X and W:
//   - strided layers, where it shortens the reduction: the space-to-depth copies
//     (tessel/conv/space_to_depth.hpp), a stride-1 layer of sh*sw*C channels rounded up to 8
//     (the stem: R*S*C' = 4*4*16 = 256);
//   - else copies padded with zero channels to C8 = C rounded up to 8 (the stem: 7*7*8 = 392).
// Either way the reduction grows past R*S*C, but every load is a 16-byte cp.async instead of
// eight 2-byte loads. Grouped layers, and copies past 2^31 elements, take the narrow path.
struct FpropPlan {
  DepthwisePlan depthwise;      // depthwise.direct: the direct kernel, and nothing below
  bool packed_groups = false;   // packs_groups: the layer `problem` over a copy of W (w_copy_bytes);
                                // nothing below
  bool space_to_depth = false;  // X and W run on space-to-depth copies (x_copy_bytes, w_copy_bytes)
  bool pad_channels = false;    // X and W run on zero-padded copies (x_copy_bytes, w_copy_bytes)
  Conv2dProblem problem;        // as the kernels see it: space_to_depth_problem, or C8 channels
  bool narrow = false;        // element-wise loads
  ConvGemm gemm;              // (N*P*Q, K/G, R*S*C/G)
  std::size_t x_copy_bytes = 0, w_copy_bytes = 0;
};
FpropPlan plan_fprop(const Conv2dArguments& args, const DeviceInfo& device);

// dgrad, by stride phases (tessel/conv/dgrad_operand_sm80.hpp). An ungrouped layer whose
// channels rule out 16-byte loads of W, while dY allows them, runs on a copy of W padded with
// zero channels to C8; the GEMM's N stays C, so the padding columns are never stored.
struct DgradPhasePlan {
  DgradPhase phase;
  ConvGemm gemm;  // (N*rows*cols, C/G, R'*S'*K/G); K = 0 for a phase no tap reaches: the epilogue alone
};
struct DgradPlan {
  DepthwisePlan depthwise;  // depthwise.direct: the direct kernel, and nothing below
  bool packed_groups = false;  // packs_groups: the layer `filter` over a copy of W (w_copy_bytes);
                               // nothing below
  // A strided layer with few channels whose space-to-depth form has the shorter reduction (as
  // fprop's): the stride-1 dgrad of that form (`space_to_depth_problem`, one phase) from dY and
  // a copy W' (w_copy_bytes) into an fp32 dX' (dx_copy_bytes), then dX from dX' with the
  // epilogue (conv/space_to_depth.hpp). conv2d_dgrad plans that stride-1 dgrad when it runs it;
  // nothing below is planned.
  bool space_to_depth = false;
  Conv2dProblem space_to_depth_problem;
  std::size_t dx_copy_bytes = 0;
  bool pad_filter = false;  // W runs on a zero-padded copy (w_copy_bytes)
  Conv2dProblem filter;     // W's geometry as the kernels see it (C8 channels when padded)
  bool narrow = false;
  // The phases that have rows, in (ph, pw) order. A phase (ph, pw) with ph >= H or pw >= W (the
  // image smaller than the stride) has no rows of dX: nothing to write, so no GEMM.
  std::vector<DgradPhasePlan> phases;
  // Every phase in one launch of the TMA kernel, phase i its batch i (ConvDgradPhasesTmaA), where
  // each phase with taps takes the TMA kernel, there are 2 to kDgradTmaMaxPhases phases, and
  // together they need no split-K (phases alone each fill a fraction of the GPU). Then
  // one_launch_gemm is that launch: M the most rows of a phase, N, K the most of a phase's
  // (each its own: phases[i].gemm), the phases as its groups; no split; persistent by the
  // whole launch's tiles. Otherwise a launch per phase.
  bool one_launch = false;
  ConvGemm one_launch_gemm;
  std::size_t w_copy_bytes = 0;
  std::size_t workspace_bytes = 0;  // split-K's, the largest phase's (the phases run in order)
};
DgradPlan plan_dgrad(const Conv2dDgradArguments& args, const DeviceInfo& device);

// wgrad. An ungrouped layer whose activations rule out 16-byte loads (C = 3 at stride 1)
// while dY allows them runs on a copy of X padded with zero channels to C8: the GEMM computes
// (K, R*S*C8) into an fp32 workspace (split or not), and the reduction keeps the first C of
// every C8 columns (split.columns): dW (K, R*S*C).
struct WgradPlan {
  DepthwisePlan depthwise;    // depthwise.direct: the direct kernel, and nothing below
  // packs_groups: `problem` and `gemm` are the layer of 64-channel groups, whose split-K
  // reduction (always taken: split.columns) writes dW from the block diagonal
  bool packed_groups = false;
  // A strided layer with few channels whose space-to-depth form has the shorter reduction (as
  // fprop's): the stride-1 wgrad of that form (`space_to_depth_problem`) from dY and a copy X'
  // (x_copy_bytes) into an fp32 dW' (dw_copy_bytes), then dW from dW' with alpha and beta
  // (conv/space_to_depth.hpp). conv2d_wgrad plans that stride-1 wgrad when it runs it; nothing
  // below is planned.
  bool space_to_depth = false;
  Conv2dProblem space_to_depth_problem;
  std::size_t dw_copy_bytes = 0;
  bool pad_channels = false;  // X runs on a zero-padded copy (x_copy_bytes)
  Conv2dProblem problem;      // as the kernels see it: C8 channels when padded
  bool narrow = false;
  ConvGemm gemm;  // (K/G, R*S*C/G, N*P*Q)
  std::size_t x_copy_bytes = 0;
  // The layer runs as tessel::gemm over an explicit im2col copy B of X (im2col_bytes,
  // conv/im2col.hpp): wgrad_im2col_gemm. `gemm` keeps the TMA kernel's plan, which runs instead
  // where the copy cannot be allocated.
  bool im2col_gemm = false;
  std::size_t im2col_bytes = 0;
  // The configuration it asks tessel::gemm for (GemmArguments::config), or null for gemm's own
  // choice.
  const char* im2col_gemm_config = nullptr;
};
// WgradPlan::im2col_gemm takes layers that the TMA kernel would run with at least this many
// filters and a copy no larger than X (P*Q*R*S <= H*W; conv2d_plan.cpp says why).
inline constexpr int kWgradIm2colMinFilters = 512;
WgradPlan plan_wgrad(const Conv2dWgradArguments& args, const DeviceInfo& device);

// WgradPlan::im2col_gemm's GEMM, B the copy `im2col` (N*P*Q, R*S*C):
//   dW (K, R*S*C) = dY^T (K, N*P*Q) . B   dY^T a column-major A (lda = K), B row-major
// with the layer's alpha, beta and residual, in plan.im2col_gemm_config.
GemmArguments wgrad_im2col_gemm(const Conv2dWgradArguments& args, const WgradPlan& plan, const void* im2col);

}  // namespace tessel::conv_detail
