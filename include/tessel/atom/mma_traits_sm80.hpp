// MmaTraits for the sm80 mma.sync instructions (arch/sm80/mma.hpp): which lane holds which
// element of A, B and C/D, as (thread, value) -> coordinate layouts (see mma_traits.hpp).
//
// Derived from the PTX ISA tables "Matrix Fragments for mma.m16n8k16 / mma.m16n8k8" (floating
// point types). With lane = 4 * groupID + threadID_in_group:
//
//   m16n8k16 A (16x16):  row = groupID (+8 for a2,a3,a6,a7)
//                        col = 2*threadID_in_group + (i & 1) (+8 for a4..a7)
//   m16n8k16 B (16x8):   row(k) = 2*threadID_in_group + (i & 1) (+8 for b2,b3);  col(n) = groupID
//   m16n8k8  A (16x8):   row = groupID (+8 for a2,a3);  col = 2*threadID_in_group + (i & 1)
//   m16n8k8  B (8x8):    row(k) = 2*threadID_in_group + i;  col(n) = groupID
//   C/D (16x8, both):    row = groupID (+8 for c2,c3);  col = 2*threadID_in_group + (i & 1)
//
// Each term becomes one mode: the thread mode is (4,8) = (threadID_in_group, groupID), the
// value mode splits i into its bits (i & 1, (i >> 1) & 1, i >> 2). A coordinate (m, k) of an
// MxK tile is the column-major index m + M*k, so a step in a row moves 1 and a step in a
// column moves M. E.g. for A of m16n8k16 threadID_in_group steps two columns: 2 * 16 = 32.
// tests/host/mma_traits_test.cpp re-evaluates the ISA formulas against these layouts.
#pragma once

#include "tessel/arch/numeric_types.hpp"
#include "tessel/arch/sm80/mma.hpp"
#include "tessel/atom/mma_traits.hpp"
#include "tessel/layout.hpp"

namespace tessel {

namespace sm80 {
// One warp: logical thread i is lane i.
using ThrIdWarp = Layout<Int<32>, Int<1>>;  // 32:1

// A 16x16 tile (A of m16n8k16, (M,K) = (16,16)), 8 values per lane:
// ((4,8),(2,2,2)):((32,1),(16,8,128)). Lane 5 (groupID 1, threadID_in_group 1) holds
// (1,2) (1,3) (9,2) (9,3) (1,10) (1,11) (9,10) (9,11).
using Fragment16x16 = Layout<Shape<Shape<Int<4>, Int<8>>, Shape<Int<2>, Int<2>, Int<2>>>,
                             Stride<Stride<Int<32>, Int<1>>, Stride<Int<16>, Int<8>, Int<128>>>>;

// A 16x8 tile (C/D of both shapes, (M,N) = (16,8); A of m16n8k8, (M,K) = (16,8)), 4 values per
// lane: ((4,8),(2,2)):((32,1),(16,8)). Lane 5 holds (1,2) (1,3) (9,2) (9,3).
using Fragment16x8 = Layout<Shape<Shape<Int<4>, Int<8>>, Shape<Int<2>, Int<2>>>,
                            Stride<Stride<Int<32>, Int<1>>, Stride<Int<16>, Int<8>>>>;

// B of m16n8k16 over (N,K) = (8,16), 4 values per lane: ((4,8),(2,2)):((16,1),(8,64)).
// Lane 5 holds (n,k) = (1,2) (1,3) (1,10) (1,11).
using FragmentB8x16 = Layout<Shape<Shape<Int<4>, Int<8>>, Shape<Int<2>, Int<2>>>,
                             Stride<Stride<Int<16>, Int<1>>, Stride<Int<8>, Int<64>>>>;

// B of m16n8k8 over (N,K) = (8,8), 2 values per lane: ((4,8),2):((16,1),8).
// Lane 5 holds (n,k) = (1,2) (1,3).
using FragmentB8x8 =
    Layout<Shape<Shape<Int<4>, Int<8>>, Int<2>>, Stride<Stride<Int<16>, Int<1>>, Int<8>>>;

// The fragments of an m16n8k16 instruction, for accumulator type Acc (D and C) and input type
// In (A and B).
template <class Acc, class In>
struct Traits16x8x16 {
  using ValTypeD = Acc;
  using ValTypeA = In;
  using ValTypeB = In;
  using ValTypeC = Acc;
  using ShapeMNK = Shape<Int<16>, Int<8>, Int<16>>;
  using ThrID = ThrIdWarp;        // 32:1
  using ALayout = Fragment16x16;  // ((4,8),(2,2,2)):((32,1),(16,8,128)) over (M,K)
  using BLayout = FragmentB8x16;  // ((4,8),(2,2)):((16,1),(8,64)) over (N,K)
  using CLayout = Fragment16x8;   // ((4,8),(2,2)):((32,1),(16,8)) over (M,N)
};

// m16n8k8: A is 16x8 and has C's fragment shape.
template <class Acc, class In>
struct Traits16x8x8 {
  using ValTypeD = Acc;
  using ValTypeA = In;
  using ValTypeB = In;
  using ValTypeC = Acc;
  using ShapeMNK = Shape<Int<16>, Int<8>, Int<8>>;
  using ThrID = ThrIdWarp;
  using ALayout = Fragment16x8;  // ((4,8),(2,2)):((32,1),(16,8)) over (M,K)
  using BLayout = FragmentB8x8;  // ((4,8),2):((16,1),8) over (N,K)
  using CLayout = Fragment16x8;  // ((4,8),(2,2)):((32,1),(16,8)) over (M,N)
};
}  // namespace sm80

// mma.m16n8k16 f32 += f16 * f16. Example: the element (m, k) of A that lane t holds as value
// v is ALayout{}(t, v) == m + 16 * k; ALayout{}(5, 4) == 1 + 16 * 10.
template <>
struct MmaTraits<SM80_16x8x16_F32F16F16F32_TN> : sm80::Traits16x8x16<float, Half> {};

// mma.m16n8k16 f32 += bf16 * bf16: the same fragments as f16.
template <>
struct MmaTraits<SM80_16x8x16_F32BF16BF16F32_TN> : sm80::Traits16x8x16<float, BFloat16> {};

// mma.m16n8k16 f16 += f16 * f16: C/D values c0..c3 packed two per register, same positions
// as the f32 accumulator.
template <>
struct MmaTraits<SM80_16x8x16_F16F16F16F16_TN> : sm80::Traits16x8x16<Half, Half> {};

// mma.m16n8k8 f32 += f16 * f16. Example: ALayout{}(5, 2) == 9 + 16 * 2 (value 2 = a2: row
// groupID + 8, column 2).
template <>
struct MmaTraits<SM80_16x8x8_F32F16F16F32_TN> : sm80::Traits16x8x8<float, Half> {};

// mma.m16n8k8 f32 += bf16 * bf16: the same fragments as f16.
template <>
struct MmaTraits<SM80_16x8x8_F32BF16BF16F32_TN> : sm80::Traits16x8x8<float, BFloat16> {};

}  // namespace tessel
