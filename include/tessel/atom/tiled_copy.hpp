// TiledCopy: a copy atom repeated over threads and values so that a block of threads moves a
// whole (M,N) tile. LayoutTV maps (thread, value) to the column-major index of an element in
// the TilerMN tile.
//   // 128 threads, row-major 32x4, each moving 8 contiguous halves with cp.async (16 bytes):
//   auto g2s = make_tiled_copy(CopyAtom<SM80_CP_ASYNC_CG<16>, Half>{},
//                              Layout<Shape<_32,_4>, Stride<_4,_1>>{}, Layout<Shape<_1,_8>>{});
//   auto thr = g2s.get_slice(threadIdx.x);
//   auto tAgA = thr.partition_S(gA);  // (CPY_V, CPY_M, CPY_K, k)
//   auto tAsA = thr.partition_D(sA);  // (CPY_V, CPY_M, CPY_K, PIPE)
// Copies that feed an MMA come from the MMA's own TV layouts (make_tiled_copy_A/B/C), and
// retile_D reshapes the MMA's register fragment into the copy's (CPY_V, ...) order.
#pragma once

#include "copy_atom.hpp"
#include "tessel/tensor.hpp"

namespace tessel {

namespace detail {
// ((a,b),(c,d)) -> ((a,c),(b,d)).
template <class L>
TESSEL_HOST_DEVICE constexpr auto transpose_modes(L const& l) {
  return make_layout(make_layout(get<0, 0>(l), get<1, 0>(l)), make_layout(get<0, 1>(l), get<1, 1>(l)));
}
}  // namespace detail

template <class Atom, class LayoutTV, class TilerMN>
struct TiledCopy {
  static constexpr int kThreads = decltype(size(get<0>(LayoutTV{})))::value;
  static constexpr int kValues = decltype(size(get<1>(LayoutTV{})))::value;
  static_assert(kThreads % Atom::kNumThreads == 0,
                "TiledCopy: the thread count is not a multiple of the atom's threads");
  static_assert(kValues % Atom::kNumValues == 0,
                "TiledCopy: each thread's values are not a whole number of atom copies; give "
                "each thread a multiple of the atom's values (e.g. 8 halves for 16-byte "
                "cp.async or ldmatrix.x4)");

  TESSEL_HOST_DEVICE static constexpr auto layout_tv() { return LayoutTV{}; }
  TESSEL_HOST_DEVICE static constexpr auto tiler() { return TilerMN{}; }

  // Source side: (M,N,...) layout -> (thread, value, (RestM,RestN,...)).
  template <class L>
  TESSEL_HOST_DEVICE static constexpr auto tidfrg_S(L const& s) {
    return tile2thrfrg(zipped_divide(s, TilerMN{}),
                       composition(right_inverse(typename Atom::ValLayoutRef{}), typename Atom::ValLayoutSrc{}));
  }
  // Destination side.
  template <class L>
  TESSEL_HOST_DEVICE static constexpr auto tidfrg_D(L const& d) {
    return tile2thrfrg(zipped_divide(d, TilerMN{}),
                       composition(right_inverse(typename Atom::ValLayoutRef{}), typename Atom::ValLayoutDst{}));
  }

  // A thread's register fragment (V, M, N, ...) as partitioned by another tiling of the same
  // tile (e.g. the TiledMMA this copy feeds) -> ((atom values, rest values), M', N', ...) in
  // this copy's order.
  template <class L>
  TESSEL_HOST_DEVICE static constexpr auto retile(L const& frg) {
    constexpr std::size_t R = rank_t<std::remove_cvref_t<decltype(frg.shape())>>::value;
    auto v = size(get<0>(frg));
    // (m,n) of the tile -> value index of a thread, in units of one fragment's V values
    auto frg_layout_mn = upcast<kThreads * decltype(v)::value>(
        composition(right_inverse(LayoutTV{}), make_layout(product_each(TilerMN{}))));
    // (atom values, rest values) -> (v, m, n)
    auto frg_layout_v = zipped_divide(logical_product(make_layout(v), right_inverse(frg_layout_mn)),
                                      make_layout(C<Atom::kNumValues>{}));
    auto t = zipped_divide(frg, prepend(product_each(frg_layout_mn.shape()), v));  // ((V,M,N),(1,RM,RN,...))
    auto vt = composition(t, make_tile(frg_layout_v, _));  // ((atom_vals,rest_vals),(1,RM,RN,...))
    return vt(make_coord(_, prepend(repeat<R - 1>(_), C<0>{})));
  }

  struct ThrCopy {
    int thread_index;

    // This thread's elements of the source tile: (CPY_V, CPY_M, CPY_N, ...).
    template <class T>
    TESSEL_HOST_DEVICE constexpr auto partition_S(T&& s) const {
      return slice_thread(s, tidfrg_S(s.layout()));
    }
    template <class T>
    TESSEL_HOST_DEVICE constexpr auto partition_D(T&& d) const {
      return slice_thread(d, tidfrg_D(d.layout()));
    }
    // A fragment partitioned by some other tiling, seen in this copy's (CPY_V, ...) order.
    template <class T>
    TESSEL_HOST_DEVICE constexpr auto retile_S(T&& frg) const {
      return make_tensor(frg.data(), retile(frg.layout()));
    }
    template <class T>
    TESSEL_HOST_DEVICE constexpr auto retile_D(T&& frg) const {
      return make_tensor(frg.data(), retile(frg.layout()));
    }

   private:
    template <class T, class L>
    TESSEL_HOST_DEVICE constexpr auto slice_thread(T&& t, L const& tv) const {
      auto thr = make_tensor(t.data(), tv);  // (thread, value, (Rest...))
      using RestShape = std::remove_cvref_t<decltype(get<2>(tv.shape()))>;
      constexpr std::size_t R = rank_t<RestShape>::value;
      if constexpr (R == 1) {
        return thr(make_coord(thread_index, _, _));
      } else {
        return thr(make_coord(thread_index, _, repeat<R>(_)));
      }
    }
  };

  TESSEL_HOST_DEVICE static constexpr ThrCopy get_slice(int thread_index) { return ThrCopy{thread_index}; }

 private:
  // ((TileM,TileN),(RestM,RestN,...)) -> (thread, value, (RestM,RestN,...)), where each atom
  // moves its own (thread, value) block as ref2trg says.
  template <class Tiled, class Ref2Trg>
  TESSEL_HOST_DEVICE static constexpr auto tile2thrfrg(Tiled const& tiled, Ref2Trg const& ref2trg) {
    // ((atom thread, atom value), (rest thread, rest value)) -> tile index
    auto atom_tv = zipped_divide(LayoutTV{}, make_shape(C<Atom::kNumThreads>{}, C<Atom::kNumValues>{}));
    auto trg_tv = composition(atom_tv, make_tile(ref2trg, _));
    // ((thread), (value)) grouped as ((atom thread, rest thread), (atom value, rest value))
    auto thrval2mn = coalesce(detail::transpose_modes(trg_tv), make_shape(C<1>{}, make_shape(C<1>{}, C<1>{})));
    auto tv = composition(tiled, make_tile(thrval2mn, _));  // ((thread, value), rest)
    return transform_inner(tv, [](auto const& l) { return make_layout(get<0, 0>(l), get<0, 1>(l), get<1>(l)); });
  }
};

// Threads laid out by `threads` ((m,n) -> thread id), each moving the block `values`
// ((m,n) -> value id) per step: the tile is their raked product.
template <class Atom, class TS, class TD, class VS, class VD>
TESSEL_HOST_DEVICE constexpr auto make_tiled_copy(Atom const&, Layout<TS, TD> const& threads,
                                                  Layout<VS, VD> const& values) {
  auto layout_mn = raked_product(threads, values);  // (M,N) -> thread + kThreads * value
  auto layout_tv = composition(right_inverse(layout_mn), make_layout(make_shape(size(threads), size(values))));
  using Tiler = decltype(product_each(layout_mn.shape()));
  return TiledCopy<Atom, decltype(layout_tv), Tiler>{};
}

// Copies that load exactly what each thread of a TiledMMA needs.
template <class Atom, class Mma>
TESSEL_HOST_DEVICE constexpr auto make_tiled_copy_A(Atom const&, Mma const&) {
  using Tiler = decltype(make_shape(Mma::template tile_size<0>(), Mma::template tile_size<2>()));
  return TiledCopy<Atom, decltype(Mma::layout_A_TV()), Tiler>{};
}
template <class Atom, class Mma>
TESSEL_HOST_DEVICE constexpr auto make_tiled_copy_B(Atom const&, Mma const&) {
  using Tiler = decltype(make_shape(Mma::template tile_size<1>(), Mma::template tile_size<2>()));
  return TiledCopy<Atom, decltype(Mma::layout_B_TV()), Tiler>{};
}
template <class Atom, class Mma>
TESSEL_HOST_DEVICE constexpr auto make_tiled_copy_C(Atom const&, Mma const&) {
  using Tiler = decltype(make_shape(Mma::template tile_size<0>(), Mma::template tile_size<1>()));
  return TiledCopy<Atom, decltype(Mma::layout_C_TV()), Tiler>{};
}

}  // namespace tessel
