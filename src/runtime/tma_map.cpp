#include "runtime/tma_map.hpp"

namespace tessel::sm90 {
namespace {
constexpr std::uint64_t kElementBytes = 2;
constexpr std::uint32_t kMaxTraversal = 8;
}  // namespace

std::string tma_map_problem(const TmaMapParams& p) {
  const auto s = [](auto v) { return std::to_string(v); };
  if (p.rank < 3 || p.rank > 4) return "rank = " + s(p.rank) + " is not 3 or 4";
  for (int i = 0; i < p.rank; ++i) {
    if (p.dims[i] == 0 || p.dims[i] > (std::uint64_t(1) << 32))
      return "dims[" + s(i) + "] = " + s(p.dims[i]) + " is outside [1, 2^32]";
    if (p.traversal[i] == 0 || p.traversal[i] > kMaxTraversal)
      return "traversal[" + s(i) + "] = " + s(p.traversal[i]) + " is outside [1, 8]";
  }
  for (int i = 0; i < p.rank - 1; ++i) {
    if (p.strides[i] % 16 != 0 || p.strides[i] >= (std::uint64_t(1) << 40))
      return "strides[" + s(i) + "] = " + s(p.strides[i]) + " bytes is not a multiple of 16 below 2^40";
  }
  if (p.swizzle_bytes != 64 && p.swizzle_bytes != 128) return "swizzle = " + s(p.swizzle_bytes) + " bytes";
  const std::uint64_t inner = (p.im2col ? p.channels : p.box[0]) * kElementBytes;
  if (inner == 0 || inner % 16 != 0 || inner > std::uint64_t(p.swizzle_bytes))
    return "the box's inner extent, " + s(inner) + " bytes, is not a multiple of 16 up to the " +
           s(p.swizzle_bytes) + "-byte swizzle";
  if (!p.im2col) {
    for (int i = 0; i < p.rank; ++i) {
      if (p.box[i] == 0 || p.box[i] > 256) return "box[" + s(i) + "] = " + s(p.box[i]) + " is outside [1, 256]";
    }
    return {};
  }
  if (p.rank != 4) return "im2col maps here are 4-d (N, H, W, C)";
  if (p.channels > 256) return "channels = " + s(p.channels) + " is above 256";
  if (p.pixels == 0 || p.pixels > 1024) return "pixels = " + s(p.pixels) + " is outside [1, 1024]";
  for (int i = 0; i < 2; ++i) {
    if (p.lower[i] < -128 || p.lower[i] > 127)
      return "im2col corner lower[" + s(i) + "] = " + s(p.lower[i]) + " is outside [-128, 127] (4-d maps)";
    if (p.upper[i] < -128 || p.upper[i] > 127)
      return "im2col corner upper[" + s(i) + "] = " + s(p.upper[i]) + " is outside [-128, 127] (4-d maps)";
    // The bounding box of start pixels, [lower, extent + upper), must not be empty.
    if ((long long)p.dims[1 + i] + p.upper[i] - p.lower[i] < 1)
      return "the im2col bounding box is empty along " + std::string(i == 0 ? "w" : "h");
  }
  return {};
}

}  // namespace tessel::sm90
