// Must not compile: a mode of size 4 with stride 0 is not injective.
#include <tessel/layout.hpp>
using namespace tessel;
auto r = left_inverse(make_layout(make_shape(Int<4>{}, Int<2>{}), make_stride(Int<0>{}, Int<1>{})));
