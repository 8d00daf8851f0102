// Convolution dgrad on the sm80 GEMM pipeline, by stride phases.
//
// dX[n,h,w,c] sums dY[n,p,q,k] W[k,r,s,c] over the (p, q, r, s) with h = p*stride_h - pad_h +
// r'*dilation_h (and likewise w; r' is r, or R-1-r for true convolution). With stride > 1 a tap
// r' reaches h only when h + pad_h - r'*dilation_h is a multiple of stride_h: which taps those
// are depends on h mod stride_h alone. So the rows of dX are split into stride_h x stride_w
// phases (h mod stride_h, w mod stride_w) = (ph, pw); in one phase every row has the same taps,
//   r' = r'_0 + t*sigma_h   t in [0, R'),   sigma_h = stride_h / gcd(stride_h, dilation_h)
// and row (n, i, j) (h = ph + i*stride_h, w = pw + j*stride_w) reads
//   p = i + A0_h - t*delta_h   delta_h = dilation_h / gcd(stride_h, dilation_h)
// with A0_h = (ph + pad_h - r'_0*dilation_h) / stride_h, exact. That is a stride-1 fprop over
// dY: input (N, P, Q, K), R' x S' taps of dilation delta, padding (R'-1)*delta_h - A0_h, taps
// walked backwards (ConvMode::kConvolution), output grid (ceil((H-ph)/stride_h), likewise w).
// No tap is wasted: the GEMM of a phase is M = N*rows*cols, N = C/G, K = R'*S'*K/G. With
// stride 1 there is one phase, R' = R and the output grid is H x W.
//
//   A  that fprop's activation operand (ConvFpropA) over dY, its rows on the phase's grid
//   B  ConvDgradFilterB: B[c, (t*S' + u)*K/G + k] = W[group*K/G + k, r(t), s(u), c], an
//      MN-major gather (c contiguous) from the KRSC filter
//   D  the phase's rows of dX through the epilogue's RowScatter
// A phase with no taps (R' or S' = 0; e.g. the odd rows of a 1x1 stride-2 layer) has K = 0:
// its rows get only the epilogue (beta * residual + bias, activated).
#pragma once

#include "tessel/atom/copy.hpp"
#include "tessel/conv/fprop_operand_sm80.hpp"
#include "tessel/conv/index_counter.hpp"
#include "tessel/gemm/epilogue.hpp"

namespace tessel {

// One stride phase of a dgrad problem; make_dgrad_phase() computes it (host or device).
struct DgradPhase {
  int ph, pw;           // h mod stride_h, w mod stride_w of the phase's rows
  int rows, cols;       // its output grid: (H - ph) / stride_h rounded up, likewise W
  int taps_r, taps_s;   // R', S' (0: no tap reaches these rows)
  int r_first, r_step;  // stored filter index of tap t: r_first + t * r_step (flips applied)
  int s_first, s_step;
  Conv2dProblem fprop;  // the stride-1 fprop over dY whose rows are the phase's (when taps)
};

namespace dgrad_detail {
TESSEL_HOST_DEVICE inline int gcd(int a, int b) {
  while (b != 0) {
    const int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// One dimension: the phase's taps and the fprop's padding and dilation.
struct PhaseAxis {
  int extent;             // rows (or cols) of the phase
  int taps, first, step;  // R', r_first, r_step (stored filter indices)
  int pad, dilation;      // the fprop's
};

TESSEL_HOST_DEVICE inline PhaseAxis phase_axis(int phase, int extent, int pad, int stride,
                                               int dilation, int taps, bool flipped) {
  // 64-bit where a stride near 2^31 would overflow
  PhaseAxis a{phase < extent ? int((extent - phase + (stride - 1LL)) / stride) : 0, 0, 0, 0, 0, 1};
  const int g = gcd(stride, dilation), sigma = stride / g, delta = dilation / g;
  int first = -1;  // r'_0, the first effective tap that reaches this phase
  for (int r = 0; r < taps && r < sigma && first < 0; ++r) {
    const long long reach = (long long)phase + pad - (long long)r * dilation;
    if (reach % stride == 0) first = r;
  }
  if (first < 0) return a;
  a.taps = (taps - 1 - first) / sigma + 1;
  const int a0 = (phase + pad - first * dilation) / stride;  // exact
  a.pad = (a.taps - 1) * delta - a0;
  a.dilation = delta;
  a.first = flipped ? taps - 1 - first : first;
  a.step = flipped ? -sigma : sigma;
  return a;
}
}  // namespace dgrad_detail

// Phase (ph, pw) of a valid problem, 0 <= ph < stride_h, 0 <= pw < stride_w. E.g. H = 5, R = 3,
// pad 1, stride 2: phase 0 (h = 0, 2, 4) is reached by r = 1 only (R' = 1), phase 1 (h = 1, 3)
// by r = 0 and 2 (R' = 2, r_first = 0, r_step = 2).
TESSEL_HOST_DEVICE inline DgradPhase make_dgrad_phase(const Conv2dProblem& pb, int ph, int pw) {
  const bool flipped = pb.mode == ConvMode::kConvolution;
  const auto h =
      dgrad_detail::phase_axis(ph, pb.h, pb.pad_h, pb.stride_h, pb.dilation_h, pb.r, flipped);
  const auto w =
      dgrad_detail::phase_axis(pw, pb.w, pb.pad_w, pb.stride_w, pb.dilation_w, pb.s, flipped);
  DgradPhase phase{ph,      pw,     h.extent, w.extent, h.taps, w.taps,
                   h.first, h.step, w.first,  w.step,   {}};
  Conv2dProblem& f = phase.fprop;
  f.n = pb.n, f.h = pb.p(), f.w = pb.q(), f.c = pb.k, f.k = pb.c;
  f.r = h.taps > 0 ? h.taps : 1, f.s = w.taps > 0 ? w.taps : 1;  // 1: a placeholder, K = 0 then
  f.pad_h = h.pad, f.pad_w = w.pad;
  f.stride_h = f.stride_w = 1;
  f.dilation_h = h.dilation, f.dilation_w = w.dilation;
  f.mode = ConvMode::kConvolution;  // tap t reads p = i + A0 - t*delta: the filter walked backwards
  f.groups = pb.groups;
  return phase;
}

// The phase's fprop activation params with its rows on the phase's grid (kOptimized).
TESSEL_HOST_DEVICE inline ActivationParams make_dgrad_activation_params(const DgradPhase& phase,
                                                                        int tile_k) {
  ActivationParams a = make_activation_params(phase.fprop, tile_k);
  a.q = phase.cols;
  a.pq = phase.rows * phase.cols;
  a.rows = phase.fprop.n * a.pq;
  return a;
}

// Where the phase's GEMM rows land in dX (N, H, W, C).
TESSEL_HOST_DEVICE inline RowScatter dgrad_row_scatter(const Conv2dProblem& pb,
                                                       const DgradPhase& phase) {
  const long long row = (long long)pb.w * pb.c;
  return {phase.rows,
          phase.cols,
          pb.h * row,
          pb.stride_h * row,
          (long long)pb.stride_w * pb.c,
          phase.ph * row + (long long)phase.pw * pb.c};
}

// dgrad's B operand: the KRSC filter as B (C/G, R'*S'*K/G) of group 0 and one phase, MN-major;
// the kernel's batch stride (K/G * R*S*C/G elements) moves it to group g.
struct ConvDgradFilterB {
  int columns;                       // C/G: GEMM N
  int taps_r;                        // R': the counter's outer digit bound
  IndexCounterParams counter;        // (t, u, k) over (R', S', K/G), stepped by the K tile
  int stride_k, stride_t, stride_u;  // element offsets per k, per t, per u
  int origin;  // of (t, u, k) = (0, 0, 0), column 0

  // B of a phase with taps, the kernel's TileK `tile_k`.
  TESSEL_HOST_DEVICE static ConvDgradFilterB make(const Conv2dProblem& pb, const DgradPhase& phase, int tile_k) {
    const int cg = pb.channels_per_group(), kg = pb.filters_per_group(), rscg = pb.r * pb.s * cg;
    const int taps_s = phase.taps_s > 0 ? phase.taps_s : 1;
    return {cg,
            phase.taps_r,
            make_index_counter_params(taps_s, kg, tile_k),
            rscg,
            phase.r_step * pb.s * cg,
            phase.s_step * cg,
            (phase.r_first * pb.s + phase.s_first) * cg};
  }

  // Element (column, K index `at`) of B: inside the GEMM, and its offset into the filter.
  TESSEL_HOST_DEVICE bool valid(int column, IndexCounter const& at) const {
    return column < columns && at.outer < taps_r;
  }
  TESSEL_HOST_DEVICE int offset(int column, IndexCounter const& at) const {
    return origin + column + at.inner * stride_k + at.outer * stride_t + at.middle * stride_u;
  }

#if defined(__CUDACC__)
  // A thread's atoms: kAtoms K indices of one column run (CPY_N == 1).
  template <int kAccess, int kAtoms>
  struct Loader {
    ConvDgradFilterB const* b;
    IndexCounter at[kAtoms];
    int column;  // the run's first column, within the group

    template <class Op, class Dst, class T>
    __device__ void load(Dst&& dst, T const* w) {
      auto d = detail::group_atom_values<kAccess>(dst);  // (AtomV, atoms)
      for (int i = 0; i < kAtoms; ++i) {
        const bool inside = b->valid(column, at[i]);
        detail::call_copy_op_if<Op>(inside ? w + b->offset(column, at[i]) : w, d(make_coord(0, i)),
                                    inside);
        at[i].advance(b->counter);
      }
    }
  };

  template <int kAccess, int kAtoms>
  __device__ Loader<kAccess, kAtoms> make_loader(AtomOrigins<kAccess, kAtoms> const& origin, int n0,
                                                 int k0, int /*tile_k*/) const {
    Loader<kAccess, kAtoms> l{this, {}, n0 + origin.row[0]};
    for (int i = 0; i < kAtoms; ++i) l.at[i] = IndexCounter::at(k0 + origin.col[i], counter);
    return l;
  }
#endif
};

}  // namespace tessel
