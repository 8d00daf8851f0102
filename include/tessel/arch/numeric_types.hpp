// The element and storage types the sm80 instructions move.
//
//   Half, BFloat16   16-bit floating point. Under CUDA (nvcc, host or device pass) they are
//                    __half and __nv_bfloat16; in a host-only build (g++, no CUDA headers) they
//                    are 2-byte placeholders that carry the bits, so that traits and layouts
//                    that name them compile and can be tested anywhere.
//   UintBytes<N>     an unsigned storage unit of N = 1, 2, 4, 8 or 16 bytes, aligned to N: the
//                    "register" a cp.async of N bytes moves. UintBytes<16> is Uint128.
//
// A host-only translation unit and a CUDA one see different Half types; do not pass them
// across such a boundary (the bits are the same: memcpy them).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace tessel {

#if defined(__CUDACC__)
using Half = __half;
using BFloat16 = __nv_bfloat16;
#else
// IEEE binary16 bits (1 sign, 5 exponent, 10 mantissa); storage only, no arithmetic.
struct Half {
  std::uint16_t bits;
};
// bfloat16 bits (1 sign, 8 exponent, 7 mantissa): the upper half of an IEEE float.
struct BFloat16 {
  std::uint16_t bits;
};
#endif
static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit types must be 2 bytes");

// 16 bytes, 16-byte aligned: the unit of cp.async.cg, of one ldmatrix row, of a 128-bit load.
struct alignas(16) Uint128 {
  std::uint64_t lo;
  std::uint64_t hi;
};

namespace detail {
template <int Bytes>
struct UintBytesImpl {
  static_assert(Bytes == 1 || Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16,
                "UintBytes<N>: N must be 1, 2, 4, 8 or 16 bytes");
};
template <>
struct UintBytesImpl<1> {
  using type = std::uint8_t;
};
template <>
struct UintBytesImpl<2> {
  using type = std::uint16_t;
};
template <>
struct UintBytesImpl<4> {
  using type = std::uint32_t;
};
template <>
struct UintBytesImpl<8> {
  using type = std::uint64_t;
};
template <>
struct UintBytesImpl<16> {
  using type = Uint128;
};
}  // namespace detail

// UintBytes<4> == std::uint32_t, UintBytes<16> == Uint128.
template <int Bytes>
using UintBytes = typename detail::UintBytesImpl<Bytes>::type;

// bits_of<float> == 32, bits_of<Half> == 16, bits_of<Uint128> == 128.
template <class T>
inline constexpr int bits_of = 8 * static_cast<int>(sizeof(T));

}  // namespace tessel
