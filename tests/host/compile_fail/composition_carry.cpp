// Must not compile: B = (3,5):(1,1) reaches index 6 inside A's first mode of size 5.
#include <tessel/layout.hpp>
using namespace tessel;
auto a = make_layout(make_shape(Int<5>{}, Int<3>{}), make_stride(Int<64>{}, Int<1>{}));
auto r = composition(a, make_layout(make_shape(Int<3>{}, Int<5>{}), make_stride(Int<1>{}, Int<1>{})));
