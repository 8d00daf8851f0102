// Internal helpers shared by the divides and the products (runtime_divide.cpp).
#pragma once

#include <functional>

#include "runtime_layout.hpp"

namespace tessel::rt {

// f(A_i, B_i) for i < rank(B), A_i for the rest; the result has A's rank.
Layout by_mode(const Layout& a, const Tiler& b, const char* what,
               const std::function<Layout(const Layout&, const Layout&)>& f);
// ((A0,a0),(A1,a1),x) -> ((A0,A1),(a0,a1,x)) following the tiler's rank.
Layout zip_by_tiler(const Layout& l, const Tiler& b);
// (T,(r0,r1)) -> (T,r0,r1)   and   ((t0,t1),(r0,r1)) -> (t0,t1,r0,r1).
Layout unpack_rest(const Layout& zipped);
Layout unpack_both(const Layout& zipped);

}  // namespace tessel::rt
