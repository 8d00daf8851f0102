// Must not compile: one stage leaves nothing to overlap (2 to 6 pipeline stages).
#include <tessel/gemm/config_sm80.hpp>
constexpr int threads = tessel::GemmConfigSm80<128, 128, 32, 1>::kThreads;
