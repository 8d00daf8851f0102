// CopyAtom<Op, T>: a copy instruction's traits (in bits) seen in elements of type T.
// CopyAtom<SM80_LDMATRIX_X4, Half>: 32 threads, 8 halves each; its (thread, value) layouts map
// to element coordinates of the four 8x8 matrices.
#pragma once

#include "copy_traits.hpp"
#include "tessel/layout.hpp"

namespace tessel {

template <class Op, class T>
struct CopyAtom {
  using Traits = CopyTraits<Op>;
  using ValType = T;
  static constexpr int kValBits = int(sizeof(T) * 8);

  using ThrID = typename Traits::ThrID;
  // (thread, value) -> element coordinate; the bit layouts divided by the element width.
  using ValLayoutSrc = decltype(upcast<kValBits>(typename Traits::SrcLayout{}));
  using ValLayoutDst = decltype(upcast<kValBits>(typename Traits::DstLayout{}));
  using ValLayoutRef = decltype(upcast<kValBits>(typename Traits::RefLayout{}));

  static constexpr int kNumThreads = decltype(size(ThrID{}))::value;
  static constexpr int kNumValues = decltype(size(get<1>(ValLayoutRef{})))::value;
  static_assert(decltype(size(get<0>(ValLayoutRef{})))::value == kNumThreads,
                "CopyAtom: the reference layout's thread mode must match ThrID");
  static_assert(decltype(size(ValLayoutRef{}))::value * kValBits ==
                    decltype(size(typename Traits::RefLayout{}))::value,
                "CopyAtom: the element type does not divide the bits the instruction moves "
                "(check sizeof(T) against the instruction's width)");
};

}  // namespace tessel
