#include "gemm/gemm_plan.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gemm/tile_configs_sm80.hpp"

namespace tessel::gemm_detail {
namespace {

KernelProblem kernel_problem(GemmArguments const& args) {
  // User A (M x K): row-major is K-major. User B (K x N): column-major is K-major.
  OperandView a{args.a, args.a_layout == MatrixLayout::kRowMajor ? Major::kK : Major::kMN, args.lda,
                args.a_batch_stride, args.m};
  OperandView b{args.b, args.b_layout == MatrixLayout::kColumnMajor ? Major::kK : Major::kMN, args.ldb,
                args.b_batch_stride, args.n};
  if (args.d_layout == MatrixLayout::kColumnMajor) return {args.n, args.m, args.k, args.batch, b, a, true};
  return {args.m, args.n, args.k, args.batch, a, b, false};
}

// 16-byte cp.async needs whole 16-byte vectors: the contiguous extent, the leading dimension,
// the batch stride (when batched) and the pointer all multiples of 8 elements.
bool allows_16b_access(OperandView const& v, int k, int batch) {
  const int contiguous = v.major == Major::kK ? k : v.mn;
  return contiguous % 8 == 0 && v.ld % 8 == 0 && (batch == 1 || v.batch_stride % 8 == 0) &&
         reinterpret_cast<std::uintptr_t>(v.ptr) % 16 == 0;
}

int config_index(std::string const& name) {
  for (int i = 0; i < sm80::kNumTileConfigs; ++i) {
    if (name == sm80::kTileConfigs[i].name) return i;
  }
  return -1;
}

// The heuristic, from tessel-prof sweeps on an H100 (docs/PERFORMANCE.md, 2026-11-23):
// 128x128x32 with 4 stages was fastest or tied (within 1%) on every large shape measured,
// 8192^3 and 4096x14336x4096 included, and on the memory-bound 81920x256x256; the large
// 128x256x64 tile tied at 8192^3 and lost elsewhere, so it is left to the override. When
// 128x128 tiles would leave SMs idle, the 64x128 tile gives more blocks.
int choose_config(KernelProblem const& p, int sms) {
  if (sm80::kNumTileConfigs == 1) return 0;
  const std::int64_t tiles_128x128 = ceil_div((long long)p.m, 128) * ceil_div((long long)p.n, 128) * p.batch;
  return config_index(tiles_128x128 < sms ? "64x128x32_s4_w2x2" : "128x128x32_s4_w2x2");
}

std::string config_list() {
  std::string s;
  for (auto const& c : sm80::kTileConfigs) s += std::string(s.empty() ? "" : ", ") + c.name;
  return s;
}

// Split-K: only when the output tiles fill less than half the GPU and K has at least 2048
// elements; as many slices as fill the SMs once, each of at least 8 K tiles, at most 32, and
// no empty slice. Example: 256x256x65536 with 64x128 tiles (8 tiles, 2048 K tiles on 132 SMs)
// -> 16 slices of 128 K tiles. An empty output (M or N = 0) is not split.
void choose_splits(KernelProblem const& p, sm80::TileConfigInfo const& c, int sms, int* splits, int* per_split) {
  const int k_tiles = int(ceil_div((long long)p.k, c.tile_k));
  const std::int64_t tiles = ceil_div((long long)p.m, c.tile_m) * ceil_div((long long)p.n, c.tile_n) * p.batch;
  *splits = 1, *per_split = k_tiles > 0 ? k_tiles : 1;
  if (tiles == 0 || 2 * tiles > sms || p.k < 2048) return;
  std::int64_t n = std::min<std::int64_t>({sms / tiles, k_tiles / 8, 32, 65535 / p.batch});
  if (n < 2) return;
  *per_split = int((k_tiles + n - 1) / n);
  *splits = (k_tiles + *per_split - 1) / *per_split;
}

}  // namespace

Status choose(GemmArguments const& args, DeviceInfo const& device, Choice* out) {
  const int sms = device.sms;
  KernelProblem p = kernel_problem(args);
  const bool wide = p.k == 0 || (allows_16b_access(p.a, p.k, p.batch) && allows_16b_access(p.b, p.k, p.batch));
  int config = -1;
  if (!args.config.empty()) {
    config = config_index(args.config);
    if (config < 0) {
      return {StatusCode::kInvalidArgument,
              "config = \"" + args.config + "\" is not a configuration of this build; choose one of: " + config_list()};
    }
    if (!wide && std::string(sm80::kTileConfigs[config].name) != sm80::kNarrowTileConfig.name) {
      return {StatusCode::kNotSupported,
              "config = \"" + args.config +
                  "\" has no narrow-access variant, and this problem needs one (an operand's pointer, leading "
                  "dimension, batch stride or contiguous extent is not a multiple of 16 bytes); use \"" +
                  sm80::kNarrowTileConfig.name + "\" or the default"};
    }
  } else {
    config = wide ? choose_config(p, sms) : config_index(sm80::kNarrowTileConfig.name);
  }
  auto const& c = sm80::kTileConfigs[config];
  const bool interior = wide && p.m % c.tile_m == 0 && p.n % c.tile_n == 0 && p.k % c.tile_k == 0;
  *out = {p, {config, !interior, !wide}, 1, 1};
  choose_splits(p, c, sms, &out->splits, &out->k_tiles_per_split);
  return {};
}

GemmPlan describe(Choice const& ch) {
  std::string variant = ch.kernel.edges ? "edge" : "interior";
  if (ch.splits > 1) variant += "+splitk" + std::to_string(ch.splits);
  return {sm80::kTileConfigs[ch.kernel.config].name, variant, ch.kernel.narrow ? "2B" : "16B", ch.problem.swapped,
          ch.splits};
}

}  // namespace tessel::gemm_detail

namespace tessel {

std::vector<std::string> gemm_config_names() {
  std::vector<std::string> names;
  for (auto const& c : sm80::kTileConfigs) names.emplace_back(c.name);
  return names;
}

}  // namespace tessel
