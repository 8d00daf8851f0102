// Must not compile: 4 warps in M cover 64 rows per pass; 96 is not a multiple of 64.
#include <tessel/gemm/config_sm80.hpp>
constexpr int threads = tessel::GemmConfigSm80<96, 128, 32, 3, 4, 2>::kThreads;
