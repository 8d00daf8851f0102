// A constexpr tuple usable in host and device code, and the handful of algorithms the
// algebra is written with: transform, fold, for_each, append, take, ... Static elements
// (Int<N>) fold at compile time; they occupy a byte but are never read.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "integer.hpp"

namespace tessel {

namespace detail {
template <std::size_t I, class T>
struct TupleLeaf {
  T value;  // (no [[no_unique_address]]: GCC 12 miscompiles it in constant evaluation)
};

template <class Indices, class... Ts>
struct TupleStorage;
template <std::size_t... Is, class... Ts>
struct TupleStorage<std::index_sequence<Is...>, Ts...> : TupleLeaf<Is, Ts>... {
  constexpr TupleStorage() = default;
  TESSEL_HOST_DEVICE constexpr explicit TupleStorage(Ts const&... ts)
    requires(sizeof...(Ts) > 0)
      : TupleLeaf<Is, Ts>{ts}... {}
};
}  // namespace detail

// tuple<Int<4>, int>{{}, 6}: a shape whose first mode is static.
template <class... Ts>
struct tuple : detail::TupleStorage<std::index_sequence_for<Ts...>, Ts...> {
  constexpr tuple() = default;
  TESSEL_HOST_DEVICE constexpr tuple(Ts const&... ts)  // NOLINT: implicit like std::tuple
    requires(sizeof...(Ts) > 0)
      : detail::TupleStorage<std::index_sequence_for<Ts...>, Ts...>(ts...) {}
};
template <class... Ts>
tuple(Ts...) -> tuple<Ts...>;

template <class T>
struct is_tuple : std::false_type {};
template <class... Ts>
struct is_tuple<tuple<Ts...>> : std::true_type {};
template <class T>
inline constexpr bool is_tuple_v = is_tuple<std::remove_cvref_t<T>>::value;

template <class T>
struct tuple_size;
template <class... Ts>
struct tuple_size<tuple<Ts...>> : std::integral_constant<std::size_t, sizeof...(Ts)> {};
template <class T>
inline constexpr std::size_t tuple_size_v = tuple_size<std::remove_cvref_t<T>>::value;

namespace detail {
// The leaf's type is deduced from the base class that holds index I.
template <std::size_t I, class T>
TESSEL_HOST_DEVICE constexpr T& leaf(TupleLeaf<I, T>& l) {
  return l.value;
}
template <std::size_t I, class T>
TESSEL_HOST_DEVICE constexpr T const& leaf(TupleLeaf<I, T> const& l) {
  return l.value;
}
}  // namespace detail

template <std::size_t I, class... Ts>
TESSEL_HOST_DEVICE constexpr auto& get(tuple<Ts...>& t) {
  static_assert(I < sizeof...(Ts), "get: index past the rank of the tuple");
  return detail::leaf<I>(t);
}
template <std::size_t I, class... Ts>
TESSEL_HOST_DEVICE constexpr auto const& get(tuple<Ts...> const& t) {
  static_assert(I < sizeof...(Ts), "get: index past the rank of the tuple");
  return detail::leaf<I>(t);
}
// get on an integer: an integer is its own mode 0 (so rank-1 code paths work on both).
template <std::size_t I, Integral T>
  requires(I == 0)
TESSEL_HOST_DEVICE constexpr T get(T t) {
  return t;
}
// Nested get: get<1, 0>(t) == get<0>(get<1>(t)).
template <std::size_t I0, std::size_t I1, std::size_t... Is, class T>
TESSEL_HOST_DEVICE constexpr auto get(T const& t) {
  return get<I1, Is...>(get<I0>(t));
}

template <class... Ts>
TESSEL_HOST_DEVICE constexpr tuple<Ts...> make_tuple(Ts const&... ts) {
  return tuple<Ts...>(ts...);
}

// ---- algorithms over the top-level elements ----------------------------------------------

// transform(t, f) -> (f(t0), f(t1), ...); transform(a, b, f) -> (f(a0,b0), ...).
template <class T, class F>
TESSEL_HOST_DEVICE constexpr auto transform(T const& t, F&& f) {
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple(f(get<Is>(t))...);
  }(std::make_index_sequence<tuple_size_v<T>>{});
}
template <class A, class B, class F>
TESSEL_HOST_DEVICE constexpr auto transform(A const& a, B const& b, F&& f) {
  static_assert(tuple_size_v<A> == tuple_size_v<B>, "transform: the tuples differ in rank");
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple(f(get<Is>(a), get<Is>(b))...);
  }(std::make_index_sequence<tuple_size_v<A>>{});
}

template <class T, class F>
TESSEL_HOST_DEVICE constexpr void for_each(T const& t, F&& f) {
  [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    (f(get<Is>(t)), ...);
  }(std::make_index_sequence<tuple_size_v<T>>{});
}

namespace detail {
template <std::size_t I, class T, class V, class F>
TESSEL_HOST_DEVICE constexpr auto fold_from(T const& t, V const& acc, F& f) {
  if constexpr (I == tuple_size_v<T>) {
    return acc;
  } else {
    return fold_from<I + 1>(t, f(acc, get<I>(t)), f);
  }
}
}  // namespace detail

// Left fold: fold((a,b,c), init, f) == f(f(f(init,a),b),c).
template <class T, class V, class F>
TESSEL_HOST_DEVICE constexpr auto fold(T const& t, V const& init, F&& f) {
  return detail::fold_from<0>(t, init, f);
}

// Elements [B, E) as a tuple.
template <std::size_t B, std::size_t E, class T>
TESSEL_HOST_DEVICE constexpr auto take(T const& t) {
  static_assert(B <= E && E <= tuple_size_v<T>, "take: range out of the tuple");
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple(get<B + Is>(t)...);
  }(std::make_index_sequence<E - B>{});
}

template <class... As, class... Bs>
TESSEL_HOST_DEVICE constexpr auto tuple_cat(tuple<As...> const& a, tuple<Bs...> const& b) {
  return [&]<std::size_t... Is, std::size_t... Js>(std::index_sequence<Is...>,
                                                 std::index_sequence<Js...>) {
    return make_tuple(get<Is>(a)..., get<Js>(b)...);
  }(std::index_sequence_for<As...>{}, std::index_sequence_for<Bs...>{});
}
template <class A, class B, class... Rest>
TESSEL_HOST_DEVICE constexpr auto tuple_cat(A const& a, B const& b, Rest const&... rest) {
  return tuple_cat(tuple_cat(a, b), rest...);
}
TESSEL_HOST_DEVICE constexpr auto tuple_cat() { return tuple<>{}; }
template <class A>
TESSEL_HOST_DEVICE constexpr auto tuple_cat(A const& a) {
  return a;
}

// A non-tuple is wrapped into a tuple of rank 1; a tuple stays.
template <class T>
TESSEL_HOST_DEVICE constexpr auto wrap(T const& t) {
  if constexpr (is_tuple_v<T>) {
    return t;
  } else {
    return make_tuple(t);
  }
}
// A tuple of rank 1 is replaced by its element (recursively); anything else stays.
template <class T>
TESSEL_HOST_DEVICE constexpr auto unwrap(T const& t) {
  if constexpr (is_tuple_v<T>) {
    if constexpr (tuple_size_v<T> == 1) {
      return unwrap(get<0>(t));
    } else {
      return t;
    }
  } else {
    return t;
  }
}

template <class T, class X>
TESSEL_HOST_DEVICE constexpr auto append(T const& t, X const& x) {
  return tuple_cat(wrap(t), make_tuple(x));
}
template <class T, class X>
TESSEL_HOST_DEVICE constexpr auto prepend(T const& t, X const& x) {
  return tuple_cat(make_tuple(x), wrap(t));
}

// Replaces element I.
template <std::size_t I, class T, class X>
TESSEL_HOST_DEVICE constexpr auto replace(T const& t, X const& x) {
  return tuple_cat(take<0, I>(t), make_tuple(x), take<I + 1, tuple_size_v<T>>(t));
}

// A tuple of N copies of x.
template <std::size_t N, class X>
TESSEL_HOST_DEVICE constexpr auto repeat(X const& x) {
  return [&]<std::size_t... Is>(std::index_sequence<Is...>) {
    return make_tuple(((void)Is, x)...);
  }(std::make_index_sequence<N>{});
}

// Pads a tuple (or an integer, as a rank-1 tuple) with x up to rank N.
template <std::size_t N, class T, class X>
TESSEL_HOST_DEVICE constexpr auto append_to_rank(T const& t, X const& x) {
  auto w = wrap(t);
  static_assert(tuple_size_v<decltype(w)> <= N, "append_to_rank: tuple already longer");
  return tuple_cat(w, repeat<N - tuple_size_v<decltype(w)>>(x));
}

// Keeps the elements for which the predicate type Keep<T>::value holds (a static choice).
template <template <class> class Keep, class T>
TESSEL_HOST_DEVICE constexpr auto filter_tuple(T const& t) {
  return fold(t, tuple<>{}, [](auto const& acc, auto const& x) {
    if constexpr (Keep<std::remove_cvref_t<decltype(x)>>::value) {
      return append(acc, x);
    } else {
      return acc;
    }
  });
}

}  // namespace tessel
