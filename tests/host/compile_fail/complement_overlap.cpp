// Must not compile: (2,2):(1,1) overlaps itself, so it has no complement.
#include <tessel/layout.hpp>
using namespace tessel;
auto r = complement(make_layout(make_shape(Int<2>{}, Int<2>{}), make_stride(Int<1>{}, Int<1>{})), Int<8>{});
