// TiledMMA: one MMA instruction (its MmaTraits) repeated over a layout of atoms in M, N, K
// (AtomLayoutMNK, e.g. (2,2,1): four warps in a 2x2 grid), optionally over a larger or
// permuted tile (PermutationMNK). It says which thread owns which element of A, B and C:
//   TiledMMA<SM80_16x8x16_F32F16F16F32_TN, Layout<Shape<_2,_2,_1>>> mma;   // 128 threads
//   auto thr = mma.get_slice(threadIdx.x);
//   auto tCgC = thr.partition_C(gC);             // (MMA_V, MMA_M, MMA_N) of gC (BLK_M,BLK_N)
//   auto tCrA = thr.partition_fragment_A(sA);    // (MMA_V, MMA_M, MMA_K) registers
// The thread layout is (ThrV, ThrM, ThrN, ThrK) -> thread index; A is replicated over ThrN,
// B over ThrM (seed 002, "TiledMMA").
#pragma once

#include "mma_traits.hpp"
#include "tessel/tensor.hpp"

namespace tessel {

template <class Op, class AtomLayoutMNK = Layout<Shape<Int<1>, Int<1>, Int<1>>>,
          class PermutationMNK = Tile<Underscore, Underscore, Underscore>>
struct TiledMMA {
  using Traits = MmaTraits<Op>;
  using AtomShape = typename Traits::ShapeMNK;
  static_assert(rank_t<decltype(AtomLayoutMNK{}.shape())>::value == 3,
                "TiledMMA: the atom layout must have three modes (M, N, K)");
  static_assert(tuple_size_v<PermutationMNK> == 3,
                "TiledMMA: the permutation must have three modes (M, N, K); use _ to keep one");

  // (ThrV, ThrM, ThrN, ThrK) -> thread index.
  TESSEL_HOST_DEVICE static constexpr auto thr_layout_vmnk() {
    return tiled_product(typename Traits::ThrID{}, AtomLayoutMNK{});
  }
  static constexpr int kThreads = decltype(tessel::size(thr_layout_vmnk()))::value;

  // The M, N or K extent one pass of the whole tiled MMA covers.
  template <int I>
  TESSEL_HOST_DEVICE static constexpr auto tile_size() {
    using P = std::remove_cvref_t<decltype(get<I>(PermutationMNK{}))>;
    if constexpr (is_underscore<P>::value) {
      return product(get<I>(AtomShape{})) * product(get<I>(AtomLayoutMNK{}.shape()));
    } else {
      return tessel::size(P{});
    }
  }

  // (M,N) layout -> ((ThrV,(ThrM,ThrN)),(FrgV,(RestM,RestN))).
  template <class L>
  TESSEL_HOST_DEVICE static constexpr auto thrfrg_C(L const& c) {
    return thrfrg<0, 1>(c, typename Traits::CLayout{});
  }
  // (M,K) layout -> ((ThrV,(ThrM,ThrK)),(FrgV,(RestM,RestK))).
  template <class L>
  TESSEL_HOST_DEVICE static constexpr auto thrfrg_A(L const& a) {
    return thrfrg<0, 2>(a, typename Traits::ALayout{});
  }
  // (N,K) layout -> ((ThrV,(ThrN,ThrK)),(FrgV,(RestN,RestK))).
  template <class L>
  TESSEL_HOST_DEVICE static constexpr auto thrfrg_B(L const& b) {
    return thrfrg<1, 2>(b, typename Traits::BLayout{});
  }

  // (thread index, value) -> column-major index into the (TileM,TileN) tile; the same for A
  // over (TileM,TileK) and B over (TileN,TileK). Used to build copies that feed the MMA.
  TESSEL_HOST_DEVICE static constexpr auto layout_C_TV() {
    return layout_TV<0, 1>(thrfrg_C(make_layout(make_shape(tile_size<0>(), tile_size<1>()))));
  }
  TESSEL_HOST_DEVICE static constexpr auto layout_A_TV() {
    return layout_TV<0, 2>(thrfrg_A(make_layout(make_shape(tile_size<0>(), tile_size<2>()))));
  }
  TESSEL_HOST_DEVICE static constexpr auto layout_B_TV() {
    return layout_TV<1, 2>(thrfrg_B(make_layout(make_shape(tile_size<1>(), tile_size<2>()))));
  }

  struct ThrMMA;
  TESSEL_HOST_DEVICE static constexpr ThrMMA get_slice(int thread_index);

 private:
  // Tiles operand layout x (modes X0, X1 of M/N/K) by the permutation, the atom and the
  // threads.
  template <int X0, int X1, class L, class AtomTV>
  TESSEL_HOST_DEVICE static constexpr auto thrfrg(L const& x, AtomTV const& atom_tv) {
    auto permuted = logical_divide(x, make_tile(get<X0>(PermutationMNK{}), get<X1>(PermutationMNK{})));
    auto atom_tile = make_tile(make_layout(product(get<X0>(AtomShape{}))),
                               make_layout(product(get<X1>(AtomShape{}))));
    auto atoms = zipped_divide(permuted, atom_tile);               // ((AtomX0,AtomX1),(Rest0,Rest1))
    auto tv = composition(atoms, make_tile(atom_tv, _));           // ((ThrV,FrgV),(Rest0,Rest1))
    auto thr_tile = make_tile(_, make_tile(make_layout(product(get<1 + X0>(thr_layout_vmnk().shape()))),
                                           make_layout(product(get<1 + X1>(thr_layout_vmnk().shape())))));
    return zipped_divide(tv, thr_tile);  // ((ThrV,(Thr0,Thr1)),(FrgV,(Rest0,Rest1)))
  }

  // VMNK index -> the operand's thread-mode index (v, (x0, x1)), colexicographic; the mode
  // the operand does not have (and ThrK for C) gets stride 0: its threads share the data.
  template <int X0, int X1>
  TESSEL_HOST_DEVICE static constexpr auto operand_thread_index() {
    auto s = product_each(thr_layout_vmnk().shape());  // (V, M, N, K)
    auto v = get<0>(s);
    auto x0 = get<1 + X0>(s);
    auto stride_of = [&](auto i) {
      constexpr int I = decltype(i)::value;
      if constexpr (I == 0) {
        return C<1>{};
      } else if constexpr (I == 1 + X0) {
        return v;
      } else if constexpr (I == 1 + X1) {
        return v * x0;
      } else {
        return C<0>{};
      }
    };
    return make_layout(s, make_stride(stride_of(C<0>{}), stride_of(C<1>{}), stride_of(C<2>{}),
                                      stride_of(C<3>{})));
  }

  template <int X0, int X1, class L>
  TESSEL_HOST_DEVICE static constexpr auto layout_TV(L const& thrfrg_layout) {
    // thread index -> thread-mode index of the operand
    auto thread_to_mode = composition(operand_thread_index<X0, X1>(), right_inverse(thr_layout_vmnk()));
    return composition(thrfrg_layout, make_tile(thread_to_mode, _));  // (thread, (FrgV, rest))
  }

 public:
  // One thread's view: its elements of A, B and C tiles, and register fragments for them.
  struct ThrMMA {
    int thread_index;

    // (v, m, n, k) of this thread in the tiled MMA.
    TESSEL_HOST_DEVICE constexpr auto vmnk() const {
      auto l = thr_layout_vmnk();
      return detail::coordinate_of(l.shape(), l.stride(), thread_index);
    }

    // gC (M,N,...) -> (MMA_V, MMA_M, MMA_N, ...)
    template <class T>
    TESSEL_HOST_DEVICE constexpr auto partition_C(T&& c) const {
      return partition<0, 1>(c, thrfrg_C(c.layout()));
    }
    // sA (M,K,...) -> (MMA_V, MMA_M, MMA_K, ...)
    template <class T>
    TESSEL_HOST_DEVICE constexpr auto partition_A(T&& a) const {
      return partition<0, 2>(a, thrfrg_A(a.layout()));
    }
    // sB (N,K,...) -> (MMA_V, MMA_N, MMA_K, ...)
    template <class T>
    TESSEL_HOST_DEVICE constexpr auto partition_B(T&& b) const {
      return partition<1, 2>(b, thrfrg_B(b.layout()));
    }

    // Register tensors shaped like this thread's partition (static tile shapes required).
    template <class T>
    TESSEL_HOST_DEVICE constexpr auto partition_fragment_C(T&& c) const {
      return make_tensor<typename Traits::ValTypeC>(make_layout(partition_C(c).shape()));
    }
    template <class T>
    TESSEL_HOST_DEVICE constexpr auto partition_fragment_A(T&& a) const {
      return make_tensor<typename Traits::ValTypeA>(make_layout(partition_A(a).shape()));
    }
    template <class T>
    TESSEL_HOST_DEVICE constexpr auto partition_fragment_B(T&& b) const {
      return make_tensor<typename Traits::ValTypeB>(make_layout(partition_B(b).shape()));
    }

   private:
    template <int X0, int X1, class T, class L>
    TESSEL_HOST_DEVICE constexpr auto partition(T&& t, L const& thrfrg_layout) const {
      auto c = vmnk();
      auto thr = make_tensor(t.data(), thrfrg_layout);
      using RestShape = std::remove_cvref_t<decltype(get<1, 1>(thrfrg_layout.shape()))>;
      constexpr std::size_t R = rank_t<RestShape>::value;
      auto thr_coord = make_coord(get<0>(c), make_coord(get<1 + X0>(c), get<1 + X1>(c)));
      return thr(make_coord(thr_coord, make_coord(_, repeat<R>(_))));  // (V, Rest0, Rest1, ...)
    }
  };
};

template <class Op, class AtomLayoutMNK, class PermutationMNK>
TESSEL_HOST_DEVICE constexpr auto TiledMMA<Op, AtomLayoutMNK, PermutationMNK>::get_slice(int thread_index)
    -> ThrMMA {
  return ThrMMA{thread_index};
}

}  // namespace tessel
