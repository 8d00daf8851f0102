// Executing MMAs: gemm(tiled_mma, D, A, B, C) issues the atom once per (m, n, k) of a thread's
// fragments A (V, M, K), B (V, N, K), C and D (V, M, N). Each atom's values are contiguous in
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

template <class Op, class AtomLayout, class Permutation, class DT, class AT, class BT, class CT>
TESSEL_HOST_DEVICE void gemm(TiledMMA<Op, AtomLayout, Permutation> const&, DT&& d, AT const& a, BT const& b,
                             CT const& c) {
  const int num_m = int(size<1>(a)), num_n = int(size<1>(b)), num_k = int(size<2>(a));
  for (int k = 0; k < num_k; ++k) {
    for (int m = 0; m < num_m; ++m) {
      for (int j = 0; j < num_n; ++j) {
        int n = (m % 2 == 0) ? j : num_n - 1 - j;  // serpentine
        detail::call_mma_op<Op>(d(make_coord(0, m, n)), a(make_coord(0, m, k)), b(make_coord(0, n, k)),
                                c(make_coord(0, m, n)));
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
