// Tensor = engine + layout: tensor(c) is engine.at(layout(c)). Slicing with `_` gives a view
// (same memory, sub-layout); the layout algebra applies to tensors through their layouts.
//   auto A = make_tensor(make_gmem_ptr(a), make_shape(M, K), make_stride(lda, 1));  // (M,K)
//   auto row = A(3, _);                                                             // (K)
#pragma once

#include "../layout.hpp"
#include "engine.hpp"

namespace tessel {

template <class Engine, class LayoutT>
struct Tensor {
  using engine_type = Engine;
  using layout_type = LayoutT;
  using value_type = typename Engine::value_type;
  using memory_space = typename Engine::memory_space;

  Engine engine_;
  LayoutT layout_;

  TESSEL_HOST_DEVICE constexpr Engine& engine() { return engine_; }
  TESSEL_HOST_DEVICE constexpr Engine const& engine() const { return engine_; }
  TESSEL_HOST_DEVICE constexpr LayoutT const& layout() const { return layout_; }
  TESSEL_HOST_DEVICE constexpr auto shape() const { return layout_.shape(); }
  // A non-owning engine at the tensor's origin (the pointer, for pointer engines).
  TESSEL_HOST_DEVICE constexpr auto data() { return engine_.view(0); }
  TESSEL_HOST_DEVICE constexpr auto data() const { return engine_.view(0); }

  // tensor(c): the element at coordinate (or 1-D index) c; with `_` in c, the sub-tensor.
  template <class Coord>
  TESSEL_HOST_DEVICE constexpr decltype(auto) operator()(Coord const& c) {
    if constexpr (has_underscore<Coord>()) {
      return slice_view(*this, c);
    } else {
      return engine_.at(layout_(c));
    }
  }
  template <class Coord>
  TESSEL_HOST_DEVICE constexpr decltype(auto) operator()(Coord const& c) const {
    if constexpr (has_underscore<Coord>()) {
      return slice_view(*this, c);
    } else {
      return engine_.at(layout_(c));
    }
  }
  template <class C0, class C1, class... Cs>
  TESSEL_HOST_DEVICE constexpr decltype(auto) operator()(C0 const& c0, C1 const& c1, Cs const&... cs) {
    return (*this)(make_coord(c0, c1, cs...));
  }
  template <class C0, class C1, class... Cs>
  TESSEL_HOST_DEVICE constexpr decltype(auto) operator()(C0 const& c0, C1 const& c1,
                                                         Cs const&... cs) const {
    return (*this)(make_coord(c0, c1, cs...));
  }
  // tensor[i]: the element at 1-D index i of the layout's domain.
  template <Integral I>
  TESSEL_HOST_DEVICE constexpr decltype(auto) operator[](I i) {
    return engine_.at(layout_(i));
  }
  template <Integral I>
  TESSEL_HOST_DEVICE constexpr decltype(auto) operator[](I i) const {
    return engine_.at(layout_(i));
  }

 private:
  template <class Self, class Coord>
  TESSEL_HOST_DEVICE static constexpr auto slice_view(Self& self, Coord const& c) {
    if constexpr (is_layout_v<LayoutT>) {
      auto so = slice_and_offset(c, self.layout_);
      using Sub = std::remove_cvref_t<decltype(get<0>(so))>;
      return Tensor<decltype(self.engine_.view(0)), Sub>{self.engine_.view(get<1>(so)), get<0>(so)};
    } else {  // composed (swizzled): the offset stays under the swizzle, but for whole periods
      auto so = slice_and_offset(c, self.layout_.inner());
      using Outer = std::remove_cvref_t<decltype(self.layout_.outer())>;
      auto parts = split_under_swizzle<Outer>(get<1>(so));
      auto offset = self.layout_.offset() + get<0>(parts);
      using Sub = ComposedLayout<Outer, decltype(offset), std::remove_cvref_t<decltype(get<0>(so))>>;
      return Tensor<decltype(self.engine_.view(0)), Sub>{self.engine_.view(get<1>(parts)),
                                                         Sub{self.layout_.outer(), offset, get<0>(so)}};
    }
  }
};

template <class T>
struct is_tensor : std::false_type {};
template <class E, class L>
struct is_tensor<Tensor<E, L>> : std::true_type {};
template <class T>
inline constexpr bool is_tensor_v = is_tensor<std::remove_cvref_t<T>>::value;

// ---- construction -------------------------------------------------------------------------

// make_tensor(engine_or_pointer, layout); make_tensor(ptr, shape[, stride]) (column-major).
template <class Engine, class L>
  requires(is_layout_v<L> || is_composed_layout<std::remove_cvref_t<L>>::value)
TESSEL_HOST_DEVICE constexpr auto make_tensor(Engine const& engine, L const& layout) {
  return Tensor<Engine, L>{engine, layout};
}
template <class Engine, IntTuple S>
TESSEL_HOST_DEVICE constexpr auto make_tensor(Engine const& engine, S const& shape) {
  return make_tensor(engine, make_layout(shape));
}
template <class Engine, IntTuple S, class D>
TESSEL_HOST_DEVICE constexpr auto make_tensor(Engine const& engine, S const& shape, D const& stride) {
  return make_tensor(engine, make_layout(shape, stride));
}

// A register tensor that owns its storage: make_tensor<float>(Layout<Shape<_4,_2>>{}).
// The layout's cosize must be static (it sizes the array).
template <class T, class L>
  requires(is_layout_v<L>)
TESSEL_HOST_DEVICE constexpr auto make_tensor(L const& layout) {
  using Cosize = decltype(cosize(layout));
  static_assert(is_constant<Cosize>::value,
                "make_tensor<T>(layout): an owning (register) tensor needs a static cosize; "
                "use Int<N> shapes and strides");
  return Tensor<ArrayEngine<T, std::size_t(Cosize::value)>, L>{{}, layout};
}
template <class T, IntTuple S>
TESSEL_HOST_DEVICE constexpr auto make_tensor(S const& shape) {
  return make_tensor<T>(make_layout(shape));
}

// A register tensor with the same shape as x (a tensor or a layout), compact column-major.
template <class T, class X>
TESSEL_HOST_DEVICE constexpr auto make_fragment_like(X const& x) {
  return make_tensor<T>(make_layout(x.shape()));
}
template <class X>
  requires(is_tensor_v<X>)
TESSEL_HOST_DEVICE constexpr auto make_fragment_like(X const& x) {
  return make_fragment_like<typename X::value_type>(x);
}

// identity(c) == c for every coordinate c of `shape`, through any slice, tile or partition.
template <IntTuple S>
TESSEL_HOST_DEVICE constexpr auto make_identity_tensor(S const& shape) {
  return make_tensor(CoordinateEngine<S>{shape, 0}, make_layout(shape));
}

// ---- queries and the algebra on tensors ---------------------------------------------------

template <class E, class L>
TESSEL_HOST_DEVICE constexpr auto size(Tensor<E, L> const& t) {
  return size(t.layout());
}
template <class E, class L>
TESSEL_HOST_DEVICE constexpr auto shape(Tensor<E, L> const& t) {
  return t.shape();
}
template <class E, class L>
TESSEL_HOST_DEVICE constexpr auto rank(Tensor<E, L> const& t) {
  return rank(t.layout());
}
// size<I>(t): the size of mode I.
template <std::size_t I, std::size_t... Is, class E, class L>
TESSEL_HOST_DEVICE constexpr auto size(Tensor<E, L> const& t) {
  return product(get<I, Is...>(wrap(t.shape())));
}

// The same memory seen through f(layout): zipped_divide(tensor, tile), group_modes, ...
#define TESSEL_TENSOR_LAYOUT_OP(NAME)                                                        \
  template <class E, class L, class... Args>                                                 \
  TESSEL_HOST_DEVICE constexpr auto NAME(Tensor<E, L>& t, Args const&... args) {             \
    return make_tensor(t.data(), NAME(t.layout(), args...));                                 \
  }                                                                                          \
  template <class E, class L, class... Args>                                                 \
  TESSEL_HOST_DEVICE constexpr auto NAME(Tensor<E, L> const& t, Args const&... args) {       \
    return make_tensor(t.data(), NAME(t.layout(), args...));                                 \
  }
TESSEL_TENSOR_LAYOUT_OP(composition)
TESSEL_TENSOR_LAYOUT_OP(logical_divide)
TESSEL_TENSOR_LAYOUT_OP(zipped_divide)
TESSEL_TENSOR_LAYOUT_OP(tiled_divide)
TESSEL_TENSOR_LAYOUT_OP(flat_divide)
TESSEL_TENSOR_LAYOUT_OP(coalesce)
#undef TESSEL_TENSOR_LAYOUT_OP

template <std::size_t B, std::size_t E_, class E, class L>
TESSEL_HOST_DEVICE constexpr auto group_modes(Tensor<E, L>& t) {
  return make_tensor(t.data(), group_modes<B, E_>(t.layout()));
}

}  // namespace tessel
