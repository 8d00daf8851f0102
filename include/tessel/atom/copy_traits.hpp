// CopyTraits<Op>: what a copy instruction moves, and between which threads, as layouts over
// bits. Specialised per instruction (copy_traits_sm80.hpp); an unspecialised op does not
// compile.
//
// A specialisation provides
//   ThrID      logical thread id -> thread index (1:0 for a one-thread copy, 32:1 for a warp)
//   SrcLayout  (source thread, source value bit) -> bit coordinate
//   DstLayout  (destination thread, destination value bit) -> bit coordinate
//   RefLayout  the (thread, value) -> bit layout that partitioning refers to (usually one of
//              the two above)
// The bit coordinate indexes the data the instruction moves as one contiguous block: for
// ldmatrix.x4 the four 8x8 matrices of 16-bit elements, row after row (bit 128*r + 16*c + b
// of matrix 0 is bit b of element (r, c)). Working in bits lets one traits type serve every
// element type of that width. The conventions are CuTe's (seed 004, "Copy_Traits").
#pragma once

#include "tessel/layout.hpp"

namespace tessel {

template <class Op>
struct CopyTraits {
  static_assert(sizeof(Op) == 0,
                "CopyTraits<Op>: no traits for this copy op; include the header that "
                "specialises it (e.g. tessel/atom/copy_traits_sm80.hpp)");
};

}  // namespace tessel
