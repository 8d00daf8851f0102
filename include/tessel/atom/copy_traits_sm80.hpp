// CopyTraits for the sm80 copy instructions (arch/sm80/cp_async.hpp, ldmatrix.hpp), as
// (thread, value bit) -> bit layouts (see copy_traits.hpp).
//
// cp.async: one thread moves Bits = 8 * Bytes contiguous bits; source and destination are the
// same run of bits: (1,Bits):(0,1).
//
// ldmatrix (PTX ISA, "Warp-level matrix load instruction: ldmatrix"): the data is num 8x8
// matrices of 16-bit elements, each row 128 bits; bit 1024*j + 128*r + 16*c + b is bit b of
// element (r, c) of matrix j. Lane t addresses row t%8 of matrix t/8 for t < 8*num; register j
// of lane l receives matrix j:
//   no .trans:  elements (l/4, 2*(l%4)) low half and (l/4, 2*(l%4)+1) high half: the 32 bits
//               at 32*l, so lane l's register j is bits [1024*j + 32*l, +32).
//   .trans:     elements (2*(l%4), l/4) low half and (2*(l%4)+1, l/4) high half.
// tests/host/copy_traits_test.cpp checks every (lane, bit) against these sentences.
#pragma once

#include "tessel/arch/sm80/cp_async.hpp"
#include "tessel/arch/sm80/ldmatrix.hpp"
#include "tessel/atom/copy_traits.hpp"
#include "tessel/layout.hpp"

namespace tessel {

namespace sm80 {
// One thread moving Bits contiguous bits: (1,Bits):(0,1). For 16 bytes: (1,128):(0,1).
template <int Bits>
using CopyBits = Layout<Shape<Int<1>, Int<Bits>>, Stride<Int<0>, Int<1>>>;
using ThrIdOne = Layout<Int<1>, Int<0>>;    // 1:0, one thread
using ThrIdWarp = Layout<Int<32>, Int<1>>;  // 32:1, one warp
}  // namespace sm80

// ---- cp.async: one thread, (1,Bits):(0,1) on both sides ---------------------------------

namespace sm80 {
template <class Op>
inline constexpr bool is_cp_async = false;
template <int Bytes>
inline constexpr bool is_cp_async<SM80_CP_ASYNC_CA<Bytes>> = true;
template <int Bytes>
inline constexpr bool is_cp_async<SM80_CP_ASYNC_CG<Bytes>> = true;
template <int Bytes>
inline constexpr bool is_cp_async<SM80_CP_ASYNC_CA_ZFILL<Bytes>> = true;
template <int Bytes>
inline constexpr bool is_cp_async<SM80_CP_ASYNC_CG_ZFILL<Bytes>> = true;
}  // namespace sm80

// Every cp.async form (.ca / .cg, with or without zero-fill; the predicate changes the values
// written, not their positions): one thread moves Op::kBytes bytes, the same bits on both
// sides. Example: CopyTraits<SM80_CP_ASYNC_CA<16>>::SrcLayout is (1,128):(0,1): thread 0
// moves bits 0..127 and they land as bits 0..127 (DstLayout).
template <class Op>
requires sm80::is_cp_async<Op>
struct CopyTraits<Op> {
  using ThrID = sm80::ThrIdOne;                      // 1:0
  using SrcLayout = sm80::CopyBits<8 * Op::kBytes>;  // (1,Bits):(0,1)
  using DstLayout = sm80::CopyBits<8 * Op::kBytes>;  // (1,Bits):(0,1)
  using RefLayout = SrcLayout;
};

// ---- ldmatrix: one warp ------------------------------------------------------------------
// SrcLayout: lane t -> the 128-bit row it addresses, 128 * t for t < 8 * num; the lanes past
// that repeat rows 0..8*num-1 (stride 0 in the outer thread mode), their addresses being
// ignored by the instruction. DstLayout: (lane, 32*j + b) -> the bit that lands in bit b of
// the lane's register j. RefLayout = DstLayout: partitioning follows the registers, as the
// mma layouts do.

// ldmatrix.x1: Src ((8,4),128):((128,0),1), Dst (32,32):(32,1): lane l's register is bits
// [32*l, 32*l + 32). Example: DstLayout{}(5, 0) == 160 = row 1, column 2.
template <>
struct CopyTraits<SM80_LDMATRIX_X1> {
  using ThrID = sm80::ThrIdWarp;
  using SrcLayout =
      Layout<Shape<Shape<Int<8>, Int<4>>, Int<128>>, Stride<Stride<Int<128>, Int<0>>, Int<1>>>;
  using DstLayout = Layout<Shape<Int<32>, Int<32>>, Stride<Int<32>, Int<1>>>;
  using RefLayout = DstLayout;
};

// ldmatrix.x2: Src ((16,2),128):((128,0),1), Dst (32,(32,2)):(32,(1,1024)). Example:
// DstLayout{}(5, 32) == 1184: register 1 of lane 5 starts at matrix 1, row 1, column 2.
template <>
struct CopyTraits<SM80_LDMATRIX_X2> {
  using ThrID = sm80::ThrIdWarp;
  using SrcLayout =
      Layout<Shape<Shape<Int<16>, Int<2>>, Int<128>>, Stride<Stride<Int<128>, Int<0>>, Int<1>>>;
  using DstLayout =
      Layout<Shape<Int<32>, Shape<Int<32>, Int<2>>>, Stride<Int<32>, Stride<Int<1>, Int<1024>>>>;
  using RefLayout = DstLayout;
};

// ldmatrix.x4: Src (32,128):(128,1), Dst (32,(32,4)):(32,(1,1024)). Example:
// SrcLayout{}(9, 0) == 1152: lane 9 addresses row 1 of matrix 1.
template <>
struct CopyTraits<SM80_LDMATRIX_X4> {
  using ThrID = sm80::ThrIdWarp;
  using SrcLayout = Layout<Shape<Int<32>, Int<128>>, Stride<Int<128>, Int<1>>>;
  using DstLayout =
      Layout<Shape<Int<32>, Shape<Int<32>, Int<4>>>, Stride<Int<32>, Stride<Int<1>, Int<1024>>>>;
  using RefLayout = DstLayout;
};

// ldmatrix.x1.trans: Src ((8,4),128):((128,0),1), Dst ((4,8),(16,2)):((256,16),(1,128)):
// lane l = (l%4, l/4), value (b, h) -> 128 * (2*(l%4) + h) + 16 * (l/4) + b. Example:
// DstLayout{}(5, 16) == 400: the high half of lane 5 is element (row 3, column 1).
template <>
struct CopyTraits<SM80_LDMATRIX_X1_TRANS> {
  using ThrID = sm80::ThrIdWarp;
  using SrcLayout =
      Layout<Shape<Shape<Int<8>, Int<4>>, Int<128>>, Stride<Stride<Int<128>, Int<0>>, Int<1>>>;
  using DstLayout = Layout<Shape<Shape<Int<4>, Int<8>>, Shape<Int<16>, Int<2>>>,
                           Stride<Stride<Int<256>, Int<16>>, Stride<Int<1>, Int<128>>>>;
  using RefLayout = DstLayout;
};

// ldmatrix.x2.trans: Src ((16,2),128):((128,0),1), Dst ((4,8),(16,2,2)):((256,16),(1,128,1024)):
// value (b, h, j) of lane l -> 1024 * j + 128 * (2*(l%4) + h) + 16 * (l/4) + b.
template <>
struct CopyTraits<SM80_LDMATRIX_X2_TRANS> {
  using ThrID = sm80::ThrIdWarp;
  using SrcLayout =
      Layout<Shape<Shape<Int<16>, Int<2>>, Int<128>>, Stride<Stride<Int<128>, Int<0>>, Int<1>>>;
  using DstLayout = Layout<Shape<Shape<Int<4>, Int<8>>, Shape<Int<16>, Int<2>, Int<2>>>,
                           Stride<Stride<Int<256>, Int<16>>, Stride<Int<1>, Int<128>, Int<1024>>>>;
  using RefLayout = DstLayout;
};

// ldmatrix.x4.trans: Src (32,128):(128,1), Dst ((4,8),(16,2,4)):((256,16),(1,128,1024)).
// Example: DstLayout{}(0, 96) == 3072: register 3 of lane 0 starts at element (0,0) of
// matrix 3.
template <>
struct CopyTraits<SM80_LDMATRIX_X4_TRANS> {
  using ThrID = sm80::ThrIdWarp;
  using SrcLayout = Layout<Shape<Int<32>, Int<128>>, Stride<Int<128>, Int<1>>>;
  using DstLayout = Layout<Shape<Shape<Int<4>, Int<8>>, Shape<Int<16>, Int<2>, Int<4>>>,
                           Stride<Stride<Int<256>, Int<16>>, Stride<Int<1>, Int<128>, Int<1024>>>>;
  using RefLayout = DstLayout;
};

}  // namespace tessel
