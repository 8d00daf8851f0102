// Inverses. right_inverse(A) = R with A(R(i)) == i for i < size(R), R as large as possible:
// right_inverse((4,2):(2,1)) -> (2,4):(4,1). left_inverse(A) = L with L(A(i)) == i for an
// injective A: left_inverse((4,2):(2,8)) -> ... see tests.
#pragma once

#include "complement.hpp"

namespace tessel {

namespace detail {
template <class M>
struct NonZeroStrideMode : std::bool_constant<!is_const_v<0, decltype(get<1>(std::declval<M>()))>> {};

// Flat modes of coalesce(A), each as (shape, stride, index stride): the index stride is where
// that mode sits in A's domain (the prefix product of the shapes).
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto modes_with_index_strides(Layout<S, D> const& layout) {
  auto c = coalesce(layout);
  auto fs = flatten_to_tuple(c.shape());
  auto fd = flatten_to_tuple(c.stride());
  auto fi = prefix_product(fs);
  return transform(transform(fs, fd, [](auto s, auto d) { return make_tuple(s, d); }), fi,
                   [](auto const& sd, auto i) { return make_tuple(get<0>(sd), get<1>(sd), i); });
}
}  // namespace detail

template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto right_inverse(Layout<S, D> const& layout) {
  auto modes = detail::modes_with_index_strides(layout);
  constexpr std::size_t R = tuple_size_v<decltype(modes)>;
  if constexpr (detail::all_strides_static<decltype(modes)>) {
    // Follow the chain of strides 1, s0*1, ... through the modes sorted by stride; modes of
    // stride 0 or size 1 are not part of any chain.
    auto sorted = detail::sort_modes_by_static_stride(
        detail::drop_static_unit_modes(filter_tuple<detail::NonZeroStrideMode>(modes)));
    auto st = fold(sorted, make_tuple(tuple<>{}, C<1>{}, true_c{}), [](auto const& acc, auto const& m) {
      auto cur = get<1>(acc);
      auto live = get<2>(acc);
      using Cur = decltype(cur);
      using Dm = std::remove_cvref_t<decltype(get<1>(m))>;
      if constexpr (is_static_v<Cur> && decltype(live)::value) {
        if constexpr (Dm::value == Cur::value) {
          return make_tuple(append(get<0>(acc), make_tuple(get<0>(m), get<2>(m))),
                            get<0>(m) * get<1>(m), true_c{});
        } else {
          return make_tuple(get<0>(acc), cur, false_c{});
        }
      } else if constexpr (!decltype(live)::value) {
        return acc;
      } else {
        // A dynamic shape earlier in the chain: continue while the strides line up.
        using T = decltype(cur * get<0>(m) + get<1>(m) + get<2>(m));
        bool on = T(get<1>(m)) == T(cur);
        T s = on ? T(get<0>(m)) : T(1);
        T i = on ? T(get<2>(m)) : T(0);
        T next = on ? T(get<0>(m)) * T(get<1>(m)) : T(-1);  // -1: the chain is broken
        return make_tuple(append(get<0>(acc), make_tuple(s, i)), next, true_c{});
      }
    });
    return coalesce(detail::layout_from_modes(get<0>(st)));
  } else {
    using T = decltype(fold(modes, 0, [](auto acc, auto const& m) {
      return acc + get<0>(m) * get<1>(m) + get<2>(m);
    }));
    T s[R] = {}, d[R] = {}, idx[R] = {};
    [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      ((s[Is] = get<Is, 0>(modes), d[Is] = get<Is, 1>(modes), idx[Is] = get<Is, 2>(modes)), ...);
    }(std::make_index_sequence<R>{});
    T out_s[R] = {}, out_d[R] = {};
    T cur = 1;
    for (std::size_t k = 0; k < R; ++k) {  // find the mode with stride cur, R times
      out_s[k] = 1, out_d[k] = 0;
      for (std::size_t j = 0; j < R; ++j) {
        if (d[j] == cur && s[j] != 1 && d[j] != 0) {
          out_s[k] = s[j], out_d[k] = idx[j], cur = s[j] * d[j];
          break;
        }
      }
    }
    return coalesce([&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_layout(make_shape(out_s[Is]...), make_stride(out_d[Is]...));
    }(std::make_index_sequence<R>{}));
  }
}

// left_inverse(A) for an injective A: right_inverse of A extended by its complement, so that
// L(A(i)) == i. A broadcast mode (stride 0, size > 1) makes A non-injective: an error.
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto left_inverse(Layout<S, D> const& layout) {
  for_each(detail::flat_modes(layout), [](auto const& m) {
    using Sm = std::remove_cvref_t<decltype(get<0>(m))>;
    using Dm = std::remove_cvref_t<decltype(get<1>(m))>;
    if constexpr (is_static_v<Sm> && is_static_v<Dm>) {
      static_assert(Dm::value != 0 || Sm::value == 1,
                    "left_inverse: the layout is not injective (a mode of size > 1 has stride 0)");
    } else {
      if (get<1>(m) == 0 && get<0>(m) != 1) {
        layout_error("left_inverse: the layout is not injective: a mode has stride 0 (size, "
                     "stride)",
                     get<0>(m), get<1>(m));
      }
    }
  });
  return right_inverse(make_layout(layout, complement(layout)));
}

}  // namespace tessel
