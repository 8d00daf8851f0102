// composition(A, B) = A ∘ B: the layout whose i-th offset is A(B(i)), with B's shape.
// composition((6,2):(8,2), (4,3):(3,1)) -> ((2,2),3):((24,2),8).
//
// Admissibility (seed 002): B's stride must divide or be a multiple of the sizes of A's modes
// it steps over ("stride divisibility"), and where B's size spans more than one of A's modes
// the mode it leaves must divide B's remaining size ("shape divisibility"). Static violations
// fail to compile with that name; dynamic ones raise layout_error. A's last mode is
// unbounded, so B may run past size(A): A∘B(i) == A(B(i)) there too.
#pragma once

#include "coalesce.hpp"

namespace tessel {

namespace detail {
// One of A's modes (s:d) met by the walk of B = n:r. State: (modes taken, n left, r left,
// usage), where usage records per mode of A the largest digit B reaches in it: (count-1)*r.
template <class State, class Mode>
TESSEL_HOST_DEVICE constexpr auto compose_step(State const& state, Mode const& mode) {
  auto const& taken = get<0>(state);
  auto n = get<1>(state);
  auto r = get<2>(state);
  auto const& usage = get<3>(state);
  auto s = get<0>(mode);
  auto d = get<1>(mode);
  using N = decltype(n);
  using R = decltype(r);
  using S = decltype(s);
  if constexpr (is_static_v<N> && is_static_v<R> && is_static_v<S>) {
    constexpr auto nv = N::value, rv = R::value, sv = S::value;
    if constexpr (nv == 1) {
      return make_tuple(taken, n, r, append(usage, C<0>{}));  // B is exhausted
    } else if constexpr (rv >= sv) {
      static_assert(rv % sv == 0,
                    "composition: stride divisibility violated: B's stride is larger than a "
                    "mode of A but not a multiple of its size");
      return make_tuple(taken, n, C<rv / sv>{}, append(usage, C<0>{}));
    } else {
      static_assert(sv % rv == 0,
                    "composition: stride divisibility violated: B's stride does not divide "
                    "the size of the mode of A it starts in");
      constexpr auto m = sv / rv;  // elements of this mode B visits
      if constexpr (nv <= m) {
        return make_tuple(append(taken, make_tuple(n, r * d)), C<1>{}, C<1>{},
                          append(usage, C<(nv - 1) * rv>{}));
      } else {
        static_assert(nv % m == 0,
                      "composition: shape divisibility violated: B spans several modes of A "
                      "but the part it takes from one mode does not divide B's size");
        return make_tuple(append(taken, make_tuple(C<m>{}, r * d)), C<nv / m>{}, C<1>{},
                          append(usage, C<(m - 1) * rv>{}));
      }
    }
  } else {
    using T = decltype(n * r * s * d + 0);
    T tn = n, tr = r, ts = s, td = d;
    T out_s = 1, out_d = 0, used = 0;
    if (tn == 1) {
      // exhausted: emit an empty mode
    } else if (tr == 0) {
      out_s = tn, out_d = 0, tn = 1;
    } else if (tr >= ts) {
      if (tr % ts != 0) {
        layout_error("composition: stride divisibility violated: B's stride is larger than a "
                     "mode of A but not a multiple of its size (stride, size)",
                     tr, ts);
      }
      tr /= ts;
    } else {
      if (ts % tr != 0) {
        layout_error("composition: stride divisibility violated: B's stride does not divide "
                     "the size of the mode of A it starts in (stride, size)",
                     tr, ts);
      }
      T m = ts / tr;
      if (tn <= m) {
        used = (tn - 1) * tr;
        out_s = tn, out_d = tr * td, tn = 1, tr = 1;
      } else {
        if (tn % m != 0) {
          layout_error("composition: shape divisibility violated: B spans several modes of A "
                       "but the part it takes from one mode does not divide B's size (part, "
                       "size)",
                       m, tn);
        }
        used = (m - 1) * tr;
        out_s = m, out_d = tr * td, tn /= m, tr = 1;
      }
    }
    return make_tuple(append(taken, make_tuple(out_s, out_d)), tn, tr, append(usage, used));
  }
}

// coalesce(A), except that a last mode of size 1 counts as size 2 so that its stride survives:
// B may run past size(A), and A's own last mode is what continues there (as CuTe does).
template <class S, class D>
TESSEL_HOST_DEVICE constexpr auto coalesce_keep_last(Layout<S, D> const& lhs) {
  auto fs = flatten_to_tuple(lhs.shape());
  constexpr std::size_t R = tuple_size_v<decltype(fs)>;
  auto last = get<R - 1>(fs);
  auto widened = [&] {
    if constexpr (is_const_v<1, decltype(last)>) {
      return C<2>{};
    } else if constexpr (is_static_v<decltype(last)>) {
      return last;
    } else {
      return select(last == 1, 2, last);
    }
  }();
  return coalesce(make_layout(replace<R - 1>(fs, widened), flatten_to_tuple(lhs.stride())));
}

// A ∘ (n:r) for an integral n and r, and the usage of the modes of A (coalesced) but the last.
template <class S, class D, class N, class R>
TESSEL_HOST_DEVICE constexpr auto compose_integral(Layout<S, D> const& lhs, N n, R r) {
  auto a = coalesce_keep_last(lhs);
  auto modes = flat_modes(a);
  constexpr std::size_t K = tuple_size_v<decltype(modes)>;
  if constexpr (is_const_v<0, R>) {
    return make_tuple(make_layout(n, C<0>{}), repeat<K - 1>(C<0>{}));
  } else if constexpr (K == 1) {  // A is a single mode s:d: B just scales its stride
    return make_tuple(make_layout(n, r * get<0, 1>(modes)), tuple<>{});
  } else {
    auto state = fold(take<0, K - 1>(modes), make_tuple(tuple<>{}, n, r, tuple<>{}),
                      [](auto const& st, auto const& m) { return compose_step(st, m); });
    auto last = get<K - 1>(modes);
    auto all = append(get<0>(state), make_tuple(get<1>(state), get<2>(state) * get<1>(last)));
    return make_tuple(layout_from_modes(drop_static_unit_modes(all)), get<3>(state));
  }
}

// B's modes are composed with A one by one; their sum is A∘B only if, inside every mode of A
// but the last, the digits they reach add up without carrying into the next mode. Otherwise
// (B overlaps itself, or spills across A's mode boundaries) A∘B is not a layout.
template <std::size_t K, class Sizes, class Usages>
TESSEL_HOST_DEVICE constexpr void check_mode_no_carry(Sizes const& sizes, Usages const& usages) {
  auto total = fold(usages, C<0>{}, [](auto acc, auto const& u) { return acc + get<K>(u); });
  auto limit = get<K>(sizes) - C<1>{};
  if constexpr (is_static_v<decltype(total)> && is_static_v<decltype(limit)>) {
    static_assert(decltype(total)::value <= decltype(limit)::value,
                  "composition: B's modes overlap inside a mode of A (their offsets carry into "
                  "the next mode), so A o B is not a layout");
  } else {
    if (total > limit) {
      layout_error("composition: B's modes overlap inside a mode of A (their offsets carry into "
                   "the next mode), so A o B is not a layout (digit, mode size)",
                   total, limit + 1);
    }
  }
}

template <class Sizes, class Usages, std::size_t... Ks>
TESSEL_HOST_DEVICE constexpr void check_modes_no_carry(Sizes const& sizes, Usages const& usages,
                                                       std::index_sequence<Ks...>) {
  (check_mode_no_carry<Ks>(sizes, usages), ...);
}

template <class S, class D, class Usages>
TESSEL_HOST_DEVICE constexpr void check_no_carry(Layout<S, D> const& lhs, Usages const& usages) {
  auto sizes = transform(flat_modes(coalesce_keep_last(lhs)), [](auto const& m) { return get<0>(m); });
  constexpr std::size_t K = tuple_size_v<decltype(sizes)>;
  check_modes_no_carry(sizes, usages, std::make_index_sequence<K - 1>{});
}

// A layout from a tuple of layouts: each becomes one mode.
template <class Layouts>
TESSEL_HOST_DEVICE constexpr auto layout_of_modes(Layouts const& ls) {
  return make_layout(transform(ls, [](auto const& l) { return l.shape(); }),
                     transform(ls, [](auto const& l) { return l.stride(); }));
}
}  // namespace detail

namespace detail {
template <class SA, class DA, class SB, class DB>
TESSEL_HOST_DEVICE constexpr auto compose_modes(Layout<SA, DA> const& a, SB const& s, DB const& d) {
  if constexpr (is_tuple_v<SB>) {
    return layout_of_modes(
        transform(s, d, [&](auto const& x, auto const& y) { return compose_modes(a, x, y); }));
  } else {
    return get<0>(compose_integral(a, s, d));
  }
}
}  // namespace detail

// A ∘ B for a layout B: distributes over B's modes, so the result has B's shape.
template <class SA, class DA, class SB, class DB>
TESSEL_HOST_DEVICE constexpr auto composition(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  if constexpr (is_tuple_v<SB>) {
    detail::check_no_carry(a, transform(detail::flat_modes(b), [&](auto const& m) {
                             return get<1>(detail::compose_integral(a, get<0>(m), get<1>(m)));
                           }));
  }
  return detail::compose_modes(a, b.shape(), b.stride());
}

// A ∘ N for an integer N: A ∘ make_layout(N), the first N offsets (N:1; a static 1 is 1:0).
template <class SA, class DA, Integral N>
TESSEL_HOST_DEVICE constexpr auto composition(Layout<SA, DA> const& a, N const& n) {
  return composition(a, make_layout(n));
}

// By-mode composition with a tiler [B0, B1, ...] (a tuple of layouts, integers, `_` or
// nested tilers): mode i of A is composed with Bi; A's modes past the tiler stay.
// composition((12,(4,8)):(59,(13,1)), [3:4, 8:2]) -> (3,(2,4)):(236,(26,1)).
template <class SA, class DA, class... Ts>
TESSEL_HOST_DEVICE constexpr auto composition(Layout<SA, DA> const& a, tuple<Ts...> const& tiler) {
  constexpr std::size_t R = sizeof...(Ts);
  static_assert(R <= rank_t<SA>::value,
                "composition: the tiler has more modes than the layout it tiles");
  auto tiled = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple([&](auto const& mode, auto const& t) {
      if constexpr (is_underscore<decltype(t)>::value) {
        return mode;
      } else {
        return composition(mode, t);
      }
    }(get<Is>(a), get<Is>(tiler))...);
  }(std::make_index_sequence<R>{});
  auto rest = [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple(get<R + Is>(a)...);
  }(std::make_index_sequence<rank_t<SA>::value - R>{});
  return detail::layout_of_modes(tuple_cat(tiled, rest));
}

}  // namespace tessel
