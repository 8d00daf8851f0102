// Must not compile: shape (4,2) and stride ((1,2),4) are not congruent.
#include <tessel/layout.hpp>
using namespace tessel;
auto r = make_layout(make_shape(Int<4>{}, Int<2>{}), make_stride(make_stride(Int<1>{}, Int<2>{}), Int<4>{}));
