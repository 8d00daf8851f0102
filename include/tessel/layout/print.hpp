// Text forms in CuTe's notation (host only): "(4,2):(1,4)", "Sw<3,3,3> o 0 o (8,64):(64,1)".
// Static and dynamic integers print alike, so the text matches tessel-layout's.
#pragma once

#include <ostream>
#include <sstream>
#include <string>

#include "composed_layout.hpp"

namespace tessel {

template <class T>
  requires(IntTuple<T>)
void print_int_tuple(std::ostream& os, T const& t) {
  if constexpr (is_tuple_v<T>) {
    os << '(';
    bool first = true;
    for_each(t, [&](auto const& x) {
      if (!first) os << ',';
      first = false;
      print_int_tuple(os, x);
    });
    os << ')';
  } else {
    os << static_cast<long long>(t);
  }
}

template <class S, class D>
std::ostream& operator<<(std::ostream& os, Layout<S, D> const& l) {
  print_int_tuple(os, l.shape());
  os << ':';
  print_int_tuple(os, l.stride());
  return os;
}

template <int B, int M, int S>
std::ostream& operator<<(std::ostream& os, Swizzle<B, M, S> const&) {
  return os << "Sw<" << B << ',' << M << ',' << S << '>';
}

template <class A, class O, class L>
std::ostream& operator<<(std::ostream& os, ComposedLayout<A, O, L> const& c) {
  return os << c.outer() << " o " << static_cast<long long>(c.offset()) << " o " << c.inner();
}

// to_string(make_layout(make_shape(4, 2))) == "(4,2):(1,2)".
template <class T>
std::string to_string(T const& x) {
  std::ostringstream os;
  if constexpr (IntTuple<T>) {
    print_int_tuple(os, x);
  } else {
    os << x;
  }
  return os.str();
}

}  // namespace tessel
