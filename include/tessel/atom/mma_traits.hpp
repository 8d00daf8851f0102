// MmaTraits<Op>: what a warp-level MMA instruction does, as layouts. Specialised per
// instruction (mma_traits_sm80.hpp); an unspecialised op does not compile.
//
// A specialisation provides
//   ValTypeD, ValTypeA, ValTypeB, ValTypeC   element types of the four operands
//   ShapeMNK   Shape<Int<M>, Int<N>, Int<K>>  the tile one instruction computes
//   ThrID      logical thread id -> lane (32:1 for one warp)
//   ALayout    (thread, value) -> column-major index into the (M,K) tile of A
//   BLayout    (thread, value) -> column-major index into the (N,K) tile of B
//   CLayout    (thread, value) -> column-major index into the (M,N) tile of C and D
// where "value" numbers the elements a thread holds in register order (for 16-bit types two
// per 32-bit register, low half first). The conventions are CuTe's (seed 004, "MMA_Traits").
#pragma once

#include "tessel/layout.hpp"

namespace tessel {

template <class Op>
struct MmaTraits {
  static_assert(sizeof(Op) == 0,
                "MmaTraits<Op>: no traits for this MMA op; include the header that "
                "specialises it (e.g. tessel/atom/mma_traits_sm80.hpp)");
};

}  // namespace tessel
