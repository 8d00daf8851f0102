// The shipped GEMM configurations: their shared-memory layouts are conflict-free for the
// accesses the kernel really makes. The lanes' coordinates come from the kernel's own
// TiledCopy partitions (cp.async writes, ldmatrix reads of A and B), and the bank-conflict
// checker of tessel-layout counts the conflicts of every warp and every copy instruction.
// The same accesses on the unswizzled layout must conflict, or the check proves nothing.
#include <gtest/gtest.h>

#include "bank_checker.hpp"
#include "expression.hpp"
#include "tessel/atom/copy.hpp"
#include "tessel/gemm/tile_loader.hpp"  // EdgePredicates
#include "gemm/tile_configs_sm80.hpp"  // the shipped table (the full one: this target is not lean)
#include "tessel/gemm/config_sm80.hpp"
#include "gemm/tile_configs_sm90.hpp"       // the TMA kernel's table
#include "tessel/gemm/epilogue_sm90.hpp"  // the sm90 epilogue's warp scratch
#include "tessel/gemm/epilogue_tma_store_sm90.hpp"

namespace tessel {
namespace {

// Stage 0 of a (Tile, TileK, Stages) shared-memory layout as tessel-layout text. The bank
// checker vectorises along the second mode, so an MN-major stage is given as (TileK, Tile).
template <class SmemLayout, bool MNMajor>
std::string stage0_expression(bool swizzled) {
  auto stage = SmemLayout{}(make_coord(_, _, 0));
  using Sw = std::remove_cvref_t<decltype(stage.outer())>;
  auto in = stage.inner();
  std::string inner = MNMajor ? to_string(make_layout(get<1>(in), get<0>(in))) : to_string(in);
  if (!swizzled) return inner;
  return "composition(Sw<" + std::to_string(Sw::num_bits) + "," + std::to_string(Sw::num_base) + "," +
         std::to_string(Sw::num_shift) + ">, " + inner + ")";
}

// Worst n-way over every warp and every instruction of a copy's partitions of a (rows, cols)
// tile: for instruction i, lane l of warp w starts its vector of AtomV 16-bit elements at the
// first element of atom i of thread 32w + l. Transposed: the tile was given as (cols, rows).
template <class Copy, int Threads, bool Destination, bool Transposed, int AtomV = 8, class Rows, class Cols>
int worst_conflict(tool::SmemTile const& tile, Rows rows, Cols cols) {
  auto id = make_identity_tensor(make_shape(rows, cols));
  int worst = 1;
  for (int warp = 0; warp < Threads / 32; ++warp) {
    std::vector<std::vector<tool::Coord>> per_instruction;
    for (int lane = 0; lane < 32; ++lane) {
      auto thr = Copy::get_slice(32 * warp + lane);
      auto part = [&] {
        if constexpr (Destination) {
          return detail::group_atom_values<AtomV>(thr.partition_D(id));
        } else {
          return detail::group_atom_values<AtomV>(thr.partition_S(id));
        }
      }();
      int count = int(size<1>(part));
      per_instruction.resize(count);
      for (int i = 0; i < count; ++i) {
        auto c = part(make_coord(0, i));
        const int64_t r = get<0>(c), k = get<1>(c);
        per_instruction[i].push_back(Transposed ? tool::Coord{k, r} : tool::Coord{r, k});
      }
    }
    for (auto const& coords : per_instruction) {
      worst = std::max(worst, tool::check_banks(tile, tool::explicit_access(coords, 2 * AtomV)).worst_n_way);
    }
  }
  return worst;
}

// The tile loader's edge predicates (gemm/tile_loader.hpp, EdgePredicates) keep each thread's
// first atom and add a constant per atom: against every atom's own coordinates from the
// partition, for every thread, at rows and K extents that cut the tile anywhere.
template <class Copy, int Threads, int AtomV, class Rows, class Cols>
void expect_edge_predicates_exact(Rows rows, Cols cols) {
  auto id = make_identity_tensor(make_shape(rows, cols));
  const int tile_mn = int(rows), tile_k = int(cols);
  for (int t = 0; t < Threads; ++t) {
    auto thr = Copy::get_slice(t);
    auto atoms = detail::group_atom_values<AtomV>(thr.partition_S(id));
    for (int inside : {0, 1, tile_mn / 2 + 3, tile_mn - 1, tile_mn}) {
      auto pred = make_edge_predicates<AtomV>(thr, id, inside);
      for (auto [k0, k] : {std::pair{0, 0}, {0, 1}, {0, tile_k / 2 + 1}, {tile_k, tile_k + 7}, {5 * tile_k, 6 * tile_k},
                           {2 * tile_k, 9 * tile_k}}) {
        for (int i = 0; i < int(size<1>(atoms)); ++i) {
          auto c = atoms(make_coord(0, i));
          const bool expected = int(get<0>(c)) < inside && k0 + int(get<1>(c)) < k;
          ASSERT_EQ(pred(i, k0, k), expected) << "thread " << t << ", atom " << i << ", rows " << inside << ", k0 "
                                              << k0 << ", k " << k;
        }
      }
    }
  }
}

template <class Config>
void expect_conflict_free() {
  constexpr int kThreads = Config::kThreads;
  auto rows_a = Int<Config::kTileM>{}, rows_b = Int<Config::kTileN>{};
  auto cols = Int<Config::kTileK>{};
  for (bool swizzled : {true, false}) {
    constexpr bool kTa = Config::kMajorA == Major::kMN, kTb = Config::kMajorB == Major::kMN;
    auto tile_a = tool::make_smem_tile(rt::evaluate(stage0_expression<typename Config::SmemLayoutA, kTa>(swizzled)), 2);
    auto tile_b = tool::make_smem_tile(rt::evaluate(stage0_expression<typename Config::SmemLayoutB, kTb>(swizzled)), 2);
    // The narrow path's 2-byte stores are not checked: lanes that share a 4-byte word do not
    // conflict, and the checker counts 4- to 16-byte vectors.
    constexpr int kV = Config::kAccess;
    int g2s_a = 1, g2s_b = 1;
    if constexpr (kV > 1) {
      g2s_a = worst_conflict<typename Config::G2SA, kThreads, true, kTa, kV>(tile_a, rows_a, cols);
      g2s_b = worst_conflict<typename Config::G2SB, kThreads, true, kTb, kV>(tile_b, rows_b, cols);
    }
    int s2r_a = worst_conflict<typename Config::S2RA, kThreads, false, kTa>(tile_a, rows_a, cols);
    int s2r_b = worst_conflict<typename Config::S2RB, kThreads, false, kTb>(tile_b, rows_b, cols);
    if (swizzled) {
      expect_edge_predicates_exact<typename Config::G2SA, kThreads, kV>(rows_a, cols);
      expect_edge_predicates_exact<typename Config::G2SB, kThreads, kV>(rows_b, cols);
      EXPECT_EQ(g2s_a, 1) << "cp.async writes of A on " << tile_a.text();
      EXPECT_EQ(g2s_b, 1) << "cp.async writes of B on " << tile_b.text();
      EXPECT_EQ(s2r_a, 1) << "ldmatrix reads of A on " << tile_a.text();
      EXPECT_EQ(s2r_b, 1) << "ldmatrix reads of B on " << tile_b.text();
    } else {
      EXPECT_GT(s2r_a, 1) << "the unswizzled layout should conflict: " << tile_a.text();
      EXPECT_GT(s2r_b, 1) << "the unswizzled layout should conflict: " << tile_b.text();
    }
  }
}

// The epilogue's staging tile (SmemLayoutC, fp32): each warp writes its accumulators as 8-byte
// pairs in the MMA's C order, then reads 16-byte row runs (store_tile, f32 output: runs of 4).
template <class Config>
void expect_epilogue_conflict_free() {
  using Sw = std::remove_cvref_t<decltype(typename Config::SmemLayoutC{}.outer())>;
  const std::string text = "composition(Sw<" + std::to_string(Sw::num_bits) + "," + std::to_string(Sw::num_base) + "," +
                           std::to_string(Sw::num_shift) + ">, " + to_string(typename Config::SmemLayoutC{}.inner()) + ")";
  auto tile = tool::make_smem_tile(rt::evaluate(text), 4);
  auto id = make_identity_tensor(make_shape(Int<Config::kTileM>{}, Int<Config::kTileN>{}));
  int worst_write = 1, worst_read = 1;
  for (int warp = 0; warp < Config::kThreads / 32; ++warp) {
    std::vector<std::vector<tool::Coord>> writes;
    std::vector<tool::Coord> reads;
    for (int lane = 0; lane < 32; ++lane) {
      const int t = 32 * warp + lane;
      auto part = typename Config::Mma{}.get_slice(t).partition_C(id);  // (MMA,MMA_M,MMA_N)
      writes.resize(size(part) / 2);
      for (int i = 0; i < int(size(part)) / 2; ++i) {
        auto c = part[2 * i];
        writes[i].push_back(tool::Coord{int64_t(get<0>(c)), int64_t(get<1>(c))});
      }
      constexpr int kThreadsPerRow = Config::kTileN / 4;
      reads.push_back(tool::Coord{t / kThreadsPerRow, (t % kThreadsPerRow) * 4});
    }
    for (auto const& w : writes) {
      worst_write = std::max(worst_write, tool::check_banks(tile, tool::explicit_access(w, 8)).worst_n_way);
    }
    worst_read = std::max(worst_read, tool::check_banks(tile, tool::explicit_access(reads, 16)).worst_n_way);
  }
  EXPECT_EQ(worst_write, 1) << "accumulator writes on " << text;
  EXPECT_EQ(worst_read, 1) << "16-byte row reads on " << text;

  // store_tile_unaligned: a warp reads 32 consecutive columns of a row, lane l's columns
  // l + 32 j from one pointer (s[32 j]): the swizzle must keep them 32 floats apart.
  typename Config::SmemLayoutC layout{};
  int worst_row_read = 1;
  for (int row = 0; row < Config::kTileM; ++row) {
    for (int col = 0; col + 32 < Config::kTileN; ++col) {
      ASSERT_EQ(int(layout(row, col + 32)), int(layout(row, col)) + 32)
          << "row " << row << ", column " << col << " of " << text;
    }
    for (int col0 = 0; col0 < Config::kTileN; col0 += 32) {
      std::vector<tool::Coord> row_reads;
      for (int lane = 0; lane < 32; ++lane) row_reads.push_back(tool::Coord{row, col0 + lane});
      const int n_way = tool::check_banks(tile, tool::explicit_access(row_reads, 4)).worst_n_way;
      worst_row_read = std::max(worst_row_read, n_way);
    }
  }
  EXPECT_EQ(worst_row_read, 1) << "the unaligned epilogue's 4-byte row reads on " << text;
}

// A tile shape with every operand order.
template <class Shape, int Access = 8>
void expect_shape_conflict_free() {
  expect_conflict_free<typename Shape::template Config<Half, Major::kK, Major::kK, Access>>();
  expect_conflict_free<typename Shape::template Config<Half, Major::kMN, Major::kK, Access>>();
  expect_conflict_free<typename Shape::template Config<Half, Major::kK, Major::kMN, Access>>();
  expect_conflict_free<typename Shape::template Config<BFloat16, Major::kMN, Major::kMN, Access>>();
  expect_epilogue_conflict_free<typename Shape::template Config<Half, Major::kK, Major::kK, Access>>();
}

// Every shipped tile shape (src/gemm/tile_configs_sm80.hpp, the table the heuristic and
// --config choose from): a configuration added there is checked here without a new test.
TEST(GemmConfigSm80, EveryShippedTileIsConflictFree) {
  static_assert(std::tuple_size_v<sm80::TileShapes> >= 4, "gemm_config_test: the full table, not the lean one");
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (expect_shape_conflict_free<sm80::TileConfigAt<int(I)>>(), ...);
  }(std::make_index_sequence<sm80::kNumTileConfigs>{});
}
// The narrow tile's narrower accesses (8- and 4-byte cp.async; element-wise loads, whose
// atoms the edge predicates walk too).
TEST(GemmConfigSm80, EveryShippedNarrowAccessIsConflictFree) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (expect_shape_conflict_free<sm80::NarrowTile, sm80::kNarrowAccesses[I]>(), ...);
  }(std::make_index_sequence<std::size(sm80::kNarrowAccesses)>{});
}
TEST(GemmConfigSm80, Tile64x64x32x2IsConflictFree) { expect_shape_conflict_free<sm80::TileShape<64, 64, 32, 2, 2, 2>>(); }

// The sm90 epilogue's per-warp scratch (epilogue_sm90.hpp, store_through_warp_scratch): a
// (16, 32) fp32 slice, rows `stride` floats apart. A warp writes its accumulator pairs, chunk
// jj and half h at a time (lane l: row l / 4 + 8 h, columns 8 jj + 2 (l % 4) + {0, 1}, 8
// bytes), then reads one row at a time (lane l: column l). The worst n-way conflict of a side.
int warp_scratch_worst(int stride, bool writes) {
  auto tile = tool::make_smem_tile(rt::evaluate("(16,32):(" + std::to_string(stride) + ",1)"), 4);
  int worst = 1;
  for (int step = 0; step < (writes ? 8 : 16); ++step) {  // (jj, h), or the row
    std::vector<tool::Coord> lanes;
    for (int l = 0; l < 32; ++l) {
      lanes.push_back(writes ? tool::Coord{l / 4 + 8 * (step % 2), 8 * (step / 2) + 2 * (l % 4)}
                             : tool::Coord{step, l});
    }
    worst = std::max(worst, tool::check_banks(tile, tool::explicit_access(lanes, writes ? 8 : 4)).worst_n_way);
  }
  return worst;
}

TEST(EpilogueSm90, WarpScratchIsConflictFree) {
  EXPECT_EQ(warp_scratch_worst(detail::kScratchStride, true), 1) << "the accumulator pairs' writes";
  EXPECT_EQ(warp_scratch_worst(detail::kScratchStride, false), 1) << "the row reads";
  EXPECT_GT(warp_scratch_worst(32, true), 1) << "unpadded rows: a half-warp's 4 rows share banks";
}

// Every GEMM configuration that stores through the TMA epilogue (epilogue_tma_store_sm90.hpp)
// fits two groups of boxes in its warpgroup's share of the staging area; 128x128 (cooperative)
// stores a whole tile a pass, 128x256 a box.
template <int I = 0>
void expect_tma_store_shapes() {
  if constexpr (I < sm90::kNumTmaTileConfigs) {
    using Config = typename sm90::TmaTileConfigAt<I>::template Config<Half, Major::kK, Major::kK>;
    using Shape = detail::TmaStoreShape<Config>;
    if (Config::kStoreWarps == 0) {
      EXPECT_TRUE(Shape::kFits) << sm90::kTmaTileConfigs[I].name;
      EXPECT_GE(Shape::kSlots, 2 * Shape::kPass) << sm90::kTmaTileConfigs[I].name;
    }
    expect_tma_store_shapes<I + 1>();
  }
}

TEST(EpilogueSm90, TmaStoreBoxesFitTheStagingArea) {
  expect_tma_store_shapes();
  using Cooperative128 = sm90::TmaTileShape<128, 128, 5>::Config<Half, Major::kK, Major::kK>;
  EXPECT_EQ(detail::TmaStoreShape<Cooperative128>::kPass, 2);
  using Wide = sm90::TmaTileShape<128, 256, 4>::Config<Half, Major::kK, Major::kK>;
  EXPECT_EQ(detail::TmaStoreShape<Wide>::kPass, 1);  // 16 KiB a warpgroup: two 8 KiB boxes
}

// The TMA epilogue (epilogue_tma_store_sm90.hpp): each lane's stmatrix rows land where the map's
// 128-byte swizzle puts row `row`, chunk `chunk` of a box (row * 128 + (chunk ^ row % 8) * 16),
// and the 8 rows of each 8x8 matrix fall in 8 different 16-byte bank groups.
TEST(EpilogueSm90, StmatrixRowsLandWhereTheTmaSwizzleExpects) {
  for (int warp = 0; warp < 4; ++warp) {
    for (int mb = 0; mb < 2; ++mb) {
      for (int jp = 0; jp < 8; jp += 2) {
        for (int matrix = 0; matrix < 4; ++matrix) {
          unsigned groups = 0;
          for (int i = 0; i < 8; ++i) {
            const int lane = 8 * matrix + i;
            const int row = 64 * mb + 16 * warp + 8 * (matrix % 2) + i, chunk = jp + matrix / 2;
            const std::uint32_t at = detail::StmatrixBoxLane(warp, lane).at(mb, jp);
            ASSERT_EQ(at, std::uint32_t(row * 128 + (chunk ^ (row % 8)) * 16))
                << "warp " << warp << " lane " << lane << " block " << mb << " pair " << jp;
            groups |= 1u << (at / 16 % 8);
          }
          EXPECT_EQ(groups, 0xffu) << "matrix " << matrix << " of warp " << warp << ": bank conflicts";
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessel
