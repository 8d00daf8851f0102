// Must not compile: Swizzle<3,3,2> reads bits 5..7 and writes bits 3..5: they overlap.
#include <tessel/layout.hpp>
using namespace tessel;
auto r = Swizzle<3, 3, 2>{}(17);
