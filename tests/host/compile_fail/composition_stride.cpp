// Must not compile: B's stride 3 neither divides nor is a multiple of A's first mode (4).
#include <tessel/layout.hpp>
using namespace tessel;
auto a = make_layout(make_shape(Int<4>{}, Int<3>{}), make_stride(Int<1>{}, Int<10>{}));
auto r = composition(a, make_layout(Int<3>{}, Int<3>{}));
