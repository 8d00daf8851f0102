// Swizzle<B,M,S>: an XOR permutation of offsets that spreads a tile over the shared-memory
// banks. Offsets are read as [... | yyy (B bits) | ... | zzz (B bits) | M bits]: the B bits
// at position M+S ("yyy", the row) are XORed into the B bits at position M ("zzz", the
// column of 2^M-element units). Swizzle<3,3,3> on fp16: units of 8 halves (16 bytes), 8
// units per 128-byte row, the row index (bits 6..8) XORed into the unit index (bits 3..5).
#pragma once

#include "integer.hpp"

namespace tessel {

template <int B, int M, int S>
struct Swizzle {
  static_assert(B >= 0, "Swizzle: B (the number of XOR bits) must be >= 0");
  static_assert(M >= 0, "Swizzle: M (the number of unchanged low bits) must be >= 0");
  static_assert((S < 0 ? -S : S) >= B,
                "Swizzle: |S| must be >= B, or the XORed bits overlap the bits they come from");
  static constexpr int num_bits = B;
  static constexpr int num_base = M;
  static constexpr int num_shift = S;
  // The B bits that are read (yyy) and written (zzz).
  static constexpr long long bit_mask = (1LL << B) - 1;
  static constexpr long long yyy_mask = bit_mask << (M + (S > 0 ? S : 0));
  static constexpr long long zzz_mask = bit_mask << (M - (S < 0 ? S : 0));

  // Swizzle<3,3,3>{}(72) == 72 ^ ((72 & 0b111000000) >> 3) == 72 ^ 8 == 64.
  template <Integral T>
  TESSEL_HOST_DEVICE constexpr auto operator()(T offset) const {
    if constexpr (is_constant<T>::value) {
      return C<apply(T::value)>{};
    } else {
      return apply(offset);
    }
  }

  template <class T>
  TESSEL_HOST_DEVICE static constexpr T apply(T offset) {
    if constexpr (S >= 0) {
      return offset ^ T((offset & T(yyy_mask)) >> S);
    } else {
      return offset ^ T((offset & T(yyy_mask)) << -S);
    }
  }

  // Smallest domain it permutes: offsets below 2^(M + B + |S|) stay below it.
  static constexpr long long period = 1LL << (M + B + (S < 0 ? -S : S));
};

template <class T>
struct is_swizzle : std::false_type {};
template <int B, int M, int S>
struct is_swizzle<Swizzle<B, M, S>> : std::true_type {};
template <class T>
inline constexpr bool is_swizzle_v = is_swizzle<std::remove_cvref_t<T>>::value;

}  // namespace tessel
