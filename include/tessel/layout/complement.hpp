// complement(A, M): the layout that "fills the holes" of A up to M, ordered after A:
// complement(4:2, 24) -> (2,3):(1,8). Together, make_layout(A, complement(A, M)) is a
// bijection onto [0, M') with M' >= M the first multiple of A's extent.
//
// Admissibility: after sorting A's (non-broadcast) modes by stride, every stride must be a
// multiple of the extent (size * stride) of the modes before it; otherwise A overlaps itself
// or interleaves, and no complement exists.
#pragma once

#include "coalesce.hpp"

namespace tessel {

namespace detail {
// A fixed-size array usable in constant expressions on host and device.
template <class T, std::size_t N>
struct Array {
  T data[N > 0 ? N : 1] = {};
  TESSEL_HOST_DEVICE constexpr T& operator[](std::size_t i) { return data[i]; }
  TESSEL_HOST_DEVICE constexpr T const& operator[](std::size_t i) const { return data[i]; }
};

// Indices of the static strides in increasing order (stable).
template <class Strides>
TESSEL_HOST_DEVICE constexpr auto static_stride_order() {
  constexpr std::size_t R = tuple_size_v<Strides>;
  Array<long long, R> d{};
  [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    ((d[Is] = std::remove_cvref_t<decltype(get<Is>(Strides{}))>::value), ...);
  }(std::make_index_sequence<R>{});
  Array<std::size_t, R> order{};
  for (int i = 0; i < int(R); ++i) order[i] = std::size_t(i);
  for (int i = 1; i < int(R); ++i) {  // insertion sort: stable, constexpr
    for (int j = i; j > 0 && d[order[j]] < d[order[j - 1]]; --j) {
      auto t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  }
  return order;
}

// The flat modes of A sorted by stride (static strides) as a tuple of (s, d).
template <class Modes>
TESSEL_HOST_DEVICE constexpr auto sort_modes_by_static_stride(Modes const& modes) {
  using Strides = decltype(transform(modes, [](auto const& m) { return get<1>(m); }));
  constexpr auto order = static_stride_order<Strides>();
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple(get<order[Is]>(modes)...);
  }(std::make_index_sequence<tuple_size_v<Modes>>{});
}

template <class Modes>
struct all_strides_static_t;
template <class... Ms>
struct all_strides_static_t<tuple<Ms...>>
    : std::bool_constant<(is_static_v<decltype(get<1>(std::declval<Ms>()))> && ...)> {};
template <class Modes>
inline constexpr bool all_strides_static = all_strides_static_t<std::remove_cvref_t<Modes>>::value;

template <class Modes, class M>
TESSEL_HOST_DEVICE constexpr auto complement_static_order(Modes const& modes, M const& cotarget) {
  auto sorted = sort_modes_by_static_stride(modes);
  // state: (result modes, current extent)
  auto st = fold(sorted, make_tuple(tuple<>{}, C<1>{}), [](auto const& acc, auto const& m) {
    auto cur = get<1>(acc);
    auto s = get<0>(m);
    auto d = get<1>(m);
    if constexpr (is_static_v<decltype(cur)>) {
      static_assert(decltype(d)::value % decltype(cur)::value == 0,
                    "complement: a stride is not a multiple of the extent of the modes below "
                    "it: the layout overlaps itself or interleaves, so it has no complement");
    } else {
      if (d % cur != 0) {
        layout_error("complement: a stride is not a multiple of the extent of the modes below "
                     "it: the layout overlaps itself or interleaves (stride, extent)",
                     d, cur);
      }
    }
    return make_tuple(append(get<0>(acc), make_tuple(d / cur, cur)), s * d);
  });
  auto cur = get<1>(st);
  return coalesce(
      layout_from_modes(append(get<0>(st), make_tuple(ceil_div(cotarget, cur), cur))));
}

// Dynamic strides: sort at run time; the result has one mode per input mode plus one, unused
// modes having size 1.
template <class Modes, class M>
TESSEL_HOST_DEVICE constexpr auto complement_dynamic_order(Modes const& modes, M const& cotarget) {
  constexpr std::size_t R = tuple_size_v<Modes>;
  using T = decltype(fold(modes, cotarget + 0, [](auto acc, auto const& m) {
    return acc + get<0>(m) * get<1>(m);
  }));
  T s[R] = {}, d[R] = {};
  [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    ((s[Is] = get<Is, 0>(modes), d[Is] = get<Is, 1>(modes)), ...);
  }(std::make_index_sequence<R>{});
  std::size_t order[R] = {};
  for (std::size_t i = 0; i < R; ++i) order[i] = i;
  for (std::size_t i = 1; i < R; ++i) {
    for (std::size_t j = i; j > 0 && d[order[j]] < d[order[j - 1]]; --j) {
      auto t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  }
  T out_s[R + 1] = {}, out_d[R + 1] = {};
  T cur = 1;
  for (std::size_t k = 0; k < R; ++k) {
    T sk = s[order[k]], dk = d[order[k]];
    if (sk == 1 || dk == 0) {  // broadcast or trivial: contributes nothing
      out_s[k] = 1, out_d[k] = 0;
      continue;
    }
    if (dk % cur != 0) {
      layout_error("complement: a stride is not a multiple of the extent of the modes below "
                   "it: the layout overlaps itself or interleaves (stride, extent)",
                   dk, cur);
    }
    out_s[k] = dk / cur, out_d[k] = cur;
    cur = sk * dk;
  }
  out_s[R] = (T(cotarget) + cur - 1) / cur, out_d[R] = cur;
  return coalesce([&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_layout(make_shape(out_s[Is]...), make_stride(out_d[Is]...));
  }(std::make_index_sequence<R + 1>{}));
}
}  // namespace detail

// complement(A, M) with M an integer or a shape (its size is used).
template <class S, class D, class M>
TESSEL_HOST_DEVICE constexpr auto complement(Layout<S, D> const& layout, M const& cotarget) {
  auto target = product(cotarget);
  auto modes = detail::drop_static_unit_modes(detail::flat_modes(filter(layout)));
  if constexpr (tuple_size_v<decltype(modes)> == 0) {
    return coalesce(make_layout(target, C<1>{}));
  } else if constexpr (detail::all_strides_static<decltype(modes)>) {
    return detail::complement_static_order(modes, target);
  } else {
    return detail::complement_dynamic_order(modes, target);
  }
}

// complement(A) = complement(A, cosize(A)).
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto complement(Layout<S, D> const& layout) {
  return complement(layout, cosize(layout));
}

}  // namespace tessel
