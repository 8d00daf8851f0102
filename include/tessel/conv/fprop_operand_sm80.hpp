// Convolution fprop's A operand for the sm80 GEMM kernel (kernel_sm80.hpp, its ASource): the
// implicit (N*P*Q, R*S*C/G) activation matrix of group `group`, never materialised. Each copy
// atom of a thread's partition asks the analytic activation iterator (activation_iterator.hpp)
// for its NHWC address and whether it lies inside the image; atoms in the padding, past M or
// past K are zero-filled by the copy (cp.async with src-size 0, or the narrow path's zero
// store) and read nothing. With 16-byte atoms the caller guarantees C/G % 8 == 0, so the eight
// channels of an atom share one filter tap.
#pragma once

#include "tessel/atom/copy.hpp"
#include "tessel/conv/activation_iterator.hpp"

namespace tessel {

struct ConvFpropA {
  Conv2dProblem problem;
  int group;

#if defined(__CUDACC__)
  // Loads K tile starting at column k0 of the CTA tile whose rows start at m0 into `dst` (the
  // thread's (CPY,CPY_M,CPY_K) partition of one shared-memory stage). origin[i]: atom i's
  // (row, column) inside the tile. `x` is the activation base (any valid address for
  // predicated-off atoms).
  template <class Op, int kAccess, int kAtoms, class Dst, class T>
  __device__ void load(Dst&& dst, AtomOrigins<kAccess, kAtoms> const& origin, int m0, int k0, T const* x) const {
    auto d = detail::group_atom_values<kAccess>(dst);  // (AtomV, atoms)
    for (int i = 0; i < kAtoms; ++i) {
      const ActivationIteratorAnalytic<1> it(problem, group, ThreadSlice{m0 + origin.row[i], 1, k0 + origin.col[i]}, 0);
      const bool inside = it.valid(0);
      detail::call_copy_op_if<Op>(inside ? it.get(x, 0) : x, d(make_coord(0, i)), inside);
    }
  }
#endif
};

}  // namespace tessel
