// Executing MMAs: gemm(tiled_mma, D, A, B, C) issues the atom once per (m, n, k) of a thread's
// fragments A (V, M, K), B (V, N, K), C and D (V, M, N); A (V, M) and B (V, N) are one k-slice. Each atom's values are contiguous in
// the fragments (make them with partition_fragment_*), and are passed as its registers.
// n runs back and forth (serpentine) so that consecutive MMAs share an A or B operand.
#pragma once

#include <type_traits>

#include "tiled_mma.hpp"

namespace tessel {

namespace detail {
template <class Op, class D, class A, class B, class C>
TESSEL_HOST_DEVICE void call_mma_op(D& d, A const& a, B const& b, C const& c) {
  Op::fma(*reinterpret_cast<typename Op::DRegisters*>(&d), *reinterpret_cast<typename Op::ARegisters const*>(&a),
          *reinterpret_cast<typename Op::BRegisters const*>(&b), *reinterpret_cast<typename Op::CRegisters const*>(&c));
}
}  // namespace detail

namespace detail {
// A (V, M) slice as (V, M, 1), so that one k-slice and a whole K range run the same loop.
template <class T>
TESSEL_HOST_DEVICE constexpr auto with_k_mode(T const& t) {
  if constexpr (decltype(rank(t))::value == 2) {
    return make_tensor(t.data(), append(t.layout(), make_layout(C<1>{}, C<0>{})));
  } else {
    return make_tensor(t.data(), t.layout());
  }
}
}  // namespace detail

template <class Op, class AtomLayout, class Permutation, class DT, class AT, class BT, class CT>
TESSEL_HOST_DEVICE void gemm(TiledMMA<Op, AtomLayout, Permutation> const& mma, DT&& d, AT const& a_in,
                             BT const& b_in, CT const& c) {
  if constexpr (decltype(rank(a_in))::value == 2) {
    gemm(mma, d, detail::with_k_mode(a_in), detail::with_k_mode(b_in), c);
  } else {
    const int num_m = int(size<1>(a_in)), num_n = int(size<1>(b_in)), num_k = int(size<2>(a_in));
    for (int k = 0; k < num_k; ++k) {
      for (int m = 0; m < num_m; ++m) {
        for (int j = 0; j < num_n; ++j) {
          int n = (m % 2 == 0) ? j : num_n - 1 - j;  // serpentine
          detail::call_mma_op<Op>(d(make_coord(0, m, n)), a_in(make_coord(0, m, k)), b_in(make_coord(0, n, k)),
                                  c(make_coord(0, m, n)));
        }
      }
    }
  }
}

// D = A * B + D.
template <class Mma, class DT, class AT, class BT>
TESSEL_HOST_DEVICE void gemm(Mma const& mma, DT&& d, AT const& a, BT const& b) {
  gemm(mma, d, a, b, d);
}

}  // namespace tessel
