// Must not compile: B = 6:1 takes all 4 elements of A's first mode, and 4 does not divide 6.
#include <tessel/layout.hpp>
using namespace tessel;
auto a = make_layout(make_shape(Int<4>{}, Int<3>{}), make_stride(Int<1>{}, Int<10>{}));
auto r = composition(a, make_layout(Int<6>{}, Int<1>{}));
