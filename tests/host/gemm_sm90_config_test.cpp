// The sm_90a GEMM's matrix descriptors (config_sm90.hpp) name exactly the shared memory the
// cp.async ring writes: for every shipped-kind configuration, every warpgroup origin and every
// 16-wide k-step, the address wgmma derives for each (mn, k) of its operand — decoded here
// from the descriptor bits by the PTX ISA's canonical layouts, swizzle included — equals the
// address of that element in the ring's layout (operand_sm80.hpp). A descriptor with a wrong
// offset, swizzle mode or stride fails on the first element it misplaces.
#include <gtest/gtest.h>

#include <cstdint>

#include "gemm/tile_configs_sm90.hpp"  // the shipped table
#include "tessel/gemm/config_sm90.hpp"

namespace tessel {
namespace {

// The byte address wgmma reads for element (mn, k) of the 64 x 16 (A) or 16 x N (B) operand
// that `desc` describes, 16-bit elements.
std::uint32_t gmma_address(std::uint64_t desc, bool k_major, int mn, int k) {
  const std::uint32_t start = std::uint32_t(desc & 0x3FFF) << 4;
  const std::uint32_t lbo = std::uint32_t((desc >> 16) & 0x3FFF) << 4;
  const std::uint32_t sbo = std::uint32_t((desc >> 32) & 0x3FFF) << 4;
  const int mode = int(desc >> 62);
  const std::uint32_t width = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 16;  // swizzled row bytes
  std::uint32_t addr;
  if (k_major) {  // 8 rows of `width` bytes per core-matrix group, groups sbo apart
    addr = start + (mn % 8) * width + (mn / 8) * sbo + k * 2;
  } else {  // width/2 MN elements per row, one row per K; atoms along MN lbo apart, 8-K groups sbo apart
    const int per_row = int(width) / 2;
    addr = start + (mn % per_row) * 2 + (mn / per_row) * lbo + (k % 8) * width + (k / 8) * sbo;
  }
  const std::uint32_t mask = width / 16 - 1;  // Swizzle<log2(width/16), 4, 3> on byte addresses
  return addr ^ (((addr >> 7) & mask) << 4);
}

// Every element of the operand (A: extent 64, B: kWgTileN) at each warpgroup origin and
// k-step of a stage at `base`: the descriptor's address against address(gm, gk), the stage
// layout's byte offset of element (gm, gk) of the whole (TileMN, TileK) stage.
template <class Gmma, class Address>
void check_descriptors(int extent, int origins, int tile_k, std::uint32_t base, char const* name,
                       Address const& address) {
  for (int o = 0; o < origins; ++o) {
    const int mn64 = o * extent / 64;
    for (int ks = 0; ks < tile_k / 16; ++ks) {
      const std::uint64_t desc = Gmma::descriptor(base, mn64, ks);
      for (int mn = 0; mn < extent; ++mn) {
        for (int k = 0; k < 16; ++k) {
          ASSERT_EQ(gmma_address(desc, Gmma::kKMajor, mn, k), base + address(64 * mn64 + mn, 16 * ks + k))
              << name << ": origin " << o << ", k-step " << ks << ", element (" << mn << ", " << k << ")";
        }
      }
    }
  }
}

// ... against the cp.async ring (operand_sm80.hpp).
template <class Gmma, class Operand>
void check_operand(int extent, int origins, int tile_k, std::uint32_t base, char const* name) {
  typename Operand::SmemStageLayout stage;
  check_descriptors<Gmma>(extent, origins, tile_k, base, name,
                          [&](int gm, int gk) { return 2 * std::uint32_t(stage(gm, gk)); });
}

template <class Config>
void check_config() {
  for (std::uint32_t base : {0u, 3u * 1024u, 40u * 1024u}) {  // stages start on 1024-byte boundaries
    check_operand<typename Config::GmmaA, typename Config::OperandA>(64, Config::kWarpGroupsM, Config::kTileK, base, "A");
    check_operand<typename Config::GmmaB, typename Config::OperandB>(Config::kWgTileN, Config::kWarpGroupsN, Config::kTileK, base, "B");
  }
}

constexpr Major K = Major::kK, MN = Major::kMN;
TEST(GmmaDescriptor, KMajorTileK32) { check_config<GemmConfigSm90<128, 128, 32, 6, Half, K, K>>(); }
TEST(GmmaDescriptor, KMajorTileK64) { check_config<GemmConfigSm90<128, 128, 64, 4, Half, K, K>>(); }
TEST(GmmaDescriptor, MnMajorTileK32) { check_config<GemmConfigSm90<128, 128, 32, 6, Half, MN, MN>>(); }
TEST(GmmaDescriptor, MnMajorTileK64) { check_config<GemmConfigSm90<128, 128, 64, 4, Half, MN, MN>>(); }
TEST(GmmaDescriptor, NarrowTileN64) { check_config<GemmConfigSm90<128, 64, 32, 6, Half, K, MN>>(); }
TEST(GmmaDescriptor, ShortTileM64) { check_config<GemmConfigSm90<64, 128, 32, 6, Half, MN, K>>(); }

// kMnBoxes: an MN-major stage of TMA boxes (64 MN, TileK K), box b at b * TileK * 128 bytes,
// K row k of it at k * 128, its 16-byte chunks XOR-swizzled by k % 8 (the 128-byte swizzle).
template <class Gmma>
void check_boxes(int extent, int origins, int tile_k) {
  for (std::uint32_t base : {0u, 48u * 1024u}) {
    check_descriptors<Gmma>(extent, origins, tile_k, base, "boxes", [&](int gm, int gk) {
      // base is 1024-byte aligned, so the swizzle's row bits are those of the offset
      const std::uint32_t linear = std::uint32_t(gm / 64 * tile_k * 128 + gk * 128 + gm % 64 * 2);
      return linear ^ (((linear >> 7) & 7) << 4);
    });
  }
}
TEST(GmmaDescriptor, MnMajorTmaBoxes) {
  constexpr GmmaLayout R = GmmaLayout::kRing, B = GmmaLayout::kMnBoxes;
  check_boxes<GemmConfigSm90<128, 128, 64, 3, Half, K, MN, 1, R, B>::GmmaB>(128, 1, 64);
  check_boxes<GemmConfigSm90<128, 64, 64, 4, Half, K, MN, 1, R, B>::GmmaB>(64, 1, 64);
  check_boxes<GemmConfigSm90<64, 128, 64, 4, Half, K, MN, 1, R, B>::GmmaB>(64, 2, 64);
}

// Every shipped TMA configuration (src/gemm/tile_configs_sm90.hpp) in every operand order: a
// K-major operand against the ring's layout (one TMA box of 128-byte rows is that layout), an
// MN-major one against its boxes. A: one 64-row block per warpgroup and ping-pong block; B:
// each warpgroup's columns.
template <class Gmma, class Operand>
void check_tma_operand(int extent, int origins, int tile_k) {
  if constexpr (Gmma::kBoxes) {
    check_boxes<Gmma>(extent, origins, tile_k);
  } else {
    check_operand<Gmma, Operand>(extent, origins, tile_k, 0, "K-major");
  }
}
template <class Shape, Major A, Major B>
void check_tma_config() {
  using Config = typename Shape::template Config<Half, A, B>;
  check_tma_operand<typename Config::GmmaA, typename Config::OperandA>(
      64, Config::kWarpGroupsM * Config::kWgMBlocks, Config::kTileK);
  check_tma_operand<typename Config::GmmaB, typename Config::OperandB>(Config::kWgTileN, Config::kWarpGroupsN,
                                                                      Config::kTileK);
}
TEST(GmmaDescriptor, EveryShippedTmaConfiguration) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((check_tma_config<sm90::TmaTileConfigAt<int(I)>, K, K>(), check_tma_config<sm90::TmaTileConfigAt<int(I)>, K, MN>(),
      check_tma_config<sm90::TmaTileConfigAt<int(I)>, MN, K>(), check_tma_config<sm90::TmaTileConfigAt<int(I)>, MN, MN>()),
     ...);
  }(std::make_index_sequence<sm90::kNumTmaTileConfigs>{});
}

// The same check must fail for a descriptor with the wrong swizzle mode, or it proves nothing.
TEST(GmmaDescriptor, AWrongSwizzleIsCaught) {
  using Op = OperandSm80<Half, K, 128, 32, 6, 256, 8>;
  typename Op::SmemStageLayout stage;
  const std::uint64_t wrong = make_gmma_descriptor(0, 16, 512, GmmaSwizzle::k128B);
  int mismatches = 0;
  for (int mn = 0; mn < 64; ++mn)
    for (int k = 0; k < 16; ++k) mismatches += gmma_address(wrong, true, mn, k) != 2 * std::uint32_t(stage(mn, k));
  EXPECT_GT(mismatches, 0);
}

}  // namespace
}  // namespace tessel
