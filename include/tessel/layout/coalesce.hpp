// coalesce: the same function with as few modes as possible; filter: coalesce after dropping
// the stride-0 modes. Decisions that depend on values are taken only where the values are
// static, so a dynamic layout may keep modes a static one would merge (same function).
#pragma once

#include "layout.hpp"

namespace tessel {

namespace detail {
// Layout from a flat tuple of (shape, stride) pairs: () -> 1:0, one pair -> s:d.
template <class Modes>
TESSEL_HOST_DEVICE constexpr auto layout_from_modes(Modes const& modes) {
  if constexpr (tuple_size_v<Modes> == 0) {
    return make_layout(C<1>{}, C<0>{});
  } else if constexpr (tuple_size_v<Modes> == 1) {
    return make_layout(get<0, 0>(modes), get<0, 1>(modes));
  } else {
    return make_layout(transform(modes, [](auto const& m) { return get<0>(m); }),
                       transform(modes, [](auto const& m) { return get<1>(m); }));
  }
}

// The flat (shape, stride) pairs of a layout.
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto flat_modes(Layout<S, D> const& l) {
  return transform(flatten_to_tuple(l.shape()), flatten_to_tuple(l.stride()),
                   [](auto s, auto d) { return make_tuple(s, d); });
}

template <class Modes>
TESSEL_HOST_DEVICE constexpr auto drop_static_unit_modes(Modes const& modes) {
  return fold(modes, tuple<>{}, [](auto const& acc, auto const& m) {
    if constexpr (is_const_v<1, decltype(get<0>(m))>) {
      return acc;
    } else {
      return append(acc, m);
    }
  });
}
}  // namespace detail

// coalesce((2,(1,6)):(1,(7,2))) -> 12:1; coalesce((4,3):(1,5)) stays (4,3):(1,5).
// Rules over the flattened modes, left to right: a size-1 mode disappears; a mode whose
// stride equals the previous mode's size * stride extends that mode. Where the values are
// static this folds at compile time; a fully dynamic layout keeps its rank (see below).
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto coalesce_static_decisions(Layout<S, D> const& layout);

namespace detail {
template <class T>
struct all_dynamic_t : std::bool_constant<!is_constant<T>::value> {};
template <class... Ts>
struct all_dynamic_t<tuple<Ts...>> : std::bool_constant<(all_dynamic_t<Ts>::value && ...)> {};
template <class T>
inline constexpr bool all_dynamic = all_dynamic_t<std::remove_cvref_t<T>>::value;

// Fully dynamic layouts are coalesced at run time with the same rules; the rank cannot change,
// so the merged modes are moved to the end and the freed modes in front become 1:0.
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto coalesce_dynamic(Layout<S, D> const& layout) {
  auto modes = flat_modes(layout);
  constexpr std::size_t R = tuple_size_v<decltype(modes)>;
  using T = decltype(fold(modes, 0, [](auto acc, auto const& m) { return acc + get<0>(m) * get<1>(m); }));
  T s[R] = {}, d[R] = {};
  T in_s[R] = {}, in_d[R] = {};
  [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    ((in_s[Is] = get<Is, 0>(modes), in_d[Is] = get<Is, 1>(modes)), ...);
  }(std::make_index_sequence<R>{});
  std::size_t live = 0;
  for (std::size_t i = 0; i < R; ++i) {
    if (in_s[i] == 1) continue;
    if (live > 0 && s[live - 1] * d[live - 1] == in_d[i]) {
      s[live - 1] *= in_s[i];
    } else {
      s[live] = in_s[i], d[live] = in_d[i], ++live;
    }
  }
  if (live == 0) s[0] = 1, d[0] = 0, live = 1;
  T out_s[R] = {}, out_d[R] = {};
  for (std::size_t i = 0; i < R; ++i) {
    bool pad = i < R - live;
    out_s[i] = pad ? T(1) : s[i - (R - live)];
    out_d[i] = pad ? T(0) : d[i - (R - live)];
  }
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_layout(make_shape(out_s[Is]...), make_stride(out_d[Is]...));
  }(std::make_index_sequence<R>{});
}
}  // namespace detail

template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto coalesce(Layout<S, D> const& layout) {
  if constexpr (is_tuple_v<S> && detail::all_dynamic<S> && detail::all_dynamic<D>) {
    return detail::coalesce_dynamic(layout);
  } else {
    return coalesce_static_decisions(layout);
  }
}

// Merges only where the values that decide it are static (mixed static/dynamic layouts).
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto coalesce_static_decisions(Layout<S, D> const& layout) {
  auto merged = fold(detail::flat_modes(layout), tuple<>{}, [](auto const& acc, auto const& m) {
    if constexpr (is_const_v<1, decltype(get<0>(m))>) {
      return acc;
    } else if constexpr (tuple_size_v<decltype(acc)> == 0) {
      return make_tuple(m);
    } else {
      constexpr std::size_t L = tuple_size_v<decltype(acc)> - 1;
      auto prev = get<L>(acc);
      using PS = decltype(get<0>(prev));
      using PD = decltype(get<1>(prev));
      using CD = decltype(get<1>(m));
      if constexpr (is_static_v<PS> && is_static_v<PD> && is_static_v<CD>) {
        if constexpr (std::remove_cvref_t<PS>::value * std::remove_cvref_t<PD>::value ==
                      std::remove_cvref_t<CD>::value) {
          return replace<L>(acc, make_tuple(get<0>(prev) * get<0>(m), get<1>(prev)));
        } else {
          return append(acc, m);
        }
      } else {
        return append(acc, m);
      }
    }
  });
  return detail::layout_from_modes(merged);
}

// Coalesces each mode i < rank(profile) on its own (recursively by the profile's nesting),
// keeping the rank: coalesce(((2,2),(3,4)):((1,2),(8,24)), (1,1)) -> (4,12):(1,8).
template <class S, class D, class Profile>
TESSEL_HOST_DEVICE constexpr auto coalesce(Layout<S, D> const& layout, Profile const& profile) {
  if constexpr (is_tuple_v<Profile>) {
    constexpr std::size_t R = tuple_size_v<Profile>;
    static_assert(R <= rank_t<S>::value, "coalesce: the profile is longer than the layout");
    auto modes = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_tuple(coalesce(get<Is>(layout), get<Is>(profile))...);
    }(std::make_index_sequence<R>{});
    auto rest = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
      return make_tuple(get<R + Is>(layout)...);
    }(std::make_index_sequence<rank_t<S>::value - R>{});
    auto all = tuple_cat(modes, rest);
    return make_layout(transform(all, [](auto const& l) { return l.shape(); }),
                       transform(all, [](auto const& l) { return l.stride(); }));
  } else {
    return coalesce(layout);
  }
}

// Stride-0 modes get size 1 (a dynamic zero stride gives a dynamic size of 1).
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto filter_zeros(Layout<S, D> const& layout) {
  auto fix = [](auto const& self, auto const& s, auto const& d) {
    if constexpr (is_tuple_v<decltype(s)>) {
      return transform(s, d, [&](auto const& x, auto const& y) { return self(self, x, y); });
    } else if constexpr (is_const_v<0, decltype(d)>) {
      return C<1>{};
    } else if constexpr (is_static_v<decltype(d)>) {
      return s;
    } else {
      return select(d == 0, C<1>{}, s);
    }
  };
  return make_layout(fix(fix, layout.shape(), layout.stride()), layout.stride());
}

// filter((4,2,3):(1,0,5)) -> (4,3):(1,5): the layout without its broadcast modes, coalesced.
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto filter(Layout<S, D> const& layout) {
  return coalesce(filter_zeros(layout));
}

}  // namespace tessel
