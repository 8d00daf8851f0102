// Element-wise algorithms over tensors of the same size (1-D index order).
#pragma once

#include <utility>

#include "tensor.hpp"

namespace tessel {

// f(C<0>{}), f(C<1>{}), ..., f(C<N-1>{}) where N is static; a loop over ints otherwise. Static
// indices keep a register fragment's index static however long it is (a run-time index into
// 128 accumulators puts them in local memory), and keep each element's offset static, so a
// swizzled layout moves its whole periods out of the swizzle (split_under_swizzle) into the
// address's immediate instead of swizzling every address at run time.
template <class N, class F>
TESSEL_HOST_DEVICE constexpr void for_each_index(N n, F&& f) {
  if constexpr (is_constant<N>::value) {
    [&]<int... Is>(std::integer_sequence<int, Is...>) {
      (f(C<Is>{}), ...);
    }(std::make_integer_sequence<int, int(N::value)>{});
  } else {
    for (int i = 0; i < int(n); ++i) f(i);
  }
}

template <class E, class L, class V>
TESSEL_HOST_DEVICE constexpr void fill(Tensor<E, L>&& t, V const& v) {
  for_each_index(size(t), [&](auto i) { t[i] = v; });
}
template <class E, class L, class V>
TESSEL_HOST_DEVICE constexpr void fill(Tensor<E, L>& t, V const& v) {
  fill(static_cast<Tensor<E, L>&&>(t), v);
}

// clear(t): every element set to T{} (zero for numbers).
template <class TensorT>
TESSEL_HOST_DEVICE constexpr void clear(TensorT&& t) {
  fill(static_cast<TensorT&&>(t), typename std::remove_cvref_t<TensorT>::value_type{});
}

// dst[i] = src[i] for every i < size(dst); the sizes must match.
template <class SrcTensor, class DstTensor>
TESSEL_HOST_DEVICE constexpr void copy(SrcTensor const& src, DstTensor&& dst) {
  static_assert(is_tensor_v<SrcTensor> && is_tensor_v<DstTensor>, "copy: expects two tensors");
  if constexpr (is_static_v<decltype(size(src))> && is_static_v<decltype(size(dst))>) {
    static_assert(decltype(size(src))::value == decltype(size(dst))::value,
                  "copy: source and destination differ in size");
  }
  for_each_index(size(dst), [&](auto i) { dst[i] = src[i]; });
}

// dst[i] = src[i] where pred[i]; a predicate tensor of bools with the same size, e.g. built
// from an identity tensor: pred[i] = get<0>(coord[i]) < M.
template <class PredTensor, class SrcTensor, class DstTensor>
TESSEL_HOST_DEVICE constexpr void copy_if(PredTensor const& pred, SrcTensor const& src,
                                          DstTensor&& dst) {
  for_each_index(size(dst), [&](auto i) {
    if (pred[i]) dst[i] = src[i];
  });
}

}  // namespace tessel
