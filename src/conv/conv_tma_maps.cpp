#include "conv/conv_tma_maps.hpp"

namespace tessel::sm90 {
namespace {

constexpr std::uint64_t kElementBytes = 2;
constexpr int kMaxIm2colOffset = 127;
constexpr int kMaxTraversal = 8;

int swizzle_for(int tile_k) { return tile_k == 64 ? 128 : 64; }

// The im2col map of the NHWC tensor of pb (N, H, W, C), walked over the (out_p, out_q) grid of
// pb's padding, stride and filter; boxes of tile_k channels x tile_m pixels.
bool plan_im2col(const Conv2dProblem& pb, int out_p, int out_q, int tile_m, int tile_k, TmaMapParams* a) {
  if (pb.c % 8 != 0 || pb.stride_h > kMaxTraversal || pb.stride_w > kMaxTraversal) return false;
  if ((long long)(pb.r - 1) * pb.dilation_h > kMaxIm2colOffset ||
      (long long)(pb.s - 1) * pb.dilation_w > kMaxIm2colOffset)
    return false;
  const Im2colWalk walk = make_im2col_walk(pb, out_p, out_q);
  TmaMapParams m;
  m.im2col = true, m.rank = 4;
  m.dims[0] = std::uint64_t(pb.c), m.dims[1] = std::uint64_t(pb.w), m.dims[2] = std::uint64_t(pb.h);
  m.dims[3] = std::uint64_t(pb.n);
  m.strides[0] = m.dims[0] * kElementBytes;
  m.strides[1] = m.strides[0] * m.dims[1];
  m.strides[2] = m.strides[1] * m.dims[2];
  for (int i = 0; i < 2; ++i) m.lower[i] = walk.lower[i], m.upper[i] = walk.upper[i];
  m.channels = std::uint32_t(tile_k), m.pixels = std::uint32_t(tile_m);
  m.traversal[1] = std::uint32_t(walk.traversal[0]), m.traversal[2] = std::uint32_t(walk.traversal[1]);
  m.swizzle_bytes = swizzle_for(tile_k);
  if (!tma_map_problem(m).empty()) return false;
  *a = m;
  return true;
}

}  // namespace

bool plan_fprop_tma(const Conv2dProblem& pb, bool aligned, int tile_m, int tile_n, int tile_k, ConvTmaMaps* out) {
  if (!aligned || (tile_k != 32 && tile_k != 64)) return false;
  // Groups as batches: each group's channels whole K tiles, its filters 16-byte rows of W.
  if (pb.groups != 1 && (pb.channels_per_group() % tile_k != 0 || pb.filters_per_group() % 8 != 0)) return false;
  ConvTmaMaps maps;
  if (!plan_im2col(pb, pb.p(), pb.q(), tile_m, tile_k, &maps.a)) return false;
  maps.walk = make_conv_tma_geometry(pb, tile_k, pb.p(), pb.q());
  const long long gemm_k = (long long)pb.r * pb.s * maps.walk.c_blocks * tile_k;
  if (gemm_k > 2147483647LL) return false;
  // W as (C/G, R*S, K), boxes (tile_k, 1, tile_n).
  maps.b = tiled_map<3>({std::uint64_t(pb.channels_per_group()), std::uint64_t(pb.r) * pb.s, std::uint64_t(pb.k)},
                    {std::uint32_t(tile_k), 1, std::uint32_t(tile_n)}, tile_k);
  if (!tma_map_problem(maps.b).empty()) return false;
  maps.gemm_k = int(gemm_k);
  *out = maps;
  return true;
}

bool plan_dgrad_tma(const Conv2dProblem& filter, const DgradPhase& phase, bool aligned, int tile_m, int tile_n,
                    int tile_k, ConvTmaMaps* out) {
  if (!aligned || tile_k != 64 || tile_n % 64 != 0 || filter.channels_per_group() % 8 != 0 || phase.rows < 1 ||
      phase.cols < 1 || phase.taps_r < 1 || phase.taps_s < 1)
    return false;
  // Groups as batches: each group's filters whole K tiles, so that no K tile reads the next group's.
  if (filter.groups != 1 && filter.filters_per_group() % tile_k != 0) return false;
  ConvTmaMaps maps;
  if (!plan_im2col(phase.fprop, phase.rows, phase.cols, tile_m, tile_k, &maps.a)) return false;
  maps.walk = make_conv_tma_geometry(phase.fprop, tile_k, phase.rows, phase.cols);
  const long long gemm_k = (long long)phase.taps_r * phase.taps_s * maps.walk.c_blocks * tile_k;
  if (gemm_k > 2147483647LL) return false;
  const std::uint64_t cg = std::uint64_t(filter.channels_per_group()), taps = std::uint64_t(filter.r) * filter.s;
  maps.b_dgrad = make_dgrad_filter_tma_geometry(filter, phase, tile_n, tile_k);
  if (cg % 64 == 0) {
    // W as (64 c, K, C/G/64, R*S), box (64, tile_k, tile_n/64, 1): a K tile's blocks of 64
    // channels at one tap, block after block (strides: a filter, a block, a tap).
    maps.b = tiled_map<4>({64, std::uint64_t(filter.k), cg / 64, taps},
                          {64, std::uint32_t(tile_k), std::uint32_t(tile_n / 64), 1}, tile_k);
    maps.b.strides[0] = taps * cg * kElementBytes, maps.b.strides[1] = 64 * kElementBytes;
    maps.b.strides[2] = cg * kElementBytes;
    maps.b_dgrad.one_box = true;
  } else {
    // W as (C/G, R*S, K), boxes (64, 1, tile_k): 64 channels of tile_k filters at one tap.
    maps.b = tiled_map<3>({cg, taps, std::uint64_t(filter.k)}, {64, 1, std::uint32_t(tile_k)}, tile_k);
  }
  if (!tma_map_problem(maps.b).empty()) return false;
  maps.gemm_k = int(gemm_k);
  *out = maps;
  return true;
}

bool plan_wgrad_tma(const Conv2dProblem& pb, bool aligned, ConvTmaMaps* out) {
  constexpr int kBox = 64;  // channels (a column block of dW) and pixels (a K tile) of B's box
  // Whole 64-channel boxes, so that no column block of dW straddles two taps; 16-byte rows of dY.
  // Groups as batches: whole boxes of each group's channels, 16-byte runs of its filters.
  const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
  if (!aligned || cg % kBox != 0 || kg % 8 != 0 || pb.k % 8 != 0) return false;
  ConvTmaMaps maps;
  if (!plan_im2col(pb, pb.p(), pb.q(), kBox, kBox, &maps.b)) return false;
  maps.walk = make_conv_tma_geometry(pb, kBox, pb.p(), pb.q());
  // dY as (K/G, N*P*Q, G), boxes (64 filters, 64 pixels): gemm/matrix_operand_sm90.hpp's
  // MN-major A, group g the batch g (dY's filters g*K/G.., a stride of K/G elements).
  maps.a = tiled_map<3>({std::uint64_t(kg), std::uint64_t(pb.n) * pb.p() * pb.q(), std::uint64_t(pb.groups)},
                        {kBox, kBox, 1}, kBox);
  if (pb.groups > 1) maps.a.strides[0] = std::uint64_t(pb.k) * 2, maps.a.strides[1] = std::uint64_t(kg) * 2;
  if (!tma_map_problem(maps.a).empty()) return false;
  maps.gemm_k = pb.n * pb.p() * pb.q();
  *out = maps;
  return true;
}

}  // namespace tessel::sm90
