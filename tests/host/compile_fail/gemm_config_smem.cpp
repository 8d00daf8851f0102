// Must not compile: 2 x 256 x 64 halves x 6 stages is 384 KiB of shared memory, over 227 KiB.
#include <tessel/gemm/config_sm80.hpp>
constexpr int threads = tessel::GemmConfigSm80<256, 256, 64, 6>::kThreads;
