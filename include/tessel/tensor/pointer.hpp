// Pointers tagged with the memory they point into. The tag travels with the tensor so that
// copies can pick the right instruction (cp.async needs global -> shared, ldmatrix shared ->
// registers) and so that mixing them up is a compile error, not a wrong answer.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../layout/config.hpp"

namespace tessel {

struct GlobalMemory {};    // gmem: cudaMalloc'd or host memory in host code
struct SharedMemory {};    // smem: __shared__
struct RegisterMemory {};  // rmem: a thread's own array (a fragment)

// make_gmem_ptr(p) + 4 points 4 elements further, still tagged as global memory.
template <class T, class Space>
struct Pointer {
  using value_type = std::remove_cv_t<T>;
  using element_type = T;
  using memory_space = Space;

  T* ptr = nullptr;

  TESSEL_HOST_DEVICE constexpr T* get() const { return ptr; }
  TESSEL_HOST_DEVICE constexpr T& operator[](std::ptrdiff_t i) const { return ptr[i]; }
  TESSEL_HOST_DEVICE constexpr T& operator*() const { return *ptr; }
  TESSEL_HOST_DEVICE constexpr Pointer operator+(std::ptrdiff_t i) const { return {ptr + i}; }
  // The engine interface shared with owning arrays and coordinate engines (engine.hpp).
  TESSEL_HOST_DEVICE constexpr T& at(std::ptrdiff_t offset) const { return ptr[offset]; }
  TESSEL_HOST_DEVICE constexpr Pointer view(std::ptrdiff_t offset) const { return {ptr + offset}; }
};

template <class T>
TESSEL_HOST_DEVICE constexpr Pointer<T, GlobalMemory> make_gmem_ptr(T* p) {
  return {p};
}
template <class T>
TESSEL_HOST_DEVICE constexpr Pointer<T, SharedMemory> make_smem_ptr(T* p) {
  return {p};
}
template <class T>
TESSEL_HOST_DEVICE constexpr Pointer<T, RegisterMemory> make_rmem_ptr(T* p) {
  return {p};
}

template <class P>
struct is_pointer_engine : std::false_type {};
template <class T, class Space>
struct is_pointer_engine<Pointer<T, Space>> : std::true_type {};

}  // namespace tessel
