// Must not compile: a 48-wide K tile has no conflict-free swizzle here (TileK must be 32 or 64).
#include <tessel/gemm/config_sm80.hpp>
constexpr int threads = tessel::GemmConfigSm80<128, 128, 48, 3>::kThreads;
