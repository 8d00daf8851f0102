// The fprop operands of the implicit GEMM Y[NPQ, K] = X[NPQ, RSC/G] . W[RSC/G, K] (problem.hpp):
// where element (row, column) of the virtual activation matrix lives in the NHWC tensor X, and
// whether it lies inside the image (outside it the kernel zero-fills, it never reads).
//
// Index orders (both chosen so that the filter operand is a plain matrix):
//   GEMM row     npq = (n*P + p)*Q + q                          q fastest, as Y is NPQ-major
//   GEMM column  crs = (r*S + s)*(C/G) + c    c in [0, C/G)     c fastest, as in KRSC
// so the filter of group g is the row-major (K/G, RSC/G) matrix W + g*(K/G)*(RSC/G) and fprop's
// B operand is its transpose (fprop_filter_offset below). An access of `width` elements starting
// at column crs stays in one filter tap when width divides C/G.
//
// Element (npq, crs) of group g is X[n, h, w, g*C/G + c] with
//   h = p*stride_h - pad_h + r'*dilation_h,   w = q*stride_w - pad_w + s'*dilation_w,
//   (r', s') = (r, s) for cross-correlation, (R-1-r, S-1-s) for convolution,
// valid when npq < NPQ, crs < RSC/G, 0 <= h < H and 0 <= w < W.
//
// What one thread loads of an A tile is a ThreadSlice: kRows GEMM rows first_row + i*row_stride
// (i in [0, kRows)) and one column >= 0. advance() moves the column by the tile's depth, tile_k,
// to the same place in the next K tile. Both iterators have the textbook methods of CUTLASS's
// conv iterators: at(i) (the coordinate), valid(i), offset(i) / get(base, i) and advance().
//
//   ActivationIteratorAnalytic   stores the slice and recomputes (n,p,q) and (r,s,c) with
//                                divisions on every access; any problem.
//   ActivationIteratorOptimized  precomputes per-row offsets and per-row tap masks, keeps
//                                (r, s, c) and the column offset incrementally: no division
//                                after construction. R, S <= 32 (supports()).
// They visit the same addresses with the same predicates (tests/host/conv_iterator_test.cpp).
#pragma once

#include "tessel/conv/problem.hpp"
#include "tessel/layout/config.hpp"

namespace tessel {

// The rows and the column of an A tile that one thread loads, in absolute GEMM coordinates,
// e.g. a 128x32 tile at (m0, k0) loaded by 128 threads in 16-byte (8 x f16) accesses:
// 4 threads per row, 32 rows per pass, kRows = 4:
//   {.first_row = m0 + tid/4, .row_stride = 32, .column = k0 + (tid%4)*8}
struct ThreadSlice {
  int first_row;
  int row_stride;
  int column;
};

// An element of the activation X: (n, h, w, c), c the absolute channel (group offset included).
struct ActivationCoord {
  int n, h, w, c;
};

// Offset of element (k, crs) of fprop's filter operand, k an absolute output channel:
// KRSC is the row-major (K, RSC/G) matrix, so B[crs, k] = W[k * RSC/G + crs].
TESSEL_HOST_DEVICE inline long long fprop_filter_offset(const Conv2dProblem& pb, int k, int crs) {
  return (long long)k * pb.r * pb.s * pb.channels_per_group() + crs;
}

// The other directions' operands, analytic (recomputed per element), any R, S:
//
// dgrad: dX[NHW, C] = A[NHW, RSK/G] . B[RSK/G, C], reduction index krs = (r*S + s)*(K/G) + k
// (k fastest, k within the group of GEMM column c, group = c / (C/G)).
//   A[nhw, krs] = dY[n, p, q, group*K/G + k] where h = p*stride_h - pad_h + r'*dilation_h,
//   i.e. p = (h + pad_h - r'*dilation_h) / stride_h when that division is exact and
//   0 <= p < P (likewise q); otherwise no output position reads (h, w) through tap (r, s)
//   and the element is zero (with stride > 1 most taps miss most (h, w)).
//   B[krs, c] = W[group*K/G + k, r, s, c - group*C/G] (dgrad_filter_offset).
// wgrad: dW[K, RSC/G] = dY[NPQ, K]^T . X[NPQ, RSC/G]: A[k, npq] = dY[npq*K + k] and B is
// fprop's activation matrix (ActivationIteratorAnalytic/Optimized with the GEMM K as rows).

// An element of the output (gradient) dY (N, P, Q, K); k absolute.
struct OutputCoord {
  int n, p, q, k;
  bool valid;  // inside the GEMM and reached by the tap; else the element is zero
};

// dgrad's A[nhw, krs] for the group of the CTA's columns, e.g. 1-D H = 5, R = 3, stride 2,
// pad 1: h = 2, r = 1 -> p = (2 + 1 - 1) / 2 = 1, valid; h = 2, r = 0 -> 3 / 2 inexact, zero.
TESSEL_HOST_DEVICE inline OutputCoord dgrad_output_grad_at(const Conv2dProblem& pb, int group,
                                                           int nhw, int krs) {
  const int kg = pb.filters_per_group(), P = pb.p(), Q = pb.q();
  const long long rows = (long long)pb.n * pb.h * pb.w;
  const long long columns = (long long)pb.r * pb.s * kg;
  OutputCoord y{0, 0, 0, 0, false};
  if (nhw < 0 || nhw >= rows || krs < 0 || krs >= columns) return y;
  const int n = nhw / (pb.h * pb.w), h = nhw % (pb.h * pb.w) / pb.w, w = nhw % pb.w;
  const int tap = krs / kg, k = krs % kg;
  int r = tap / pb.s, s = tap % pb.s;
  if (pb.mode == ConvMode::kConvolution) {
    r = pb.r - 1 - r;
    s = pb.s - 1 - s;
  }
  const int ph = h + pb.pad_h - r * pb.dilation_h, qw = w + pb.pad_w - s * pb.dilation_w;
  y = {n, ph / pb.stride_h, qw / pb.stride_w, group * kg + k, false};
  y.valid =
      ph >= 0 && qw >= 0 && ph % pb.stride_h == 0 && qw % pb.stride_w == 0 && y.p < P && y.q < Q;
  return y;
}

// Offset of an OutputCoord in the NPQK tensor dY.
TESSEL_HOST_DEVICE inline long long output_offset(const Conv2dProblem& pb, OutputCoord y) {
  return (((long long)y.n * pb.p() + y.p) * pb.q() + y.q) * pb.k + y.k;
}

// Offset of dgrad's B[krs, c] in the KRSC filter, c an absolute input channel.
TESSEL_HOST_DEVICE inline long long dgrad_filter_offset(const Conv2dProblem& pb, int krs, int c) {
  const int kg = pb.filters_per_group(), cg = pb.channels_per_group(), group = c / cg;
  const int tap = krs / kg, k = group * kg + krs % kg;
  return ((long long)k * pb.r * pb.s + tap) * cg + c % cg;
}

// Coordinates recomputed on every access; any R, S.
template <int kRows>
class ActivationIteratorAnalytic {
  static_assert(kRows >= 1, "ActivationIteratorAnalytic: kRows (rows per thread) must be >= 1");

 public:
  // `group`: the group of the CTA's output channels (its K/G filters read channels
  // [group*C/G, (group+1)*C/G)); `tile_k`: the GEMM K tile depth, advance()'s step.
  TESSEL_HOST_DEVICE ActivationIteratorAnalytic(const Conv2dProblem& problem, int group,
                                                ThreadSlice slice, int tile_k)
      : ActivationIteratorAnalytic(problem, group, slice, tile_k, problem.p(), problem.q()) {}

  // The same with the GEMM rows npq = (n*out_p + p)*out_q + q over an (out_p, out_q) grid of
  // output positions other than the problem's (P, Q): dgrad's stride phases
  // (dgrad_operand_sm80.hpp) cover a sub-grid.
  TESSEL_HOST_DEVICE ActivationIteratorAnalytic(const Conv2dProblem& problem, int group,
                                                ThreadSlice slice, int tile_k, int out_p, int out_q)
      : pb_(problem), group_(group), slice_(slice), tile_k_(tile_k), out_p_(out_p), out_q_(out_q) {}

  // The column this thread reads now (moves by tile_k with each advance()).
  TESSEL_HOST_DEVICE int column() const { return slice_.column; }

  // Coordinate of row i (0 <= i < kRows) at the current column; h and w may lie outside the
  // image (padding), then valid(i) is false.
  TESSEL_HOST_DEVICE ActivationCoord at(int i) const {
    const int pq = out_p_ * out_q_;
    const int npq = slice_.first_row + i * slice_.row_stride;
    const int n = npq / pq, p = npq % pq / out_q_, q = npq % out_q_;
    const int cg = pb_.channels_per_group();
    const int tap = slice_.column / cg, c = slice_.column % cg;
    int r = tap / pb_.s, s = tap % pb_.s;
    if (pb_.mode == ConvMode::kConvolution) {
      r = pb_.r - 1 - r;
      s = pb_.s - 1 - s;
    }
    return {n, p * pb_.stride_h - pb_.pad_h + r * pb_.dilation_h,
            q * pb_.stride_w - pb_.pad_w + s * pb_.dilation_w, group_ * cg + c};
  }

  // Row i at the current column is inside the GEMM and inside the image.
  TESSEL_HOST_DEVICE bool valid(int i) const {
    const long long npq = (long long)slice_.first_row + (long long)i * slice_.row_stride;
    const long long rows = (long long)pb_.n * out_p_ * out_q_;
    const long long columns = (long long)pb_.r * pb_.s * pb_.channels_per_group();
    if (npq < 0 || npq >= rows || slice_.column < 0 || slice_.column >= columns) return false;
    const ActivationCoord x = at(i);
    return 0 <= x.h && x.h < pb_.h && 0 <= x.w && x.w < pb_.w;
  }

  // Element offset of row i into the NHWC activation: ((n*H + h)*W + w)*C + c. Meaningful
  // only where valid(i).
  TESSEL_HOST_DEVICE long long offset(int i) const {
    const ActivationCoord x = at(i);
    return (((long long)x.n * pb_.h + x.h) * pb_.w + x.w) * pb_.c + x.c;
  }

  template <class T>
  TESSEL_HOST_DEVICE T* get(T* activation, int i) const {
    return activation + offset(i);
  }

  // To the same place in the next K tile.
  TESSEL_HOST_DEVICE void advance() { slice_.column += tile_k_; }

 private:
  Conv2dProblem pb_;
  int group_;
  ThreadSlice slice_;
  int tile_k_;
  int out_p_, out_q_;
};

// What ActivationIteratorOptimized needs of a problem and a K tile depth, computed once on the
// host (make_activation_params) and passed to every thread by value. Offsets in elements; a
// "tap step" is the change of the column offset when r or s grows by one, negative for
// ConvMode::kConvolution (the filter is walked backwards over the image).
struct ActivationParams {
  // rows: npq -> (n, p, q), image geometry
  int rows;   // N*P*Q
  int pq, q;  // P*Q, Q
  int h, w;   // H, W
  int stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int image_elements, row_elements, channels;  // H*W*C, W*C, C
  // columns: crs -> (r, s, c)
  int filter_r, filter_s, channels_per_group;  // R, S, C/G
  bool flipped;                                // ConvMode::kConvolution
  int step_r, step_s;                          // column-offset change per r+1, per s+1
  // advance(): tile_k = tile_taps * C/G + tile_channels, tile_taps = tile_r * S + tile_s
  int tile_channels, tile_s, tile_r;
  long long delta_tile;    // tile_channels + tile_s*step_s + tile_r*step_r
  long long delta_c_wrap;  // c passed C/G: c -= C/G, s += 1
  long long delta_s_wrap;  // s passed S:   s -= S,   r += 1
};

// Precomputes ActivationParams; host or device, divisions allowed here. `tile_k` >= 1.
TESSEL_HOST_DEVICE inline ActivationParams make_activation_params(const Conv2dProblem& pb,
                                                                  int tile_k) {
  ActivationParams a{};
  a.q = pb.q();
  a.pq = pb.p() * a.q;
  a.rows = pb.n * a.pq;
  a.h = pb.h;
  a.w = pb.w;
  a.stride_h = pb.stride_h;
  a.stride_w = pb.stride_w;
  a.pad_h = pb.pad_h;
  a.pad_w = pb.pad_w;
  a.dilation_h = pb.dilation_h;
  a.dilation_w = pb.dilation_w;
  a.channels = pb.c;
  a.row_elements = pb.w * pb.c;
  a.image_elements = pb.h * a.row_elements;
  a.filter_r = pb.r;
  a.filter_s = pb.s;
  a.channels_per_group = pb.channels_per_group();
  a.flipped = pb.mode == ConvMode::kConvolution;
  const int sign = a.flipped ? -1 : 1;
  a.step_r = sign * pb.dilation_h * a.row_elements;
  a.step_s = sign * pb.dilation_w * pb.c;
  const int tile_taps = tile_k / a.channels_per_group;
  a.tile_channels = tile_k % a.channels_per_group;
  a.tile_s = tile_taps % pb.s;
  a.tile_r = tile_taps / pb.s;
  a.delta_tile = a.tile_channels + (long long)a.tile_s * a.step_s + (long long)a.tile_r * a.step_r;
  a.delta_c_wrap = (long long)a.step_s - a.channels_per_group;
  a.delta_s_wrap = (long long)a.step_r - (long long)pb.s * a.step_s;
  return a;
}

// Precomputed offsets and predicate masks, incremental advance, as CUTLASS's optimized
// iterator. Per thread it keeps
//   row_offset_[i]   ((n*H + p*stride_h - pad_h)*W + q*stride_w - pad_w)*C + group*C/G: the
//                    offset of row i at tap (r', s') = (0, 0), channel 0 (int: validate()
//                    bounds it by the padded activation)
//   mask_r_[i]       bit r set iff row i exists and its h at filter row r is inside [0, H)
//   mask_s_[i]       bit s set iff row i exists and its w at filter column s is inside [0, W)
//                    (bits indexed by the filter's r and s, flips already applied)
//   r_, s_, c_       the column's (r, s, c); column_offset_ = r'*dilation_h*W*C +
//                    s'*dilation_w*C + c, so offset(i) = row_offset_[i] + column_offset_
//   predicate_       bit i = valid(i) at the current column, rebuilt from the masks (kRows bit
//                    operations) only when the column moves to another tap.
// advance() adds tile_k to the column as (tile_r, tile_s, tile_channels) with at most two
// carries (c past C/G, s past S), each adding a precomputed delta to column_offset_.
template <int kRows>
class ActivationIteratorOptimized {
  static_assert(kRows >= 1 && kRows <= 32,
                "ActivationIteratorOptimized: kRows (rows per thread) must be in [1, 32], one "
                "predicate bit per row in a 32-bit mask; use fewer rows per thread");

 public:
  static constexpr int kMaxFilterExtent = 32;  // R and S index bits of the 32-bit tap masks

  // Whether a problem fits the masks; otherwise use ActivationIteratorAnalytic.
  TESSEL_HOST_DEVICE static bool supports(const Conv2dProblem& pb) {
    return pb.r <= kMaxFilterExtent && pb.s <= kMaxFilterExtent;
  }

  // Same arguments as the analytic iterator, with the problem's precomputed params (built for
  // this tile_k; held by reference, as the kernel's parameters are, so they must outlive the
  // iterator). slice.column >= 0. Divisions happen here, once per thread.
  TESSEL_HOST_DEVICE ActivationIteratorOptimized(const ActivationParams& params, int group,
                                                 ThreadSlice slice)
      : pm_(params) {
    for (int i = 0; i < kRows; ++i) {
      const long long npq = (long long)slice.first_row + (long long)i * slice.row_stride;
      row_offset_[i] = 0;
      mask_r_[i] = 0;
      mask_s_[i] = 0;
      if (npq < 0 || npq >= pm_.rows) continue;  // no row: no bits, offset unused
      const int n = (int)npq / pm_.pq, p = (int)npq % pm_.pq / pm_.q, q = (int)npq % pm_.q;
      const int h0 = p * pm_.stride_h - pm_.pad_h, w0 = q * pm_.stride_w - pm_.pad_w;
      row_offset_[i] = n * pm_.image_elements + h0 * pm_.row_elements + w0 * pm_.channels +
                       group * pm_.channels_per_group;
      for (int r = 0; r < pm_.filter_r; ++r) {
        const int h = h0 + tap(r, pm_.filter_r) * pm_.dilation_h;
        if (0 <= h && h < pm_.h) mask_r_[i] |= 1u << r;
      }
      for (int s = 0; s < pm_.filter_s; ++s) {
        const int w = w0 + tap(s, pm_.filter_s) * pm_.dilation_w;
        if (0 <= w && w < pm_.w) mask_s_[i] |= 1u << s;
      }
    }
    const int taps = slice.column / pm_.channels_per_group;
    c_ = slice.column % pm_.channels_per_group;
    s_ = taps % pm_.filter_s;
    r_ = taps / pm_.filter_s;  // r_ >= R: past the last tap, no valid column
    column_offset_ = (long long)tap(r_, pm_.filter_r) * pm_.dilation_h * pm_.row_elements +
                     (long long)tap(s_, pm_.filter_s) * pm_.dilation_w * pm_.channels + c_;
    update_predicate();
  }

  // (r, s, c) of the current column, c within the group.
  TESSEL_HOST_DEVICE int filter_r() const { return r_; }
  TESSEL_HOST_DEVICE int filter_s() const { return s_; }
  TESSEL_HOST_DEVICE int channel() const { return c_; }

  // Coordinate of row i, recovered from its offset (for tests and debugging; the kernel uses
  // offset(i) and valid(i)). Meaningful only where valid(i).
  TESSEL_HOST_DEVICE ActivationCoord at(int i) const {
    long long rest = offset(i);
    ActivationCoord x;
    x.n = (int)(rest / pm_.image_elements);
    rest %= pm_.image_elements;
    x.h = (int)(rest / pm_.row_elements);
    rest %= pm_.row_elements;
    x.w = (int)(rest / pm_.channels);
    x.c = (int)(rest % pm_.channels);
    return x;
  }

  TESSEL_HOST_DEVICE bool valid(int i) const { return (predicate_ >> i) & 1u; }
  TESSEL_HOST_DEVICE unsigned predicate() const { return predicate_; }  // bit i = valid(i)

  TESSEL_HOST_DEVICE long long offset(int i) const { return row_offset_[i] + column_offset_; }

  template <class T>
  TESSEL_HOST_DEVICE T* get(T* activation, int i) const {
    return activation + offset(i);
  }

  // To the same place in the next K tile: column += tile_k without a division.
  TESSEL_HOST_DEVICE void advance() {
    c_ += pm_.tile_channels;
    s_ += pm_.tile_s;
    r_ += pm_.tile_r;
    column_offset_ += pm_.delta_tile;
    if (c_ >= pm_.channels_per_group) {
      c_ -= pm_.channels_per_group;
      ++s_;
      column_offset_ += pm_.delta_c_wrap;
    }
    if (s_ >= pm_.filter_s) {  // s_ < 2S: tile_s <= S-1 plus one carry
      s_ -= pm_.filter_s;
      ++r_;
      column_offset_ += pm_.delta_s_wrap;
    }
    // The tap changed unless tile_k < C/G and no carry happened; rebuilding anyway costs
    // kRows bit operations.
    update_predicate();
  }

 private:
  // The image tap (r' or s') of filter index `index` of a filter `extent` taps long.
  TESSEL_HOST_DEVICE int tap(int index, int extent) const {
    return pm_.flipped ? extent - 1 - index : index;
  }

  TESSEL_HOST_DEVICE void update_predicate() {
    predicate_ = 0;
    if (r_ >= pm_.filter_r) return;  // past the last tap: the K residue
    for (int i = 0; i < kRows; ++i) {
      predicate_ |= ((mask_r_[i] >> r_) & (mask_s_[i] >> s_) & 1u) << i;
    }
  }

  const ActivationParams& pm_;
  int row_offset_[kRows];
  unsigned mask_r_[kRows];
  unsigned mask_s_[kRows];
  int r_, s_, c_;
  long long column_offset_;
  unsigned predicate_;
};

}  // namespace tessel
