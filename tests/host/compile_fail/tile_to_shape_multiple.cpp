// Must not compile: 5 is not a multiple of the block's 2.
#include <tessel/layout.hpp>
using namespace tessel;
auto r = tile_to_shape(make_layout(make_shape(Int<2>{}, Int<2>{})), make_shape(Int<4>{}, Int<5>{}));
