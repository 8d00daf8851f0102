// Executing copies: copy(atom_or_tiled_copy, src, dst) runs the atom's instruction over a
// thread's partitions (V, Rest...), one atom's worth of values at a time. The atom's values
// must be contiguous on both sides (e.g. 8 halves of one 16-byte row): they are handed to
// the instruction as its registers (SRegisters / DRegisters).
#pragma once

#include <type_traits>

#include "copy_atom.hpp"
#include "tiled_copy.hpp"

namespace tessel {

namespace detail {
// Views a tensor's (V, Rest...) as (AtomV, Rest): the atom's values first, everything else
// (the rest of V and all other modes) flattened into one mode.
template <int AtomV, class T>
TESSEL_HOST_DEVICE constexpr auto group_atom_values(T&& t) {
  auto grouped = transform_inner(t.layout(), [](auto const& l) {
    auto v = zipped_divide(get<0>(make_layout(wrap(l.shape()), wrap(l.stride()))), make_layout(C<AtomV>{}));
    constexpr std::size_t R = rank_t<std::remove_cvref_t<decltype(l.shape())>>::value;
    auto rest = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_layout(get<1>(v), get<1 + Is>(l)...);
    }(std::make_index_sequence<R - 1>{});
    return make_layout(get<0>(v), rest);
  });
  return make_tensor(t.data(), grouped);  // (AtomV, Rest)
}

template <class Op, class S, class D>
TESSEL_HOST_DEVICE void call_copy_op(S const& src, D& dst) {
  using SReg = std::remove_extent_t<typename Op::SRegisters>;
  using DRegs = typename Op::DRegisters;
  using DReg = std::remove_extent_t<DRegs>;
  auto const& s = *reinterpret_cast<SReg const*>(&src);
  if constexpr (requires(DRegs& d) { Op::copy(s, d); }) {
    Op::copy(s, *reinterpret_cast<DRegs*>(&dst));  // warp-collective: registers as an array
  } else {
    Op::copy(s, *reinterpret_cast<DReg*>(&dst));
  }
}

template <class Op, class S, class D>
TESSEL_HOST_DEVICE void call_copy_op_if(S const* src, D& dst, bool pred) {
  using SReg = std::remove_extent_t<typename Op::SRegisters>;
  using DReg = std::remove_extent_t<typename Op::DRegisters>;
  Op::copy(*reinterpret_cast<SReg const*>(src), *reinterpret_cast<DReg*>(&dst), pred);
}
}  // namespace detail

// A share of a thread's atoms: those whose index i (in the order of (rest of CPY_V, CPY_M,
// CPY_N, ...)) has i % Parts == Part. A K loop issues one share of a tile's copies per
// k-slice (kernel_sm80.hpp), instead of all of them at once; AllAtoms is the whole.
template <int Part, int Parts>
struct AtomShare {
  static_assert(0 <= Part && Part < Parts, "AtomShare: Part must lie in [0, Parts)");
  TESSEL_HOST_DEVICE static constexpr bool has(int i) { return i % Parts == Part; }
};
using AllAtoms = AtomShare<0, 1>;

// One thread's copy: src and dst are its partitions (CPY_V, CPY_M, CPY_N, ...).
template <class Op, class T, class STensor, class DTensor, class Share = AllAtoms>
TESSEL_HOST_DEVICE void copy(CopyAtom<Op, T> const&, STensor const& src, DTensor&& dst, Share = {}) {
  constexpr int kAtomV = CopyAtom<Op, T>::kNumValues;
  auto s = detail::group_atom_values<kAtomV>(src);  // (AtomV, Rest)
  auto d = detail::group_atom_values<kAtomV>(dst);
  for_each_index(size<1>(s), [&](auto i) {
    if (Share::has(int(i))) detail::call_copy_op<Op>(s(make_coord(C<0>{}, i)), d(make_coord(C<0>{}, i)));
  });
}

template <class Atom, class LayoutTV, class Tiler, class STensor, class DTensor, class Share = AllAtoms>
TESSEL_HOST_DEVICE void copy(TiledCopy<Atom, LayoutTV, Tiler> const&, STensor const& src, DTensor&& dst,
                             Share share = {}) {
  copy(Atom{}, src, dst, share);
}

// The same with a predicate per atom, for ops that take one (the _ZFILL forms of cp.async:
// false writes zeros and reads nothing). pred(i) decides the i-th atom of the partition, in
// the order of (rest of CPY_V, CPY_M, CPY_N, ...). A predicated-off atom is handed `valid`
// as its source address instead of its own, which may lie outside the allocation.
template <class Op, class T, class Pred, class STensor, class DTensor, class Share = AllAtoms>
TESSEL_HOST_DEVICE void copy_if(CopyAtom<Op, T> const&, Pred&& pred, STensor const& src, DTensor&& dst,
                                T const* valid, Share = {}) {
  constexpr int kAtomV = CopyAtom<Op, T>::kNumValues;
  auto s = detail::group_atom_values<kAtomV>(src);  // (AtomV, Rest)
  auto d = detail::group_atom_values<kAtomV>(dst);
  for_each_index(size<1>(s), [&](auto i) {
    if (!Share::has(int(i))) return;
    bool on = pred(int(i));
    detail::call_copy_op_if<Op>(on ? &s(make_coord(C<0>{}, i)) : valid, d(make_coord(C<0>{}, i)), on);
  });
}
template <class Atom, class LayoutTV, class Tiler, class Pred, class STensor, class DTensor, class T,
          class Share = AllAtoms>
TESSEL_HOST_DEVICE void copy_if(TiledCopy<Atom, LayoutTV, Tiler> const&, Pred&& pred, STensor const& src,
                                DTensor&& dst, T const* valid, Share share = {}) {
  copy_if(Atom{}, pred, src, dst, valid, share);
}

// The coordinates of each atom's first element, read once from an identity tensor partitioned
// like the data: AtomOrigins<8, N> o(thr.partition_S(identity_tile)); o.row[i], o.col[i].
template <int AtomV, int Atoms>
struct AtomOrigins {
  int row[Atoms];
  int col[Atoms];
  template <class Coordinates>
  TESSEL_HOST_DEVICE explicit AtomOrigins(Coordinates const& coordinates) {
    auto g = detail::group_atom_values<AtomV>(coordinates);
    for (int i = 0; i < Atoms; ++i) {
      auto c = g(make_coord(0, i));
      row[i] = int(get<0>(c));
      col[i] = int(get<1>(c));
    }
  }
};

}  // namespace tessel
