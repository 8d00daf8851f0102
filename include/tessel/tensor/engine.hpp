// What a tensor reads through: a tagged pointer (pointer.hpp), an owning register array (a
// fragment), or a coordinate engine (the identity tensor used for predicates). Each provides
// at(offset) and view(offset) -> a non-owning engine starting at offset.
#pragma once

#include "../layout/int_tuple.hpp"
#include "pointer.hpp"

namespace tessel {

// N elements owned by value: register fragments. view() hands out a register pointer.
template <class T, std::size_t N>
struct ArrayEngine {
  using value_type = T;
  using element_type = T;
  using memory_space = RegisterMemory;

  T data[N];

  TESSEL_HOST_DEVICE constexpr T& at(std::ptrdiff_t offset) { return data[offset]; }
  TESSEL_HOST_DEVICE constexpr T const& at(std::ptrdiff_t offset) const { return data[offset]; }
  TESSEL_HOST_DEVICE constexpr auto view(std::ptrdiff_t offset) { return make_rmem_ptr(data + offset); }
  TESSEL_HOST_DEVICE constexpr auto view(std::ptrdiff_t offset) const {
    return make_rmem_ptr(static_cast<T const*>(data) + offset);
  }
};

// Offset o of a compact column-major layout of `Shape` reads as the coordinate of o in that
// shape: make_identity_tensor((M,N)) gives (m,n) at (m,n), and every slice, tile or partition
// of it still gives the original coordinates, which is what edge predicates compare.
template <class Shape>
struct CoordinateEngine {
  using memory_space = RegisterMemory;
  Shape shape;
  std::ptrdiff_t base = 0;

  TESSEL_HOST_DEVICE constexpr auto at(std::ptrdiff_t offset) const {
    return idx2crd(base + offset, shape);
  }
  TESSEL_HOST_DEVICE constexpr CoordinateEngine view(std::ptrdiff_t offset) const {
    return {shape, base + offset};
  }
  using value_type = decltype(idx2crd(std::ptrdiff_t{}, std::declval<Shape>()));
  using element_type = value_type;
};

}  // namespace tessel
