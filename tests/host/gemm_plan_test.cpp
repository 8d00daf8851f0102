// Which kernel gemm() would run, decided on the host (gemm_plan.cpp, the device an input) for
// an A100 (the sm80 kernel) and an H100 (the sm_90a TMA kernel). Checked here without
// launching anything; the same decisions run on the GPU in tests/device/gemm_api_device_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>

#include "gemm/gemm_plan.hpp"
#include "gemm/tile_configs_sm80.hpp"  // the table libtessel was built with (lean or not: CMakeLists.txt)
#include "gemm/tile_configs_sm90.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {
namespace {

void* address(std::uintptr_t a) { return reinterpret_cast<void*>(a); }

// M x N x K, A row-major, B column-major, D row-major, all packed and 16-byte aligned.
GemmArguments packed(int m, int n, int k) {
  GemmArguments args;
  args.m = m, args.n = n, args.k = k;
  args.lda = k, args.ldb = k, args.ldd = n;
  args.a = address(std::uintptr_t(1) << 36), args.b = address(std::uintptr_t(2) << 36);
  args.d = address(std::uintptr_t(3) << 36);
  return args;
}

// As the sm80 kernel plans it (an A100, or TESSEL_DISABLE_SM90=1), as an RTX 4090 (sm_89,
// 99 KiB of shared memory per block) and as an H100 does.
const DeviceInfo kA100{.sms = 108, .cc_major = 8, .cc_minor = 0, .sm90_kernels = false, .tma_encoder = false,
                       .smem_per_block = 163 * 1024};
const DeviceInfo kRtx4090{.sms = 128, .cc_major = 8, .cc_minor = 9, .sm90_kernels = false, .tma_encoder = false,
                          .smem_per_block = 99 * 1024};
const DeviceInfo kH100{};

GemmPlan plan_of(GemmArguments const& args, DeviceInfo const& device = kA100) {
  gemm_detail::Choice ch;
  EXPECT_TRUE(validate(args).ok());
  Status s = gemm_detail::choose(args, device, &ch);
  EXPECT_TRUE(s.ok()) << s.message();
  return s.ok() ? gemm_detail::describe(ch) : GemmPlan{};
}

TEST(GemmPlan, TileMultiplesRunTheInteriorKernel) {
  GemmPlan p = plan_of(packed(1024, 1024, 1024));
  EXPECT_EQ(p.variant, "interior");
  EXPECT_EQ(p.access, "16B");
  EXPECT_FALSE(p.swapped);
  EXPECT_EQ(p.split_k, 1);
}

TEST(GemmPlan, RaggedSizesRunTheEdgeKernel) { EXPECT_EQ(plan_of(packed(1000, 1000, 1000)).variant, "edge"); }

TEST(GemmPlan, OddKPackedRowsTakeTheNarrowPath) { EXPECT_EQ(plan_of(packed(256, 256, 33)).access, "2B"); }

TEST(GemmPlan, AnOffsetPointerTakesTheNarrowPath) {
  GemmArguments args = packed(256, 256, 256);
  args.a = address((std::uintptr_t(1) << 36) + 2);  // element-aligned, not 16-byte aligned
  EXPECT_EQ(plan_of(args).access, "2B");
}

// The access this build would run where both operands allow `allowed` elements per vector:
// the widest compiled one (the lean CI build compiles only the element-wise path).
std::string narrow_access(int allowed) {
  for (int a : sm80::kNarrowAccesses) {
    if (a <= allowed) return std::to_string(2 * a) + "B";
  }
  return "none";
}

TEST(GemmPlan, RowsOfEightOrFourBytesTakeTheWidestCpAsyncTheyAllow) {
  EXPECT_EQ(plan_of(packed(256, 256, 36)).access, narrow_access(4));  // rows of 72 bytes
  EXPECT_EQ(plan_of(packed(256, 256, 34)).access, narrow_access(2));  // 68 bytes
  GemmArguments args = packed(256, 256, 256);
  args.a = address((std::uintptr_t(1) << 36) + 8);  // 8-byte aligned
  EXPECT_EQ(plan_of(args).access, narrow_access(4));
  args.b = address((std::uintptr_t(2) << 36) + 4);  // the narrower operand decides
  EXPECT_EQ(plan_of(args).access, narrow_access(2));
  args = packed(256, 260, 256);
  args.b_layout = MatrixLayout::kRowMajor, args.ldb = 260;  // B N-major, rows of 520 bytes
  EXPECT_EQ(plan_of(args).access, narrow_access(4));
  args.batch = 2, args.b_batch_stride = 256 * 260 + 2, args.a_batch_stride = 256 * 256, args.d_batch_stride = 256 * 260;
  EXPECT_EQ(plan_of(args).access, narrow_access(2));  // the batch stride too
  // Large: staged into rows of 32-byte multiples (kStageBelowAccess, kStageRowElements).
  EXPECT_EQ(plan_of(packed(4096, 4096, 1030)).access, "16B+staged");
  EXPECT_EQ(plan_of(packed(4096, 4096, 1028)).access, "16B+staged");
  gemm_detail::Choice ch;
  ASSERT_TRUE(gemm_detail::choose(packed(4095, 4097, 1031), kA100, &ch).ok());
  EXPECT_EQ(gemm_detail::describe(ch).access, "16B+staged");
  EXPECT_TRUE(ch.a_staged.on && ch.b_staged.on);
  EXPECT_EQ(ch.sm80.access, 8);
  // The copies hold whole tiles (zeros past the operands), so the kernel needs no edge
  // predicates although M, N and K are none of them whole tiles.
  auto const& t = sm80::kTileConfigs[ch.sm80.config];
  EXPECT_EQ(ch.a_staged.ld, (1031 + t.tile_k - 1) / t.tile_k * t.tile_k);
  EXPECT_EQ(ch.a_staged.rows, (4095 + t.tile_m - 1) / t.tile_m * t.tile_m);
  EXPECT_EQ(ch.b_staged.rows, (4097 + t.tile_n - 1) / t.tile_n * t.tile_n);
  EXPECT_EQ(ch.a_staged.batch_stride, ch.a_staged.ld * ch.a_staged.rows);
  EXPECT_FALSE(ch.sm80.edges);
  EXPECT_EQ(gemm_detail::describe(ch).variant, "interior");
  // Staged B alone: A's own edges (M = 4095) still need the edge variant.
  args = packed(4095, 4096, 1024);
  args.b_layout = MatrixLayout::kRowMajor, args.ldb = 4100;
  ASSERT_TRUE(gemm_detail::choose(args, kA100, &ch).ok());
  EXPECT_TRUE(!ch.a_staged.on && ch.b_staged.on);
  EXPECT_TRUE(ch.sm80.edges);
  args = packed(4096, 4096, 1024);
  args.b_layout = MatrixLayout::kRowMajor, args.ldb = 4100;  // only B: A stays as it is
  ASSERT_TRUE(gemm_detail::choose(args, kA100, &ch).ok());
  EXPECT_FALSE(ch.a_staged.on);
  EXPECT_TRUE(ch.b_staged.on);
  EXPECT_EQ(ch.b_staged.ld, 4096);    // N = 4096 contiguous
  EXPECT_EQ(ch.b_staged.rows, 1024);  // K = 1024, whole K tiles
  EXPECT_FALSE(ch.sm80.edges);
}

// A forced configuration: the narrow tile runs the operands as they are; any other stages
// them (it has no narrower access), or is refused where the copy would exceed 2^31 bytes.
TEST(GemmPlan, ForcedConfigurationsAndNarrowOperands) {
  GemmArguments args = packed(4095, 4097, 1031);
  args.config = sm80::kNarrowTileConfig.name;
  EXPECT_EQ(plan_of(args).access, "2B");
  args = packed(256, 256, 36);
  for (auto const& info : sm80::kTileConfigs) {
    args.config = info.name;
    gemm_detail::Choice ch;
    ASSERT_TRUE(gemm_detail::choose(args, kA100, &ch).ok()) << info.name;
    EXPECT_EQ(gemm_detail::describe(ch).access,
              info.name == std::string(sm80::kNarrowTileConfig.name) ? narrow_access(4) : "16B+staged");
  }
  args = packed(32768, 64, 16383);  // a copy of A: 3 x 1 GiB
  args.batch = 3, args.a_batch_stride = 32768LL * 16383, args.b_batch_stride = 0, args.d_batch_stride = 32768 * 64;
  for (auto const& info : sm80::kTileConfigs) {
    if (info.name == std::string(sm80::kNarrowTileConfig.name)) continue;
    args.config = info.name;
    gemm_detail::Choice ch;
    Status s = gemm_detail::choose(args, kA100, &ch);
    EXPECT_EQ(s.code(), StatusCode::kNotSupported) << info.name;
    EXPECT_NE(s.message().find("has no narrow-access variant"), std::string::npos) << s.message();
  }
}

TEST(GemmPlan, ColumnMajorDIsComputedTransposed) {
  GemmArguments args = packed(256, 512, 256);
  args.d_layout = MatrixLayout::kColumnMajor, args.ldd = 256;
  EXPECT_TRUE(plan_of(args).swapped);
}

TEST(GemmPlan, DeepKWithFewTilesIsSplit) {
  GemmPlan p = plan_of(packed(256, 256, 65536));
  EXPECT_GT(p.split_k, 1);
  EXPECT_NE(p.variant.find("+splitk" + std::to_string(p.split_k)), std::string::npos) << p.variant;
}

// One output tile over a deep K (the 1x1 wgrad of a 56x56x64 layer at N = 128): as many
// slices as SMs, each of at least 8 K tiles, on either kernel; not 32 slices on 32 SMs. Two
// or more tiles keep at most 32 slices each (measured faster with two tiles).
TEST(GemmPlan, OneTileOverDeepKSplitsAcrossEverySM) {
  for (DeviceInfo const& device : {kA100, kH100}) {
    const int k_tiles = 401408 / (device.sm90_kernels ? 64 : 32);  // the chosen tiles' K
    const int per_split = (k_tiles + device.sms - 1) / device.sms;
    EXPECT_EQ(plan_of(packed(64, 64, 401408), device).split_k, (k_tiles + per_split - 1) / per_split)
        << device.sms << " SMs";
  }
  // K limits the slices: 2048 is 64 K tiles of 32, so 8 slices of 8.
  EXPECT_EQ(plan_of(packed(64, 64, 2048), kA100).split_k, 8);
  // N = 257 is two tiles or more for every configuration: at most 32 slices each.
  for (DeviceInfo const& device : {kA100, kH100}) {
    const int splits = plan_of(packed(64, 257, 401408), device).split_k;
    EXPECT_GT(splits, 1);
    EXPECT_LE(splits, 32);
  }
}

TEST(GemmPlan, ShortKOrManyTilesIsNotSplit) {
  EXPECT_EQ(plan_of(packed(256, 256, 1024)).split_k, 1);   // K below 2048
  EXPECT_EQ(plan_of(packed(4096, 4096, 8192)).split_k, 1);  // tiles fill the GPU
}

TEST(GemmPlan, EveryConfigurationCanBeForced) {
  for (auto const& name : gemm_config_names()) {
    GemmArguments args = packed(512, 512, 512);
    args.config = name;
    const bool sm90 = name.rfind("sm90_", 0) == 0;
    EXPECT_EQ(plan_of(args, sm90 ? kH100 : kA100).config, name);
    if (sm90) {  // not on a device without wgmma
      gemm_detail::Choice ch;
      Status s = gemm_detail::choose(args, kA100, &ch);
      EXPECT_EQ(s.code(), StatusCode::kNotSupported);
      EXPECT_NE(s.message().find("compute capability 9.0"), std::string::npos) << s.message();
    }
  }
}

// Compute capability 8.6 and 8.9 give a block 99 KiB: a configuration that needs more is
// refused with the sizes (every one on a made-up device of 32 KiB, whatever this build
// compiled), and the heuristic's choices fit.
TEST(GemmPlan, ConfigurationsNeedingMoreSharedMemoryThanTheDeviceAreRefused) {
  DeviceInfo tiny = kRtx4090;
  tiny.smem_per_block = 32 * 1024;
  for (auto const& info : sm80::kTileConfigs) {
    GemmArguments args = packed(4096, 4096, 4096);
    args.config = info.name;
    gemm_detail::Choice ch;
    for (DeviceInfo const& device : {kRtx4090, tiny}) {
      Status s = gemm_detail::choose(args, device, &ch);
      if (info.smem_bytes() <= device.smem_per_block) {
        EXPECT_TRUE(s.ok()) << info.name << ": " << s.message();
        continue;
      }
      EXPECT_EQ(s.code(), StatusCode::kNotSupported) << info.name;
      EXPECT_NE(s.message().find(std::to_string(info.smem_bytes()) + " bytes of shared memory per block, and this "
                                 "device allows " + std::to_string(device.smem_per_block)),
                std::string::npos)
          << s.message();
    }
    EXPECT_TRUE(gemm_detail::choose(args, kA100, &ch).ok()) << info.name;  // 163 KiB: every one
  }
  for (auto [m, n, k] : {std::tuple{4096, 4096, 4096}, std::tuple{64, 64, 64}, std::tuple{1000, 1000, 1001}}) {
    EXPECT_FALSE(plan_of(packed(m, n, k), kRtx4090).config.empty());
  }
}

// The sm80 heuristic (gemm_plan.cpp's choose_config): the fewest waves of tiles (one block
// per SM), each weighed by its tile's cost: 128x128x32 1, 128x256x64 1.78, 64x128x32 0.63.
TEST(GemmPlan, TheTileCostsTheFewestWeighedWaves) {
  if (sm80::kNumTileConfigs == 1) GTEST_SKIP() << "this build compiles one tile configuration (lean)";
  DeviceInfo h100 = kH100;  // as with TESSEL_DISABLE_SM90=1: 132 SMs
  h100.sm90_kernels = false;
  auto config = [&](GemmArguments const& args, DeviceInfo const& device) { return plan_of(args, device).config; };
  // 4096^3: 512 tiles of 128x256 in 4 waves (7.12) against 1024 of 128x128 in 8.
  EXPECT_EQ(config(packed(4096, 4096, 4096), h100), "128x256x64_s3_w2x4");
  // 2048^3: one wave of 128 tiles of 128x256 (1.78) against two of 128x128.
  EXPECT_EQ(config(packed(2048, 2048, 2048), h100), "128x256x64_s3_w2x4");
  // 3072^3: 288 tiles of 128x256 in 3 waves (5.34) against 576 of 128x128 in 5.
  EXPECT_EQ(config(packed(3072, 3072, 3072), h100), "128x128x32_s4_w2x2");
  // 1024^3: one wave of 64 tiles of 128x128 (1) against one of 128 of 64x128 (0.63).
  EXPECT_EQ(config(packed(1024, 1024, 1024), h100), "64x128x32_s4_w2x2");
  // On an A100's 108 SMs the 128 tiles of 64x128 take two waves (1.26): 128x128.
  EXPECT_EQ(config(packed(1024, 1024, 1024), kA100), "128x128x32_s4_w2x2");
  // Batches count: 17 x 16 tiles of 128x128 in 3 waves against 17 x 8 of 128x256 in 2 (3.56)
  // and 17 x 32 of 64x128 in 5 (3.15).
  GemmArguments batched = packed(512, 512, 512);
  batched.batch = 17, batched.a_batch_stride = batched.b_batch_stride = batched.d_batch_stride = 512 * 512;
  EXPECT_EQ(config(batched, h100), "128x128x32_s4_w2x2");
  batched.batch = 16;  // 256 tiles of 128x128 in 2 waves against 128 of 128x256 in 1
  EXPECT_EQ(config(batched, h100), "128x256x64_s3_w2x4");
  // 99 KiB a block: the 128x256 tile (144 KiB) is no candidate.
  EXPECT_EQ(config(packed(4096, 4096, 4096), kRtx4090), "128x128x32_s4_w2x2");
}

TEST(GemmPlan, NullOutIsAnInvalidArgument) {
  EXPECT_EQ(plan(packed(64, 64, 64), nullptr).code(), StatusCode::kInvalidArgument);
}

// ---- the H100: the TMA kernel wherever its maps can be made ----
TEST(GemmPlanH100, AlignedOperandsRunTheTmaKernel) {
  for (auto [m, n, k] : {std::tuple{4096, 4096, 4096}, std::tuple{1000, 1000, 1000}, std::tuple{1, 8, 8}}) {
    GemmPlan p = plan_of(packed(m, n, k), kH100);
    EXPECT_EQ(p.kernel, "sm90_tma_warp_specialized");
    EXPECT_EQ(p.variant.substr(0, 3), "tma");
    EXPECT_EQ(p.access, "TMA");
  }
}

TEST(GemmPlanH100, TheHeuristicTakesTheMeasuredFastestTile) {
  // K of 1024 or more: 128x256 unless its waves, each 1.85 of a 128x128 wave, cost more than
  // 128x128's (132 SMs)
  EXPECT_EQ(plan_of(packed(8192, 8192, 8192), kH100).config, "sm90_128x256x64_s4");   // 16 waves against 32
  EXPECT_EQ(plan_of(packed(4096, 14336, 4096), kH100).config, "sm90_128x256x64_s4");  // 14 against 28
  EXPECT_EQ(plan_of(packed(4096, 4096, 4096), kH100).config, "sm90_128x256x64_s4");   // 4 against 8
  EXPECT_EQ(plan_of(packed(2048, 2048, 2048), kH100).config, "sm90_128x256x64_s4");   // 1 against 2
  // K below 1024: 128x128, ping-pong where every SM gets two tiles or more and K two K tiles or more
  EXPECT_EQ(plan_of(packed(81920, 256, 256), kH100).config, "sm90_128x128x64_s5_pingpong");  // 1280 tiles, 4 K tiles
  EXPECT_EQ(plan_of(packed(81920, 256, 64), kH100).config, "sm90_128x128x64_s5");            // one K tile
  EXPECT_EQ(plan_of(packed(2048, 2048, 512), kH100).config, "sm90_128x128x64_s5");           // 256 tiles on 132 SMs
  EXPECT_EQ(plan_of(packed(4096, 4096, 512), kH100).config, "sm90_128x128x64_s5_pingpong");
  EXPECT_EQ(plan_of(packed(4096, 4096, 1024), kH100).config, "sm90_128x256x64_s4");
  // With a 16-bit D, 128x256 at any K where its weighed waves cost no more: the 1x1 conv layers
  // (M pixels, N filters) and the squares above
  auto half_d = [](int m, int n, int k) {
    GemmArguments args = packed(m, n, k);
    args.output_type = DataType::kF16;
    return plan_of(args, kH100).config;
  };
  EXPECT_EQ(half_d(100352, 256, 64), "sm90_128x256x64_s4");   // 6 waves against 12
  EXPECT_EQ(half_d(100352, 512, 128), "sm90_128x256x64_s4");  // 12 against 24
  EXPECT_EQ(half_d(6272, 2048, 512), "sm90_128x256x64_s4");   // 3 against 6
  EXPECT_EQ(half_d(4096, 4096, 512), "sm90_128x256x64_s4");
  EXPECT_EQ(half_d(2048, 2048, 512), "sm90_128x256x64_s4");   // 1 against 2
  EXPECT_EQ(half_d(6272, 1024, 256), "sm90_128x128x64_s5_pingpong");  // 2 waves (3.7) against 3
  EXPECT_EQ(half_d(25088, 128, 512), "sm90_128x128x64_s5");           // half of a 256-wide tile empty
  EXPECT_EQ(plan_of(packed(2048, 1024, 4096), kH100).config, "sm90_128x128x64_s5");   // 1 against 1
  EXPECT_EQ(plan_of(packed(4096, 2304, 4096), kH100).config, "sm90_128x128x64_s5");   // 3 (288 tiles) against 5 (576)
  EXPECT_EQ(plan_of(packed(1024, 1024, 1024), kH100).config, "sm90_64x128x64_s8");   // 64 tiles of 128x128
  EXPECT_EQ(plan_of(packed(1024, 1024, 65536), kH100).config, "sm90_128x128x64_s5");  // split over K instead
  // Few 128x128 tiles over a deep K (at most a quarter of the SMs): 128x128 split over K, but
  // 64x128 where they are 4 or fewer or 128-row tiles compute a tenth more rows than 64-row ones
  GemmPlan few = plan_of(packed(128, 4096, 4096), kH100);  // 32 tiles
  EXPECT_EQ(few.config, "sm90_128x128x64_s5");
  EXPECT_EQ(few.variant, "tma+splitk4");
  EXPECT_EQ(plan_of(packed(768, 192, 100352), kH100).config, "sm90_128x128x64_s5");  // 12 tiles
  EXPECT_EQ(plan_of(packed(256, 256, 65536), kH100).config, "sm90_64x128x64_s8");    // 4 tiles
  EXPECT_EQ(plan_of(packed(160, 960, 6272), kH100).config, "sm90_64x128x64_s8");     // 256 rows against 192
  EXPECT_EQ(plan_of(packed(960, 160, 6272), kH100).config, "sm90_128x128x64_s5");    // 1024 rows against 960
  // N at most 64: 128x64, as many tiles as 128x128 with deeper stages (split-K here)
  GemmPlan narrow = plan_of(packed(4096, 16, 4096), kH100);
  EXPECT_EQ(narrow.config, "sm90_128x64x64_s8");
  EXPECT_EQ(narrow.variant, "tma+splitk4");
  // in ping-pong where every SM gets two tiles or more and K is at most 16 K tiles
  EXPECT_EQ(plan_of(packed(81920, 64, 256), kH100).config, "sm90_128x64x64_s6_pingpong");  // 640 tiles, 4 K tiles
  EXPECT_EQ(plan_of(packed(81920, 33, 32), kH100).config, "sm90_128x64x64_s6_pingpong");   // one K tile
  EXPECT_EQ(plan_of(packed(81920, 64, 1088), kH100).config, "sm90_128x64x64_s8");          // 17 K tiles
  EXPECT_EQ(plan_of(packed(33792, 64, 256), kH100).config, "sm90_128x64x64_s6_pingpong");  // 264 tiles: 2 an SM
  EXPECT_EQ(plan_of(packed(33664, 64, 256), kH100).config, "sm90_128x64x64_s8");           // 263 tiles
  EXPECT_EQ(plan_of(packed(81920, 72, 256), kH100).config, "sm90_128x128x64_s5_pingpong");
  EXPECT_EQ(plan_of(packed(81920, 65, 256), kH100).config, "sm90_128x128x64_s5_sw");  // D rows of 130 bytes
  EXPECT_EQ(plan_of(packed(1024, 16, 1024), kH100).config, "sm90_64x128x64_s8");  // short K, few tiles
  // N at most 32: 256x64 where its tiles make two waves or more over at most 16 K tiles
  EXPECT_EQ(plan_of(packed(81920, 16, 32), kH100).config, "sm90_256x64x64_s4");           // 320 tiles of 256x64
  EXPECT_EQ(plan_of(packed(67584, 32, 1024), kH100).config, "sm90_256x64x64_s4");         // 264 tiles, 16 K tiles
  EXPECT_EQ(plan_of(packed(67328, 32, 144), kH100).config, "sm90_128x64x64_s6_pingpong");  // 263 tiles
  EXPECT_EQ(plan_of(packed(81920, 32, 1088), kH100).config, "sm90_128x64x64_s8");          // 17 K tiles
  EXPECT_EQ(plan_of(packed(81920, 18, 144), kH100).config, "sm90_128x64x64_s6_pingpong");  // D rows of 72 bytes
  // N of 129 to 192: 128x192 where its tiles make two waves or more, or one over K of 512 or more
  EXPECT_EQ(plan_of(packed(100352, 192, 768), kH100).config, "sm90_128x192x64_s4");  // 784 tiles
  EXPECT_EQ(plan_of(packed(33792, 136, 64), kH100).config, "sm90_128x192x64_s4");    // 264 tiles
  EXPECT_EQ(plan_of(packed(25088, 160, 576), kH100).config, "sm90_128x192x64_s4");   // 196 tiles, K 576
  EXPECT_EQ(plan_of(packed(25088, 192, 32), kH100).config, "sm90_128x128x64_s5");    // 196 tiles, K 32
  EXPECT_EQ(plan_of(packed(6272, 160, 960), kH100).config, "sm90_128x128x64_s5");    // 49 tiles
  EXPECT_EQ(plan_of(packed(100352, 200, 768), kH100).config, "sm90_128x128x64_s5_pingpong");
  EXPECT_EQ(plan_of(packed(100352, 181, 768), kH100).config, "sm90_128x128x64_s5_sw");  // D rows of 724 bytes
  // 64x128 where its tiles make one wave and K is below 4096; 128x128 where they would not.
  EXPECT_EQ(plan_of(packed(1568, 512, 2048), kH100).config, "sm90_64x128x64_s8");   // 104 tiles of 64x128
  EXPECT_EQ(plan_of(packed(6272, 256, 1024), kH100).config, "sm90_128x128x64_s5");  // 196 of 64x128
}

// Where D (or C, when read) is not 16-byte aligned, 128x256 and 128x128 give way to 128x128
// with store warps, whose stores overlap the mainloop; the other choices stand.
TEST(GemmPlanH100, UnalignedDTakesTheStoreWarpsInsteadOf128x256Or128x128) {
  // As tessel-prof gemm --m 4095 --n 4097 --k 1031 --out-dtype f16 runs it: D column-major
  // (4095 elements a column), so the kernel's view is 4097x4095; A and B staged.
  GemmArguments odd = packed(4095, 4097, 1031);
  odd.output_type = DataType::kF16, odd.d_layout = MatrixLayout::kColumnMajor, odd.ldd = 4095;
  EXPECT_EQ(plan_of(odd, kH100).config, "sm90_128x128x64_s5_sw");
  odd.ldd = 4096;  // aligned: 128x256, 528 tiles in 4 waves (7.4) against 1056 of 128x128 in 8
  EXPECT_EQ(plan_of(odd, kH100).config, "sm90_128x256x64_s4");
  odd.d_layout = MatrixLayout::kRowMajor, odd.ldd = 4097;  // the kernel's view 4095x4097: 128x128 (5 waves of 128x256)
  EXPECT_EQ(plan_of(odd, kH100).config, "sm90_128x128x64_s5_sw");
  odd.ldd = 4104;
  EXPECT_EQ(plan_of(odd, kH100).config, "sm90_128x128x64_s5");
  GemmArguments offset = packed(4096, 4096, 4096);  // f32 D 4 bytes past a 16-byte boundary
  offset.d = address((std::uintptr_t(3) << 36) + 4);
  EXPECT_EQ(plan_of(offset, kH100).config, "sm90_128x128x64_s5_sw");
  GemmArguments residual = packed(4096, 4096, 4096);
  residual.beta = 1.0f, residual.c = address((std::uintptr_t(4) << 36) + 4), residual.ldc = 4096;
  EXPECT_EQ(plan_of(residual, kH100).config, "sm90_128x128x64_s5_sw");
  residual.c = address(std::uintptr_t(4) << 36);
  EXPECT_EQ(plan_of(residual, kH100).config, "sm90_128x256x64_s4");
  residual.beta = 0.0f, residual.c = address((std::uintptr_t(4) << 36) + 4);  // C not read
  EXPECT_EQ(plan_of(residual, kH100).config, "sm90_128x256x64_s4");
  EXPECT_EQ(plan_of(packed(2000, 3001, 777), kH100).config, "sm90_128x128x64_s5_sw");  // K below 1024: 128x128's place
  EXPECT_EQ(plan_of(packed(2000, 3000, 777), kH100).config, "sm90_128x128x64_s5_pingpong");  // aligned D: 128x128 stays
  EXPECT_EQ(plan_of(packed(1000, 1001, 1000), kH100).config, "sm90_64x128x64_s8");     // few tiles: 64x128 stays
}

// Rows that are not 16 bytes: a large problem stages a copy with 16-byte rows, a small one
// runs the sm80 kernel's narrow path.
TEST(GemmPlanH100, RowsThatAreNotSixteenBytesAreStagedWhenLarge) {
  GemmArguments args = packed(3000, 5000, 700 + 3);  // rows of 1406 bytes
  gemm_detail::Choice ch;
  ASSERT_TRUE(gemm_detail::choose(args, kH100, &ch).ok());
  ASSERT_EQ(ch.kernel, gemm_detail::GemmKernel::kSm90Tma);
  EXPECT_EQ(gemm_detail::describe(ch).access, "TMA+staged");
  EXPECT_TRUE(ch.a_staged.on && ch.b_staged.on);
  EXPECT_EQ(ch.a_staged.ld, 704);
  EXPECT_EQ(ch.a_staged.strided, 3000);
  EXPECT_EQ(ch.sm90.a.strides[0], 704u * 2);

  GemmPlan small = plan_of(packed(256, 256, 33), kH100);
  EXPECT_EQ(small.kernel, "sm80_multistage");
  EXPECT_EQ(small.access, "2B");
  args = packed(256, 256, 256);
  args.a = address((std::uintptr_t(1) << 36) + 2);  // element-aligned only
  EXPECT_EQ(plan_of(args, kH100).kernel, "sm80_multistage");
  args.config = "sm90_128x128x64_s5";  // forced: staged whatever the size
  EXPECT_EQ(plan_of(args, kH100).access, "TMA+staged");
}

TEST(GemmPlanH100, KZeroAndBroadcastBatchesStayOnTheTmaKernel) {
  EXPECT_EQ(plan_of(packed(33, 40, 0), kH100).kernel, "sm90_tma_warp_specialized");
  GemmArguments args = packed(256, 256, 256);
  args.batch = 4, args.a_batch_stride = 0, args.b_batch_stride = 256 * 256, args.d_batch_stride = 256 * 256;
  gemm_detail::Choice ch;
  ASSERT_TRUE(gemm_detail::choose(args, kH100, &ch).ok());
  ASSERT_EQ(ch.kernel, gemm_detail::GemmKernel::kSm90Tma);
  EXPECT_TRUE(ch.sm90.a_broadcast);
  EXPECT_EQ(ch.sm90.a.dims[2], 1u);
  EXPECT_FALSE(ch.sm90.b_broadcast);
  EXPECT_EQ(ch.sm90.b.dims[2], 4u);
  EXPECT_EQ(ch.sm90.b.strides[1], 256u * 256u * 2u);
}

TEST(GemmPlanH100, MapsFollowTheMajor) {
  GemmArguments args = packed(300, 520, 136);
  args.a_layout = MatrixLayout::kColumnMajor, args.lda = 304;  // A MN-major: (M, K), boxes of 64 x 64
  gemm_detail::Choice ch;
  ASSERT_TRUE(gemm_detail::choose(args, kH100, &ch).ok());
  EXPECT_EQ(ch.sm90.a.dims[0], 300u);
  EXPECT_EQ(ch.sm90.a.dims[1], 136u);
  EXPECT_EQ(ch.sm90.a.strides[0], 304u * 2);
  EXPECT_EQ(ch.sm90.a.box[0], 64u);
  EXPECT_EQ(ch.sm90.a.box[1], 64u);
  EXPECT_EQ(ch.sm90.b.dims[0], 136u);  // B K-major: (K, N), one box of 64 x TileN
  EXPECT_EQ(ch.sm90.b.dims[1], 520u);
  EXPECT_EQ(ch.sm90.b.box[1], std::uint32_t(sm90::kTmaTileConfigs[ch.sm90.config].tile_n));
}

// Stream-K where whole tiles leave SMs idle and it measured faster: between a third and all of
// the SMs' worth of tiles with a deep K (sliced), or a last wave far from full (it and one
// wave before are shared as ranges). Fewer tiles keep split-K and its reduction kernel.
TEST(GemmPlanH100, StreamKWhereTilesLeaveSmsIdle) {
  gemm_detail::Choice ch;
  ASSERT_TRUE(gemm_detail::choose(packed(1024, 1024, 65536), kH100, &ch).ok());
  EXPECT_EQ(gemm_detail::describe(ch).variant, "tma+streamk");
  EXPECT_EQ(ch.splits, 1);
  const StreamKSchedule& s = ch.sm90.stream_k;  // sliced: 64 tiles x 2 K slices of 512 K tiles
  EXPECT_TRUE(s.valid());
  EXPECT_EQ(s.items, 64);
  EXPECT_EQ(s.splits, 2);
  EXPECT_EQ(s.blocks, 128);
  EXPECT_EQ(s.k_tiles, 1024);

  ASSERT_TRUE(gemm_detail::choose(packed(128 * 19, 128 * 7, 4096), kH100, &ch).ok());  // 133 tiles: 2 waves
  EXPECT_EQ(ch.sm90.stream_k.sk_items, 133);
  EXPECT_EQ(ch.sm90.stream_k.splits, 1);
  EXPECT_EQ(ch.sm90.stream_k.blocks, 132);
  DeviceInfo off = kH100;
  off.stream_k = false;
  EXPECT_EQ(plan_of(packed(128 * 19, 128 * 7, 4096), off).variant, "tma");

  for (auto [m, n, k] : {std::tuple{4096, 4096, 4096}, std::tuple{8192, 8192, 8192}, std::tuple{1024, 1024, 1024},
                         std::tuple{128, 4096, 128}, std::tuple{128 * 19, 128 * 7, 512}, std::tuple{25088, 128, 512},
                         std::tuple{1568, 512, 2048}}) {  // full last waves; K too short to share (below 64 K tiles)
    ASSERT_TRUE(gemm_detail::choose(packed(m, n, k), kH100, &ch).ok());
    EXPECT_EQ(ch.sm90.stream_k.sk_items, 0) << m << "x" << n << "x" << k;
    EXPECT_EQ(gemm_detail::describe(ch).variant, "tma");
  }
  GemmPlan few = plan_of(packed(256, 256, 65536), kH100);  // 4 tiles: split-K
  EXPECT_GT(few.split_k, 1);
  EXPECT_EQ(few.variant, "tma+splitk" + std::to_string(few.split_k));
  EXPECT_EQ(plan_of(packed(1024, 1024, 65536), kH100).variant, "tma+streamk");  // 64 tiles of 128x128, 2 slices
}

// Clusters of two blocks along M (sm90_128x128x64_s5_c2, forced): B's K-major map has boxes of
// half the tile's columns, each block loading one half; stream-K plans pairs of tile rows on
// half as many clusters as SMs; a device with one SM cannot run it.
TEST(GemmPlanH100, ClustersLoadHalfOfBAndPlanPairsOfTiles) {
  GemmArguments args = packed(4096, 4096, 4096);
  args.config = "sm90_128x128x64_s5_c2";
  gemm_detail::Choice ch;
  ASSERT_TRUE(gemm_detail::choose(args, kH100, &ch).ok());
  EXPECT_EQ(ch.sm90.a.box[1], 128u);
  EXPECT_EQ(ch.sm90.b.box[1], 64u);
  EXPECT_NE(gemm_detail::describe(ch).schedule.find("clusters of 2"), std::string::npos);
  args = packed(128 * 19, 128 * 7, 4096);  // 19 tile rows: the last pair has one row past M
  args.config = "sm90_128x128x64_s5_c2";
  ASSERT_TRUE(gemm_detail::choose(args, kH100, &ch).ok());
  const StreamKSchedule& s = ch.sm90.stream_k;  // 70 pairs on 66 clusters: ranges
  EXPECT_TRUE(s.valid());
  EXPECT_EQ(s.items, 10 * 7);
  EXPECT_EQ(s.blocks, kH100.sms / 2);
  EXPECT_EQ(s.sk_items, 70);
  DeviceInfo one = kH100;
  one.sms = 1;
  const Status refused = gemm_detail::choose(args, one, &ch);
  EXPECT_EQ(refused.code(), StatusCode::kNotSupported);
  EXPECT_NE(refused.message().find("clusters of 2"), std::string::npos) << refused.message();
}

// 16-bit D in 16-byte runs, unsplit: the TMA epilogue stores it through D's map, (N, M, batch)
// in the kernel's view, boxes of 64 columns and one warpgroup's rows.
TEST(GemmPlanH100, SixteenBitDIsStoredByTheTmaEngine) {
  auto choice = [](GemmArguments const& args, DeviceInfo const& device = kH100) {
    gemm_detail::Choice ch;
    EXPECT_TRUE(gemm_detail::choose(args, device, &ch).ok());
    return ch;
  };
  GemmArguments args = packed(4096, 2048, 512);
  args.output_type = DataType::kF16;
  gemm_detail::Choice ch = choice(args);
  ASSERT_EQ(gemm_detail::describe(ch).config, "sm90_128x256x64_s4");
  ASSERT_TRUE(ch.sm90.d_tma);
  EXPECT_NE(gemm_detail::describe(ch).schedule.find("D stored by the TMA engine"), std::string::npos);
  const sm90::TmaMapParams& d = ch.sm90.d;
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.swizzle_bytes, 128);
  EXPECT_EQ(d.dims[0], 2048u);
  EXPECT_EQ(d.dims[1], 4096u);
  EXPECT_EQ(d.dims[2], 1u);
  EXPECT_EQ(d.strides[0], 2048u * 2);
  EXPECT_EQ(d.box[0], 64u);
  EXPECT_EQ(d.box[1], 64u);  // a warpgroup's 64 rows of the 128-row tile
  // Column-major D: the kernel's view is transposed, ldd its row pitch; batches by their stride.
  args.d_layout = MatrixLayout::kColumnMajor, args.ldd = 4096 + 8;
  args.batch = 3, args.a_batch_stride = std::int64_t(4096) * 512, args.b_batch_stride = std::int64_t(2048) * 512;
  args.d_batch_stride = std::int64_t(2048) * (4096 + 8) + 64;
  ch = choice(args);
  ASSERT_TRUE(ch.sm90.d_tma);
  EXPECT_EQ(ch.sm90.d.dims[0], 4096u);
  EXPECT_EQ(ch.sm90.d.dims[1], 2048u);
  EXPECT_EQ(ch.sm90.d.dims[2], 3u);
  EXPECT_EQ(ch.sm90.d.strides[0], (4096u + 8) * 2);
  EXPECT_EQ(ch.sm90.d.strides[1], std::uint64_t(args.d_batch_stride) * 2);
  // A ping-pong warpgroup stores the whole tile: boxes of 128 rows; 256x64's warpgroups 128.
  for (const char* name : {"sm90_128x128x64_s5_pingpong", "sm90_256x64x64_s4", "sm90_64x128x64_s8"}) {
    GemmArguments forced = packed(4096, 4096, 512);
    forced.output_type = DataType::kBF16, forced.config = name;
    ch = choice(forced);
    ASSERT_TRUE(ch.sm90.d_tma) << name;
    EXPECT_EQ(ch.sm90.d.box[1], std::string(name) == "sm90_64x128x64_s8" ? 64u : 128u) << name;
  }
  // The registers store: fp32 D, D or C off 16-byte runs (the store warps' configuration),
  // split-K's fp32 slices, TESSEL_DISABLE_TMA_STORE.
  GemmArguments f32 = packed(4096, 2048, 512);
  EXPECT_FALSE(choice(f32).sm90.d_tma);
  GemmArguments odd = packed(4096, 2048, 512);
  odd.output_type = DataType::kF16, odd.ldd = 2048 + 4;
  EXPECT_FALSE(choice(odd).sm90.d_tma);
  GemmArguments ragged = packed(4096, 2047, 512);  // rows in 16-byte runs, N inside the last one
  ragged.output_type = DataType::kF16, ragged.ldd = 2048;
  EXPECT_FALSE(choice(ragged).sm90.d_tma);
  ragged.d_layout = MatrixLayout::kColumnMajor, ragged.ldd = 4096;  // the kernel's N is 4096
  EXPECT_TRUE(choice(ragged).sm90.d_tma);
  GemmArguments residual = packed(4096, 2048, 512);
  residual.output_type = DataType::kF16, residual.beta = 1.0f, residual.ldc = 2048;
  residual.c = address((std::uintptr_t(4) << 36) + 2);
  EXPECT_FALSE(choice(residual).sm90.d_tma);
  residual.c = address(std::uintptr_t(4) << 36);
  EXPECT_TRUE(choice(residual).sm90.d_tma);
  GemmArguments deep = packed(256, 256, 65536);
  deep.output_type = DataType::kF16;
  ch = choice(deep);
  ASSERT_GT(ch.splits, 1);
  EXPECT_FALSE(ch.sm90.d_tma);
  DeviceInfo off = kH100;
  off.tma_store = false;
  EXPECT_FALSE(choice(args, off).sm90.d_tma);
}

}  // namespace
}  // namespace tessel
