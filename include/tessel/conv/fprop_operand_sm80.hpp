// Convolution fprop's A operand for the sm80 GEMM kernel (kernel_sm80.hpp, its ASource): the
// implicit (N*P*Q, R*S*C/G) activation matrix of group 0, never materialised; the kernel's
// batch stride (C/G elements) moves it to group g, as the pointer it loads from. Each copy
// atom of a thread's partition gets its NHWC address and whether it lies inside the image from
// an activation iterator (activation_iterator.hpp); atoms in the padding, past M or past K are
// zero-filled by the copy (cp.async with src-size 0, or the narrow path's zero store) and read
// nothing. With 16-byte atoms the caller guarantees C/G % 8 == 0, so the eight channels of an
// atom share one filter tap.
//
//   ConvFpropA<ConvIterator::kOptimized>  precomputed row offsets and tap masks per thread,
//                                         incremental advance (R, S <= 32)
//   ConvFpropA<ConvIterator::kAnalytic>   coordinates recomputed per access (any R, S)
//
// The kernel makes one loader per thread (make_loader) and calls load() once per K tile, in
// order; each call loads the current tile and moves to the next.
#pragma once

#include "tessel/atom/copy.hpp"
#include "tessel/conv/activation_iterator.hpp"

namespace tessel {

enum class ConvIterator { kAnalytic, kOptimized };

template <ConvIterator Family>
struct ConvFpropA {
  Conv2dProblem problem;
  ActivationParams params;  // make_activation_params(problem, the kernel's TileK): kOptimized
  // The GEMM rows' output grid when it is not the problem's (P, Q), else 0: dgrad's stride
  // phases (dgrad_operand_sm80.hpp; their params carry it for kOptimized).
  int out_p = 0, out_q = 0;

#if defined(__CUDACC__)
  // A thread's loader. Its copy atoms are rows first_row + i * row_stride (i < kAtoms) of one
  // column: the G2S partition of a K-major tile whose contiguous mode one row of threads
  // covers (the kernel checks CPY_K == 1).
  template <int kAccess, int kAtoms>
  struct Loader {
    using Iterator = std::conditional_t<Family == ConvIterator::kOptimized, ActivationIteratorOptimized<kAtoms>,
                                        ActivationIteratorAnalytic<kAtoms>>;
    Iterator it;

    template <class Op, class Dst, class T>
    __device__ void load(Dst&& dst, T const* x) {
      auto d = detail::group_atom_values<kAccess>(dst);  // (AtomV, atoms)
      for (int i = 0; i < kAtoms; ++i) {
        const bool inside = it.valid(i);
        detail::call_copy_op_if<Op>(inside ? it.get(x, i) : x, d(make_coord(0, i)), inside);
      }
      it.advance();
    }
  };

  // origin: the atoms' (row, column) in the tile; m0: the tile's first row; k0: the first K
  // column to load; tile_k: the kernel's TileK.
  template <int kAccess, int kAtoms>
  __device__ Loader<kAccess, kAtoms> make_loader(AtomOrigins<kAccess, kAtoms> const& origin, int m0, int k0,
                                                 int tile_k) const {
    const ThreadSlice slice{m0 + origin.row[0], kAtoms > 1 ? origin.row[kAtoms > 1 ? 1 : 0] - origin.row[0] : 1,
                            k0 + origin.col[0]};
    if constexpr (Family == ConvIterator::kOptimized) {
      return {ActivationIteratorOptimized<kAtoms>(params, 0, slice)};
    } else {
      return {ActivationIteratorAnalytic<kAtoms>(problem, 0, slice, tile_k, out_p > 0 ? out_p : problem.p(),
                                                 out_q > 0 ? out_q : problem.q())};
    }
  }
#endif
};

}  // namespace tessel
