// Convolution wgrad's B operand for the sm80 GEMM kernel (kernel_sm80.hpp, its BSource).
//
// wgrad of group g is the GEMM dW[K/G, RSC/G] = dY^T[K/G, NPQ] . X[NPQ, RSC/G] (problem.hpp):
//   A  dY^T: element (k, npq) at dY + npq*K + g*K/G + k, a plain MN-major matrix (lda = K)
//   B  X as fprop's activation matrix seen from the other side: B[crs, npq] = X[n, h, w, g*C/G + c]
//      with h = p*stride_h - pad_h + r'*dilation_h (likewise w), zero outside the image.
//      An MN-major gather: a run of 8 (or 1) channels at one tap (r, s), at several npq.
//      ConvWgradActivationB is group 0's; the kernel's batch stride (C/G elements) moves it to g.
//   D  the group's K/G rows of dW, a plain row-major matrix (ldd = RSC/G)
// The reduction runs over npq = (n*P + p)*Q + q, as (n, p, q) digits of an IndexCounter: the
// loader never divides after it starts. A thread's run (r, s, c) is fixed for the whole
// kernel; its K indices start at the split's first tile (split-K cuts NPQ into slices).
#pragma once

#include "tessel/atom/copy.hpp"
#include "tessel/conv/index_counter.hpp"
#include "tessel/conv/problem.hpp"

namespace tessel {

struct ConvWgradActivationB {
  int columns;  // R*S*C/G: GEMM N
  int channels_per_group, filter_s;
  bool flipped;
  int batch;                   // N: the counter's outer digit bound
  IndexCounterParams counter;  // (n, p, q) over (N, P, Q), stepped by the K tile
  int h, w;
  int stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, filter_r;
  int image_elements, row_elements, channels;  // H*W*C, W*C, C

  TESSEL_HOST_DEVICE static ConvWgradActivationB make(const Conv2dProblem& pb, int tile_k) {
    const int cg = pb.channels_per_group();
    return {pb.r * pb.s * cg,
            cg,
            pb.s,
            pb.mode == ConvMode::kConvolution,
            pb.n,
            make_index_counter_params(pb.p(), pb.q(), tile_k),
            pb.h,
            pb.w,
            pb.stride_h,
            pb.stride_w,
            pb.pad_h,
            pb.pad_w,
            pb.dilation_h,
            pb.dilation_w,
            pb.r,
            pb.h * pb.w * pb.c,
            pb.w * pb.c,
            pb.c};
  }

  // What a thread's run of channels fixes: its column crs -> the tap (as offsets of h, w from
  // p*stride_h, q*stride_w) and the channel within the group.
  struct Run {
    int h0, w0, channel;
    bool inside;  // crs < R*S*C/G
  };
  TESSEL_HOST_DEVICE Run run(int crs) const {
    const int tap = crs / channels_per_group, c = crs % channels_per_group;
    int r = tap / filter_s, s = tap % filter_s;
    if (flipped) r = filter_r - 1 - r, s = filter_s - 1 - s;
    return {r * dilation_h - pad_h, s * dilation_w - pad_w, c, crs < columns};
  }
  // Element (run, K index (n, p, q)) of B: inside the GEMM and the image, and its offset in X.
  TESSEL_HOST_DEVICE bool valid(Run const& run, IndexCounter const& at) const {
    const int hh = at.middle * stride_h + run.h0, ww = at.inner * stride_w + run.w0;
    return run.inside && at.outer < batch && unsigned(hh) < unsigned(h) &&
           unsigned(ww) < unsigned(w);
  }
  TESSEL_HOST_DEVICE int offset(Run const& run, IndexCounter const& at) const {
    return at.outer * image_elements + (at.middle * stride_h + run.h0) * row_elements +
           (at.inner * stride_w + run.w0) * channels + run.channel;
  }

#if defined(__CUDACC__)
  // A thread's atoms: kAtoms K indices (npq) of one run of channels (CPY_N == 1).
  template <int kAccess, int kAtoms>
  struct Loader {
    ConvWgradActivationB const* b;
    IndexCounter at[kAtoms];  // (n, p, q) of each atom
    Run run;

    template <class Op, class Dst, class T>
    __device__ void load(Dst&& dst, T const* x) {
      auto d = detail::group_atom_values<kAccess>(dst);  // (AtomV, atoms)
      for (int i = 0; i < kAtoms; ++i) {
        const bool inside = b->valid(run, at[i]);
        detail::call_copy_op_if<Op>(inside ? x + b->offset(run, at[i]) : x, d(make_coord(0, i)),
                                    inside);
        at[i].advance(b->counter);
      }
    }
  };

  template <int kAccess, int kAtoms>
  __device__ Loader<kAccess, kAtoms> make_loader(AtomOrigins<kAccess, kAtoms> const& origin, int n0,
                                                 int k0, int /*tile_k*/) const {
    Loader<kAccess, kAtoms> l{this, {}, run(n0 + origin.row[0])};
    for (int i = 0; i < kAtoms; ++i) l.at[i] = IndexCounter::at(k0 + origin.col[i], counter);
    return l;
  }
#endif
};

}  // namespace tessel
