// How one GEMM operand moves through the sm80 pipeline: global -> shared (cp.async, or plain
// loads on the narrow path) -> registers (ldmatrix). The operand is a (MN, K) tile, MN = M for
// A and N for B, stored either K-major (K contiguous) or MN-major (M or N contiguous).
//
//   K-major   shared atom Sw<B,3,3> o (8,TileK):(TileK,1)      ldmatrix.x4
//   MN-major  shared atom Sw<3,3,3> o (64,8):(1,64)            ldmatrix.x4.trans
//
// Both atoms are 8 rows of 16-byte vectors per 128 bytes, swizzled so that 8 lanes writing
// (cp.async) or reading (ldmatrix) one vector each hit 8 different 16-byte bank groups:
// tests/host/gemm_config_test.cpp proves it for every shipped configuration.
//
// Access = 8, 4 or 2 elements: one 16-, 8- or 4-byte cp.async per vector; every vector lies
// wholly inside or wholly outside the matrix, which needs the contiguous extent, the leading
// dimension and the pointer to be multiples of Access elements (16, 8 or 4 bytes: a packed
// row-major A with K = 1030 takes 4). Access = 1: the narrow path for anything else: each
// thread loads single elements with ordinary loads (zero past the edges) and stores them to
// shared memory. The vectors land in the same swizzled layout (a vector never straddles a
// 16-byte chunk), so the mainloop is the same whatever the access.
#pragma once

#include <numeric>

#include "tessel/arch/numeric_types.hpp"
#include "tessel/atom/copy_traits_sm80.hpp"
#include "tessel/atom/copy_traits_universal.hpp"
#include "tessel/atom/tiled_copy.hpp"
#include "tessel/types.hpp"  // Major

namespace tessel {

template <class Element, Major M, int TileMN, int TileK, int Stages, int Threads, int Access>
struct OperandSm80 {
  static_assert(Access == 8 || Access == 4 || Access == 2 || Access == 1,
                "OperandSm80: Access is 8, 4 or 2 elements (16-, 8- or 4-byte cp.async) or 1 (the narrow path)");
  static_assert(sizeof(Element) == 2, "OperandSm80: 16-bit elements (f16, bf16)");
  static constexpr bool kKMajor = M == Major::kK;
  static constexpr int kContiguous = kKMajor ? TileK : TileMN;  // extent of the contiguous mode

  // ---- shared memory: (TileMN, TileK, Stages)
  static_assert(kKMajor || TileMN % 64 == 0,
                "OperandSm80: an MN-major operand needs TileM/TileN to be a multiple of 64 "
                "(its swizzle atom is 64 elements of MN by 8 of K)");
  static constexpr int kSwizzleBits = !kKMajor ? 3 : TileK == 64 ? 3 : TileK == 32 ? 2 : 1;
  using SmemAtom = std::conditional_t<
      kKMajor,
      decltype(composition(Swizzle<kSwizzleBits, 3, 3>{},
                           make_layout(make_shape(Int<8>{}, Int<TileK>{}), LayoutRight{}))),  // (8,TileK)
      decltype(composition(Swizzle<3, 3, 3>{}, make_layout(make_shape(Int<64>{}, Int<8>{}))))>;  // (64,8)
  using SmemLayout = decltype(tile_to_shape(SmemAtom{}, make_shape(Int<TileMN>{}, Int<TileK>{}, Int<Stages>{})));
  // One stage, (TileMN, TileK). Stage s is stage 0 moved by s * kStageElems: the swizzle acts
  // inside one atom, and every stage starts on an atom boundary. The kernel partitions stage 0
  // once and moves the pointer, so no swizzle is recomputed for a run-time stage index.
  using SmemStageLayout = decltype(tile_to_shape(SmemAtom{}, make_shape(Int<TileMN>{}, Int<TileK>{})));
  static constexpr int kStageElems = TileMN * TileK;
  static constexpr int kAtomElems = kKMajor ? 8 * TileK : 64 * 8;
  static_assert(kStageElems % kAtomElems == 0,
                "OperandSm80: a stage must be whole swizzle atoms, so that stages differ by a pointer offset");

  // ---- global -> shared: each thread moves Access contiguous elements per atom; the threads
  // are laid out contiguous-mode first, as many as the contiguous extent holds and divide the
  // threads (a 192-wide MN-major tile's 24 vectors a row: 8 threads, three vectors each).
  static constexpr int kThreadsAlong = std::gcd(kContiguous / Access, Threads);
  static constexpr int kThreadsAcross = Threads / kThreadsAlong;
  static_assert(Threads % kThreadsAlong == 0,
                "OperandSm80: the copy threads must form whole rows along the contiguous mode");
  static_assert((kKMajor ? TileMN : TileK) % kThreadsAcross == 0,
                "OperandSm80: the copy's rows (threads / threads along the contiguous mode) must "
                "divide the other extent of the tile");
  using Threads2D = std::conditional_t<
      kKMajor, Layout<Shape<Int<kThreadsAcross>, Int<kThreadsAlong>>, Stride<Int<kThreadsAlong>, Int<1>>>,
      Layout<Shape<Int<kThreadsAlong>, Int<kThreadsAcross>>, Stride<Int<1>, Int<kThreadsAlong>>>>;
  using Values2D = std::conditional_t<kKMajor, Layout<Shape<Int<1>, Int<Access>>>, Layout<Shape<Int<Access>, Int<1>>>>;
  // cp.async.cg (L2 only) copies 16 bytes alone; 8 and 4 bytes take .ca.
  using G2SOp = std::conditional_t<
      Access == 8, SM80_CP_ASYNC_CG<16>,
      std::conditional_t<Access == 1, UniversalCopy<std::uint16_t>, SM80_CP_ASYNC_CA<2 * Access>>>;
  using G2SEdgeOp = std::conditional_t<
      Access == 8, SM80_CP_ASYNC_CG_ZFILL<16>,
      std::conditional_t<Access == 1, UniversalCopyZfill<std::uint16_t>, SM80_CP_ASYNC_CA_ZFILL<2 * Access>>>;
  using G2S = decltype(make_tiled_copy(CopyAtom<G2SOp, Element>{}, Threads2D{}, Values2D{}));
  using G2SEdge = decltype(make_tiled_copy(CopyAtom<G2SEdgeOp, Element>{}, Threads2D{}, Values2D{}));

  // ---- shared -> registers
  using S2ROp = std::conditional_t<kKMajor, SM80_LDMATRIX_X4, SM80_LDMATRIX_X4_TRANS>;
};

}  // namespace tessel
