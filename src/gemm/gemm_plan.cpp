#include "gemm/gemm_plan.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "gemm/tile_configs_sm80.hpp"
#include "gemm/tile_configs_sm90.hpp"

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

// The widest vector (8, 4 or 2 elements; else 1) an operand can be loaded in by the sm80
// kernel (operand_sm80.hpp's Access): each vector wholly inside or outside the matrix, and
// aligned: the contiguous extent, the leading dimension, the batch stride (when batched) and
// the pointer multiples of the vector.
int widest_access(OperandView const& v, int k, int batch) {
  const int contiguous = v.major == Major::kK ? k : v.mn;
  for (int a : {8, 4, 2}) {
    if (contiguous % a == 0 && v.ld % a == 0 && (batch == 1 || v.batch_stride % a == 0) &&
        reinterpret_cast<std::uintptr_t>(v.ptr) % (2 * a) == 0) {
      return a;
    }
  }
  return 1;
}

// The sm80 kernel's access for both operands: 8, or the widest compiled narrow access that
// both allow (sm80::kNarrowAccesses). With K = 0 nothing is loaded.
int kernel_access(KernelProblem const& p) {
  if (p.k == 0) return 8;
  const int allowed = std::min(widest_access(p.a, p.k, p.batch), widest_access(p.b, p.k, p.batch));
  if (allowed == 8) return 8;
  for (int a : sm80::kNarrowAccesses) {
    if (a <= allowed) return a;
  }
  return 1;
}

// The index of the row called `name` in a table of configurations, or -1.
template <class Table>
int index_in(Table const& table, std::string const& name) {
  for (int i = 0; i < int(std::size(table)); ++i) {
    if (name == table[i].name) return i;
  }
  return -1;
}
int config_index(std::string const& name) { return index_in(sm80::kTileConfigs, name); }
int tma_config_index(std::string const& name) { return index_in(sm90::kTmaTileConfigs, name); }

// The heuristic: the fewest waves of tiles, each wave weighed by what one tile of the
// configuration costs, measured on an H100 with f16 out (docs/PERFORMANCE.md, 2026-11-26):
// a 128x256x64 tile takes 1.78 times as long as a 128x128x32 one (twice the work: its 8-warp K
// loop is the faster, 4096^3 329 us against 370), a 64x128x32 tile 0.63 times. Blocks of
// equal tiles run in waves of one block per SM, so a last wave with few tiles costs a whole
// one: 3072^3 is 2.2 waves of 128x256 (3 x 1.78 = 5.3) or 4.4 of 128x128 (5): 171 us against
// 175 measured; 2048^3 is one wave of 128x256 (1.78) or two of 128x128: 44 against 48; 1024^3
// one of 128x128 or one of 64x128 (0.63): 14 against 16. Ties go to the earlier row. A
// configuration whose shared memory exceeds the device's (128x256x64's 144 KiB on sm_86 and
// sm_89, 99 KiB a block) is not a candidate.
int choose_config(KernelProblem const& p, DeviceInfo const& device) {
  struct Candidate {
    char const* name;
    int cost;  // one tile, in hundredths of a 128x128x32 tile
  };
  static constexpr Candidate kCandidates[] = {
      {"128x128x32_s4_w2x2", 100}, {"128x256x64_s3_w2x4", 178}, {"64x128x32_s4_w2x2", 63}};
  int best = 0;  // the lean build's one configuration
  std::int64_t best_cost = -1;
  for (auto const& c : kCandidates) {
    const int i = config_index(c.name);
    if (i < 0 || sm80::kTileConfigs[i].smem_bytes() > device.smem_per_block) continue;
    auto const& t = sm80::kTileConfigs[i];
    const long long tiles = ceil_div((long long)p.m, t.tile_m) * ceil_div((long long)p.n, t.tile_n) * p.batch;
    const std::int64_t cost = std::max(1LL, ceil_div(tiles, (long long)device.sms)) * c.cost;
    if (best_cost < 0 || cost < best_cost) best = i, best_cost = cost;
  }
  return best;
}

std::string config_list() {
  std::string s;
  for (auto const& name : gemm_config_names()) s += (s.empty() ? "" : ", ") + name;
  return s;
}

// Split-K: only when the output tiles fill less than half the GPU and K has at least 2048
// elements; as many slices as fill the SMs once, each of at least 8 K tiles, and no empty
// slice; at most 32 slices a tile, except for a lone tile. Example: 256x256x65536 with 64x128
// tiles (8 tiles, 2048 K tiles on 132 SMs) -> 16 slices of 128 K tiles. Measured on the H200
// (docs/PERFORMANCE.md, twenty-fifth session; us, 32 slices -> one a SM): a lone tile over a
// deep K is memory-bound, and 32 slices keep 100 SMs idle: 64x64x401408 (the 1x1 wgrad of
// ResNet-50's 56x56x64 layer at N = 128) 60.3 -> 42.3 on sm_90a and 114.6 -> 48.4 on the sm80
// kernel. Two tiles of 128x64 in 66 slices each ran 5-7% slower than in 32 (256x64x401408 66.4
// -> 69.6, 256x64x100352 23.8 -> 25.4). An empty output (M or N = 0) is not split.
void choose_splits(KernelProblem const& p, int tile_m, int tile_n, int tile_k, int sms, int* splits, int* per_split) {
  const int k_tiles = int(ceil_div((long long)p.k, tile_k));
  const std::int64_t tiles = ceil_div((long long)p.m, tile_m) * ceil_div((long long)p.n, tile_n) * p.batch;
  *splits = 1, *per_split = k_tiles > 0 ? k_tiles : 1;
  if (tiles == 0 || 2 * tiles > sms || p.k < 2048) return;
  std::int64_t n = std::min<std::int64_t>({sms / tiles, k_tiles / 8, tiles == 1 ? sms : 32, 65535 / p.batch});
  if (n < 2) return;
  *per_split = int((k_tiles + n - 1) / n);
  *splits = (k_tiles + *per_split - 1) / *per_split;
}

// Stream-K for the TMA kernel (tessel/gemm/stream_k.hpp), when whole tiles would leave more
// than a tenth of the SMs idle in the last wave.
//   fewer tiles than SMs, but at least a third as many: sliced, each tile cut into as many K
//     slices as fill the SMs once (2 or 3), each of at least kMinSliceTiles K tiles. Example:
//     1024x1024x65536 in 128x128 tiles, 64 tiles -> 2 slices of 512 K tiles (measured as fast
//     as split-K with its reduction kernel: 236.6 against 243.3 us). With fewer tiles the
//     fix-up, one block reading every slice's partial, costs more than the reduction kernel
//     (256x256x65536, 33 slices: 72 us against 39): split-K is planned there
//   more tiles than SMs: the last wave and one full wave before it are shared by every SM as
//     stream-K ranges, if each range gets at least kMinStreamKTiles K tiles (133 tiles of
//     2432x896x4096: 49.6 us against 50.2 whole; docs/PERFORMANCE.md)
// Either form only where a tile has at least kMinStreamKItemTiles K tiles (K >= 4096; the
// device's stream_k_min_k_tiles, TESSEL_STREAM_K_MIN_K_TILES, which is this by default): with
// fewer, the fix-up (a 64 KiB partial written and read back per contributor) costs as much as
// the tile's mainloop, and whole tiles won every shape measured (eighth session of 2026-11-26,
// f16 out, us, stream-K against whole tiles on the same config: 25088x128x512 28.8 against
// 17.6, 1000^3 18.2 against 12.1, 6272x256x2304 on 64x128 38.6 against 24.5, 1568x512x2048
// sliced 18.1 against 12.9 on unsliced 64x128), while 1024x1024x65536 (1024 K tiles, sliced:
// 220 against 235 split-K) and 128x4096x4096 (64: 23.4 against 26.8) still gain.
constexpr int kMinSliceTiles = 8, kMinStreamKTiles = 4, kMinStreamKItemTiles = 64;
static_assert(DeviceInfo{}.stream_k_min_k_tiles == kMinStreamKItemTiles, "the device's default is the measured rule");
constexpr double kFullWave = 0.9;

}  // namespace

StreamKSchedule choose_stream_k(int m, int n, int k, int batch, int tile_m, int tile_n, int tile_k,
                                DeviceInfo const& device) {
  const int sms = device.sms;
  const long long items = ceil_div((long long)m, tile_m) * ceil_div((long long)n, tile_n) * batch;
  const long long k_tiles = ceil_div((long long)k, tile_k);
  const long long waves = ceil_div(items, (long long)sms);
  if (!device.stream_k || items == 0 || k_tiles < device.stream_k_min_k_tiles || items > (1 << 30) ||
      items >= kFullWave * double(waves * sms)) {
    return {};
  }
  StreamKSchedule s;
  s.items = int(items), s.k_tiles = int(k_tiles), s.sk_items = int(items);
  if (items < sms) {
    if (3 * items < sms) return {};
    s.splits = int(std::min<long long>(sms / items, k_tiles / kMinSliceTiles));
    s.blocks = s.items * s.splits;
    return s.splits >= 2 ? s : StreamKSchedule{};
  }
  s.sk_items = int(items % sms + sms);
  s.blocks = sms;
  return (long long)s.sk_items * k_tiles >= (long long)kMinStreamKTiles * sms ? s : StreamKSchedule{};
}

namespace {

// The sm_90a heuristic, from sweeps of tessel-prof's default suite on an H100 and an H200
// (docs/PERFORMANCE.md). 128x256 reads a third less shared memory per MMA than 128x128; since its
// epilogue stores from registers (2026-11-26, sixth session) one of its tiles costs 1.85
// times a 128x128 tile (2048^3, 4096^3, 8192^3: one wave of 128x256 tiles 31.5, 53.6, 108 us;
// of 128x128 tiles 17.0, 29.4, 58.2), so it is chosen unless its waves, weighed so, cost
// more: it won on 2048^3 (1 wave against 2: 31.5 against 34.1 us), 4096^3, 8192^3 and the LLM
// shapes. By that weighing it is not chosen where 128x128 tiles make a single wave
// (1024x1024x65536) or where stream-K spreads their last wave over every SM (133 tiles of
// 2432x896: 1.01 waves of 128x128 against one of 128x256, 1.85; not measured). It lost where
// K is short, its per-tile costs (four 48 KiB stages to fill, 128 KiB of fp32 to store) not
// paid back by its faster mainloop: 5000x3000x704 72.8 against 57.2 us, 8192x2048x256 38.5
// against 35.3; even at K = 512 (4096^2: 49.4 against 48.8); it won from K = 1024 (72.8
// against 74.5). With a 16-bit D (half the bytes a tile stores) it also takes short K, where
// it won on the 1x1 conv layers that store most of their bytes, from 1 to 8 K tiles, and lost
// by no more than 3% elsewhere (H200, thirty-fourth session, tessel-prof --out-dtype f16, us,
// 128x256 against the previous choice, 128x128 or its ping-pong; the conv layers as the
// kernel sees them, M pixels and N filters): tn 100352x256x64 25.0 against 27.2, 401408x256x64
// 90.5 against 97.5, 100352x512x128 56.1 against 58.3, 6272x2048x512 30.3 against 31.8,
// 25088x1024x256 39.4 against 40.0, 25088x512x128 16.0 against 15.8; nn 100352x512x128 56.2
// against 58.5; tn 2048^2x512 11.2 against 11.9, 4096^2x512 39.0 against 40.2, 4096x16384x128
// 71.5 against 73.8, 2048x8192x256 and 4096^2x256 even, 256x81920x256 36.7 against 36.0,
// 3000x5000x704 49.9 against 48.8, 5000x3000x700 56.4 against 54.7. With an fp32 D short K
// stays on 128x128 (the same shapes within 3% either way). When the 64x128 tiles make at most
// one wave and K is too short for stream-K (below 4096), the 64x128 tile gives twice the
// blocks: 1024^3 went from 0.77-0.89 to 1.14 of cuBLAS, 1568x512x2048 12.9 us against 22.1
// on 128x128 split in two (eighth session). Where
// they would make more than one wave, 128x128 (6272x256x1024: 12.5 against 14.7; 3136x512x1152:
// 12.0 against 15.5). With a deep K the 128x128 tile split over K was faster
// (1024x1024x65536: 0.80-0.92 against 0.61 unsplit with 64x128; 16x4096x4096: 0.76 against 0.69).
// Clusters of two with B multicast (sm90_128x128x64_s5_c2) measured 7-14% slower than 128x128
// alone on every shape tried (docs/PERFORMANCE.md, third session of 2026-11-24): not chosen.
// Store warps (sm90_128x128x64_s5_sw) measured within the noise of 128x128 on the large shapes
// and slower where K is short: not chosen where D is 16-byte aligned. Where it is not, they
// take the place of both 128x256 and 128x128, whose MMA warps store each tile through their
// warp scratch between tiles, while the store warps' stores overlap the mainloop.
// tessel-prof (column-major D, ld M), 128x256 against store warps: 4095x4097x1031 134.6-136.4
// us against 112.0-112.3 (f32 D: 135.0-135.5 against 109.0-109.6), 8191x8193x2048 622-629
// against 572-581, 4095x4097x4096 266-268 against 258-259 (docs/PERFORMANCE.md,
// twenty-third session). 128x128 against store warps, since the shared epilogue's element
// loop was made lean (twenty-fourth session): 2001x3000x777 50.4-51.0 against 38.7-39.0,
// 2001x3000x1024 42.3-42.8 against 32.7-33.4, 1999x1000x4096 35.0-35.9 against 32.5-33.0,
// 65x81920x256 44.2-44.5 against 37.6-37.8. With aligned D the store warps lost
// (2000x3000x777: 34.3-34.8 against 32.3-32.6).
// Where 128x128 tiles fill at most a quarter of the SMs, N is a whole 128-wide tile and K is
// deep, 64x128 (chosen there for all such shapes from the third session of 2026-11-24 to the
// twenty-sixth) lost on the H200 to 128x128 split or sliced over K (twenty-seventh session; us,
// 64x128 against 128x128, tessel-prof's --layout with f16 out): the wgrad of 1x1 layers, nt
// 512x512x100352 136.2 against 97.1, 256x512x100352 71.3 against 55.2, 1024x512x25088 68.2
// against 51.0, 320x1280x6272 21.3 against 18.0; tn 128x4096x4096 17.9 against 17.6. It stays
// with 4 tiles of 128x128 or fewer, where 64x128 was even or faster (the same wgrads as conv
// layers at N = 128, us, 64x128 against 128x128: 28x28x128->512 39.1 against 41.3, 28x28x512->128
// 38.7 against 41.3, 56x56x128->256 79.3 against 83.8, 56x56x256->128 78.7 against 84.8, but
// 56x56x256->256 121.4 against 105.3; tn 256x256x65536 26.7 against 27.3), and where 128-row
// tiles compute a tenth more rows than 64-row ones (M = 160, 192: 7x7x576->160 11.0 against
// 12.4, 7x7x960->160 13.3 against 14.8, 28x28x768->192 69.3 against 71.5; M = 24, nt
// 144x24x401408 68.4 against 84.0 in ping-pong).
// Ping-pong 128x128 (each warpgroup a tile of its own, one's epilogue under the other's
// mainloop) where every block gets two tiles or more and K is 2 to 16 K tiles: the epilogue is
// a large share of a tile's time there (twenty-seventh session, cooperative against ping-pong,
// us): tn 81920x256x256 36.8 against 34.5, 8192x2048x256 28.0 against 26.0, 4096x4096x512
// 41.8 against 40.1, 3000x5000x700 57.2 against 53.9, 512x100352x128 61.0 against 57.3,
// 768x100352x192 107.0 against 101.0, 384x401408x96 174.1 against 170.7. Even or worse with
// one K tile (144x401408x24 147.2 against 153.3, 256x401408x64 94.4 against 93.4) and with a
// block's single tile (1000x1000x1000 10.2 against 11.1, where one warpgroup idles).
// Where N is at most 64 (in the kernel's view) the 128x64 tile has as many tiles as 128x128,
// half the stage and eight stages instead of five: 16x4096x4096 (4096x16, split-K 4) 22.1 us
// against 23.4-23.8 (2026-11-25, docs/PERFORMANCE.md). In ping-pong (six stages) where every
// SM gets two tiles or more and K is at most 16 K tiles: there a tile is mostly its epilogue
// (1x1 convs with few output channels), which one warpgroup runs under the other's mainloop
// (twenty-ninth session, tn, cooperative against ping-pong, us): 16x1605632x32 112.9 against
// 104.0, 64x401408x64 36.8 against 33.6, 24x401408x96 40.7 against 39.6. With N above 64 the
// 128x64 ping-pong lost to 128x128 (144x401408x24 156.2 against 145.3).
// Where N is at most 32, 256x64 tiles (two warpgroups of 128 rows) where they make two waves
// or more over at most 16 K tiles: half the tiles, so half the per-tile chain of barriers and
// epilogue that bounds these GEMMs, and one B stage for 256 rows (thirtieth session, tn/nn,
// 256x64 against 128x64 in ping-pong, us): tn 16x1605632x32 93.8 against 107.2, 24x401408x144
// 46.8 against 60.3, 16x401408x96 36.1 against 45.5, 32x100352x144 18.1 against 19.3,
// 32x100352x192 19.2 against 19.1; nn 16x1605632x96 130.3 against 191.3, 24x401408x144 72.7
// against 114.9. With N = 64 it lost (64x401408x64 37.8 against 36.1) or tied (64x401408x576).
// N of 129 to 192 takes one column of 128x192 tiles instead of two of 128x128, the second
// mostly empty, where they make two waves or more, or one over K of 512 or more (thirtieth
// session, the 1x1 layers as conv2d calls, us, 128x128 against 128x192): ConvNeXt-T
// 28x28x768->192 at N = 128 (784 tiles) 88.6 against 63.3, the dgrad of 28x28x192->768 78.8
// against 62.6, MobileNetV2 56x56x24->144 116.4 against 106.0, 14x14x576->160 (196 tiles, K
// 576) 22.2 against 18.2; at N = 32, 28x28x768->192 (196 tiles, K 768) 24.8 against 21.9. It
// lost with one wave over a short K (28x28x32->192 at N = 32, 196 tiles: 8.96 against 9.50) and
// with fewer tiles than SMs (7x7x960->160 at N = 128, 49 tiles: 11.2 against 12.4).
int choose_tma_config(KernelProblem const& p, bool d_vectorizes, int d_bytes, DeviceInfo const& device) {
  const int sms = device.sms;
  const std::int64_t tiles_128x128 = ceil_div((long long)p.m, 128) * ceil_div((long long)p.n, 128) * p.batch;
  const bool short_k = 2 * tiles_128x128 <= sms && ceil_div((long long)p.k, 64LL) < kMinStreamKItemTiles;
  const std::int64_t tiles_128x256 = ceil_div((long long)p.m, 128) * ceil_div((long long)p.n, 256) * p.batch;
  // (rows a column of 128-row tiles covers against 64-row ones)
  const std::int64_t rows_128 = ceil_div((long long)p.m, 128) * 128, rows_64 = ceil_div((long long)p.m, 64) * 64;
  const bool few_tiles = 4 * tiles_128x128 <= sms && p.n >= 128 &&
                         (tiles_128x128 <= 4 || 10 * rows_128 > 11 * rows_64);
  if (short_k || few_tiles) return tma_config_index("sm90_64x128x64_s8");
  const long long k_tiles = ceil_div((long long)p.k, 64LL);
  if (p.n <= 64) {
    const std::int64_t tiles_256x64 = ceil_div((long long)p.m, 256) * p.batch;
    if (p.n <= 32 && d_vectorizes && tiles_256x64 >= 2LL * sms && k_tiles <= 16)
      return tma_config_index("sm90_256x64x64_s4");
    const bool narrow_ping_pong = tiles_128x128 >= 2LL * sms && k_tiles <= 16;
    return tma_config_index(narrow_ping_pong ? "sm90_128x64x64_s6_pingpong" : "sm90_128x64x64_s8");
  }
  if (!d_vectorizes) return tma_config_index("sm90_128x128x64_s5_sw");  // in place of 128x128 and 128x256
  const std::int64_t tiles_128x192 = ceil_div((long long)p.m, 128) * p.batch;
  if (p.n > 128 && p.n <= 192 && (tiles_128x192 >= 2LL * sms || (tiles_128x192 >= sms && p.k >= 512)))
    return tma_config_index("sm90_128x192x64_s4");
  // Costs in hundredths of a wave of 128x128 tiles; where stream-K would share 128x128's last
  // wave among all SMs, its waves count as a fraction.
  const bool balanced =
      choose_stream_k(p.m, p.n, p.k, p.batch, 128, 128, 64, device).sk_items > 0 && tiles_128x128 >= sms;
  const std::int64_t cost_128x128 = balanced ? ceil_div(100 * tiles_128x128, (long long)sms)
                                             : 100 * ceil_div(tiles_128x128, (long long)sms);
  const std::int64_t cost_128x256 = 185 * ceil_div(tiles_128x256, (long long)sms);
  const bool long_k = p.k >= 1024;
  if ((long_k || d_bytes == 2) && cost_128x256 <= cost_128x128) return tma_config_index("sm90_128x256x64_s4");
  const bool ping_pong = tiles_128x128 >= 2LL * sms && k_tiles >= 2 && k_tiles <= 16;
  return tma_config_index(ping_pong ? "sm90_128x128x64_s5_pingpong" : "sm90_128x128x64_s5");
}

}  // namespace

bool plan_operand_map(OperandView const& v, int k, int batch, int tile_mn, sm90::TmaMapParams* out, bool* broadcast) {
  constexpr int kTileK = 64, kBytes = 2;
  const bool batched = batch > 1 && v.batch_stride != 0;
  if (reinterpret_cast<std::uintptr_t>(v.ptr) % 16 != 0 || v.ld % 8 != 0 || (batched && v.batch_stride % 8 != 0))
    return false;
  const bool k_major = v.major == Major::kK;
  sm90::TmaMapParams m;
  m.rank = 3, m.swizzle_bytes = 128;
  m.dims[0] = std::uint64_t(k_major ? k : v.mn), m.dims[1] = std::uint64_t(k_major ? v.mn : k);
  m.dims[2] = batched ? std::uint64_t(batch) : 1;
  m.strides[0] = std::uint64_t(v.ld) * kBytes;
  m.strides[1] = batched ? std::uint64_t(v.batch_stride) * kBytes : m.strides[0] * m.dims[1];
  m.box[0] = kTileK, m.box[1] = std::uint32_t(k_major ? tile_mn : kTileK), m.box[2] = 1;
  if (!sm90::tma_map_problem(m).empty()) return false;
  *out = m, *broadcast = !batched;
  return true;
}

bool plan_d_map(GemmArguments const& args, KernelProblem const& p, sm90::TmaTileConfigInfo const& c, int splits,
                DeviceInfo const& device, sm90::TmaMapParams* out) {
  // The engine writes D's rows in 16-byte units: with N = 7 and ldd = 8 it wrote column 7 of
  // every row (measured on the H200), so N must end on a 16-byte boundary.
  if (!device.tma_store || data_type_bytes(args.output_type) != 2 || splits > 1 || c.store_warps > 0 ||
      !epilogue_vectorizes(args) || p.n % 8 != 0) {
    return false;
  }
  // A warpgroup's rows: the whole tile in ping-pong and in 64-row tiles (the warpgroups side by
  // side along N), else half of it.
  const int wg_rows = c.ping_pong || c.tile_m == 64 ? c.tile_m : c.tile_m / 2;
  sm90::TmaMapParams m;
  m.rank = 3, m.swizzle_bytes = 128;
  m.dims[0] = std::uint64_t(p.n), m.dims[1] = std::uint64_t(p.m), m.dims[2] = std::uint64_t(p.batch);
  m.strides[0] = std::uint64_t(args.ldd) * 2;
  m.strides[1] = p.batch > 1 ? std::uint64_t(args.d_batch_stride) * 2 : m.strides[0] * m.dims[1];
  m.box[0] = 64, m.box[1] = std::uint32_t(wg_rows), m.box[2] = 1;
  if (!sm90::tma_map_problem(m).empty()) return false;
  *out = m;
  return true;
}

namespace {

// Staging pays when the GEMM is large: below 2^27 multiply-adds (512^3) the copy's launch and
// traffic cost more than the narrow sm80 path loses.
constexpr double kStageMinMacs = double(1 << 27);
constexpr std::int64_t kStageMaxBytes = std::int64_t(1) << 31;
// The sm80 kernel stages operands whose rows are not 16-byte multiples, on large problems: on
// the H100 (TESSEL_DISABLE_SM90=1, f16 out) 4096x4096x1030 ran 333 us with 4-byte cp.async and
// 4096x4096x1028 140 us with 8-byte, against 159 us for either on a copy with 16-byte rows
// (2026-11-25, docs/PERFORMANCE.md) and less with 32-byte rows (kStageRowElements).
constexpr int kStageBelowAccess = 8;
// A copy's rows are a multiple of 16 elements, 32 bytes: each row then starts on a sector, and
// the sm80 kernel's 64-byte run of a row per K tile is two sectors, not three
// (4096x4096x1032, rows of 16 bytes only, 140 us; x1040 114 us; x1024 102 us).
constexpr int kStageRowElements = 16;

bool large_enough_to_stage(KernelProblem const& p) { return double(p.m) * p.n * p.k * p.batch >= kStageMinMacs; }

// The 16-byte-aligned copy of v, its rows of a multiple of `along` elements and its row count
// a multiple of `across`; false where it would exceed the limits above.
bool plan_staging(OperandView const& v, KernelProblem const& p, int along, int across, StagedOperand* out) {
  if (v.ld >= (std::int64_t(1) << 30)) return false;  // a copy's pitch in bytes below 2^31
  StagedOperand s;
  s.on = true;
  s.contiguous = v.major == Major::kK ? p.k : v.mn;
  s.strided = v.major == Major::kK ? v.mn : p.k;
  s.ld = (std::int64_t(s.contiguous) + along - 1) / along * along;
  const std::int64_t rows = (std::int64_t(s.strided) + across - 1) / across * across;
  s.batches = p.batch > 1 && v.batch_stride != 0 ? p.batch : 1;
  // batches * ld * rows * 2 bytes, compared without overflow (an empty problem, M = 0, is
  // valid with any K, N and batch count, and plan() plans it).
  constexpr std::int64_t kMaxElements = kStageMaxBytes / 2;
  if (rows > kMaxElements || (rows > 0 && s.ld > kMaxElements / rows)) return false;
  s.rows = int(rows);
  s.batch_stride = s.ld * rows;
  if (s.batch_stride > 0 && s.batches > kMaxElements / s.batch_stride) return false;
  *out = s;
  return true;
}

// The copy of v that the sm80 kernel reads in whole tiles of its configuration t: rows of
// whole K tiles and whole tiles of rows for a K-major operand (the other way round for an
// MN-major one), each a multiple of kStageRowElements (tiles are 32 or more elements).
bool plan_sm80_staging(OperandView const& v, KernelProblem const& p, int tile_mn, int tile_k, StagedOperand* out) {
  return v.major == Major::kK ? plan_staging(v, p, tile_k, tile_mn, out) : plan_staging(v, p, tile_mn, tile_k, out);
}

// Where the TMA kernel will read a staged copy, for planning its map: a workspace from
// cudaMallocAsync is 256-byte aligned.
OperandView planned_copy(OperandView const& v, StagedOperand const& s) {
  return kernel_view(v, s, reinterpret_cast<const void*>(std::uintptr_t(256)));
}

// v's map; or, when TMA cannot read v and staging is allowed (forced, or a large problem), the
// map of a 16-byte-aligned copy of v, described in *staged.
bool map_or_stage(OperandView const& v, KernelProblem const& p, int tile_mn, bool forced, sm90::TmaMapParams* map,
                  bool* broadcast, StagedOperand* staged) {
  if (plan_operand_map(v, p.k, p.batch, tile_mn, map, broadcast)) return true;
  if (!forced && !large_enough_to_stage(p)) return false;
  StagedOperand s;
  if (!plan_staging(v, p, kStageRowElements, 1, &s) ||
      !plan_operand_map(planned_copy(v, s), p.k, p.batch, tile_mn, map, broadcast)) {
    return false;
  }
  *staged = s;
  return true;
}

}  // namespace

bool epilogue_vectorizes(GemmArguments const& args) {
  const int vec = 16 / data_type_bytes(args.output_type);
  auto aligned = [&](const void* ptr, std::int64_t ld, std::int64_t batch_stride) {
    return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0 && ld % vec == 0 && (args.batch == 1 || batch_stride % vec == 0);
  };
  return aligned(args.d, args.ldd, args.d_batch_stride) &&
         (args.beta == 0.0f || aligned(args.c, args.ldc, args.c_batch_stride));
}

OperandView kernel_view(OperandView const& v, StagedOperand const& s, const void* copy) {
  if (!s.on) return v;
  return {copy, v.major, s.ld, s.batches > 1 ? s.batch_stride : 0, v.mn};
}

Status choose(GemmArguments const& args, DeviceInfo const& device, Choice* out) {
  const int sms = device.sms;
  KernelProblem p = kernel_problem(args);
  int access = kernel_access(p);  // the sm80 kernel's, before any staging
  const bool wide = access == 8;
  const bool wgmma = device.wgmma() && device.tma_encoder;
  int config = -1, tma_config = -1;
  if (!args.config.empty()) {
    config = config_index(args.config);
    tma_config = tma_config_index(args.config);
    if (config < 0 && tma_config < 0) {
      return {StatusCode::kInvalidArgument, "config = \"" + args.config +
                                                "\" is not a configuration of this build; choose one of: " +
                                                config_list()};
    }
    if (tma_config >= 0 && !wgmma) {
      return {StatusCode::kNotSupported,
              "config = \"" + args.config +
                  "\" is the sm_90a TMA kernel: it needs a device of compute capability 9.0, TESSEL_DISABLE_SM90 "
                  "unset and the driver's tensor-map encoder; choose one of the sm80 configurations"};
    }
    const int smem = config >= 0 ? sm80::kTileConfigs[config].smem_bytes() : sm90::kTmaTileConfigs[tma_config].smem_bytes();
    if (smem > device.smem_per_block) {
      return {StatusCode::kNotSupported, "config = \"" + args.config + "\" needs " + std::to_string(smem) +
                                             " bytes of shared memory per block, and this device allows " +
                                             std::to_string(device.smem_per_block) +
                                             "; choose a smaller configuration or the default"};
    }
  } else if (wgmma) {
    tma_config = choose_tma_config(p, epilogue_vectorizes(args), data_type_bytes(args.output_type), device);
  }

  if (tma_config >= 0) {  // the TMA kernel, if its maps can be planned
    auto const& c = sm90::kTmaTileConfigs[tma_config];
    TmaChoice t;
    t.config = tma_config;
    const bool forced = !args.config.empty();
    // With clusters, B's K tiles are loaded in halves (its map's box), and stream-K and split-K
    // plan for clusters: pairs of tile rows on half as many "SMs".
    const int cluster = c.cluster_m;
    if (sms < cluster) {
      return {StatusCode::kNotSupported, "config = \"" + args.config + "\" runs clusters of " +
                                             std::to_string(cluster) + " blocks, and this device has " +
                                             std::to_string(sms) + " SM"};
    }
    StagedOperand a_staged, b_staged;
    const bool maps = p.k == 0 || (map_or_stage(p.a, p, c.tile_m, forced, &t.a, &t.a_broadcast, &a_staged) &&
                                   map_or_stage(p.b, p, c.tile_n / cluster, forced, &t.b, &t.b_broadcast, &b_staged));
    if (maps) {  // stream-K where whole tiles leave SMs idle, else split-K where K is deep
      DeviceInfo clusters = device;
      clusters.sms = sms / cluster;
      t.stream_k = choose_stream_k(p.m, p.n, p.k, p.batch, c.tile_m * cluster, c.tile_n, c.tile_k, clusters);
      *out = {p, GemmKernel::kSm90Tma, {}, t, a_staged, b_staged, 1, 1};
      if (t.stream_k.sk_items > 0) {
        out->k_tiles_per_split = std::max(1, int(ceil_div((long long)p.k, c.tile_k)));
      } else {
        choose_splits(p, c.tile_m * cluster, c.tile_n, c.tile_k, clusters.sms, &out->splits, &out->k_tiles_per_split);
      }
      out->sm90.d_tma = plan_d_map(args, p, c, out->splits, device, &out->sm90.d);
      return {};
    }
    if (!args.config.empty()) {
      return {StatusCode::kNotSupported,
              "config = \"" + args.config +
                  "\" loads its operands with the TMA engine, which needs 16-byte rows; this problem's A or B "
                  "has not, and a 16-byte-aligned copy of it would exceed 2^31 bytes; use the default"};
    }
    config = -1;  // the sm80 kernel
  }
  // The sm80 kernel. Operands below 16-byte vectors are staged where the problem is large
  // enough to pay for the copy and the access would be narrower than kStageBelowAccess, or
  // where a forced configuration has no narrow-access variant (only the narrow tile has).
  const bool narrow_tile = config >= 0 && std::string(sm80::kTileConfigs[config].name) == sm80::kNarrowTileConfig.name;
  const bool forced_wide = config >= 0 && !narrow_tile;
  StagedOperand a_staged, b_staged;
  if (!wide && (forced_wide || (config < 0 && access < kStageBelowAccess && large_enough_to_stage(p)))) {
    // Every operand below 16-byte vectors is staged, so the kernel reads 16-byte vectors, into
    // whole tiles of the configuration: a staged operand then never needs the edge variant.
    const int staged_config = config >= 0 ? config : choose_config(p, device);
    auto const& t = sm80::kTileConfigs[staged_config];
    StagedOperand sa, sb;
    const bool stage_a = widest_access(p.a, p.k, p.batch) < 8, stage_b = widest_access(p.b, p.k, p.batch) < 8;
    if ((!stage_a || plan_sm80_staging(p.a, p, t.tile_m, t.tile_k, &sa)) &&
        (!stage_b || plan_sm80_staging(p.b, p, t.tile_n, t.tile_k, &sb))) {
      a_staged = sa, b_staged = sb, access = 8, config = staged_config;
    }
  }
  if (forced_wide && access != 8) {
    return {StatusCode::kNotSupported,
            "config = \"" + args.config +
                "\" has no narrow-access variant, and this problem needs one (an operand's pointer, leading "
                "dimension, batch stride or contiguous extent is not a multiple of 16 bytes), and a 16-byte-aligned "
                "copy of it would exceed 2^31 bytes; use \"" +
                sm80::kNarrowTileConfig.name + "\" or the default"};
  }
  if (config < 0) config = access == 8 ? choose_config(p, device) : config_index(sm80::kNarrowTileConfig.name);
  auto const& c = sm80::kTileConfigs[config];
  // The interior variant reads whole tiles without predicates: each operand is a staged copy
  // of whole tiles, or whole tiles itself.
  auto whole_tiles = [&](StagedOperand const& s, int mn, int tile_mn) {
    return s.on || (mn % tile_mn == 0 && p.k % c.tile_k == 0);
  };
  const bool interior = access == 8 && whole_tiles(a_staged, p.m, c.tile_m) && whole_tiles(b_staged, p.n, c.tile_n);
  *out = {p, GemmKernel::kSm80, {config, !interior, access}, {}, a_staged, b_staged, 1, 1};
  choose_splits(p, c.tile_m, c.tile_n, c.tile_k, sms, &out->splits, &out->k_tiles_per_split);
  return {};
}

GemmPlan describe(Choice const& ch) {
  const std::string split = ch.splits > 1 ? "+splitk" + std::to_string(ch.splits) : "";
  if (ch.kernel == GemmKernel::kSm90Tma) {
    const bool staged = ch.a_staged.on || ch.b_staged.on;
    auto const& c = sm90::kTmaTileConfigs[ch.sm90.config];
    return {c.name, ch.sm90.stream_k.sk_items > 0 ? "tma+streamk" : "tma" + split, staged ? "TMA+staged" : "TMA",
            ch.problem.swapped, ch.splits,
            "sm90_tma_warp_specialized",
            std::string(c.ping_pong ? "ping-pong persistent" : "cooperative persistent") +
                (c.cluster_m > 1 ? ", clusters of " + std::to_string(c.cluster_m) + " along M (B multicast)" : "") +
                (ch.sm90.d_tma ? ", D stored by the TMA engine" : "")};
  }
  const bool staged = ch.a_staged.on || ch.b_staged.on;
  return {sm80::kTileConfigs[ch.sm80.config].name, (ch.sm80.edges ? "edge" : "interior") + split,
          std::to_string(2 * ch.sm80.access) + "B" + (staged ? "+staged" : ""), ch.problem.swapped, ch.splits,
          "sm80_multistage", "one tile per block"};
}

}  // namespace tessel::gemm_detail

namespace tessel {

std::vector<std::string> gemm_config_names() {
  std::vector<std::string> names;
  for (auto const& c : sm80::kTileConfigs) names.emplace_back(c.name);
  for (auto const& c : sm90::kTmaTileConfigs) names.emplace_back(c.name);
  return names;
}

}  // namespace tessel
