// A user's program built against the installed tessel package.
#include <tessel/layout.hpp>

#include <cstdio>

int main() {
  using namespace tessel;
  auto layout = make_layout(make_shape(Int<4>{}, Int<8>{}), LayoutRight{});  // (4,8):(8,1)
  static_assert(size(layout) == 32);
  std::printf("consumer: layout(1,2) = %d\n", int(layout(1, 2)));
  return layout(1, 2) == 10 ? 0 : 1;
}
