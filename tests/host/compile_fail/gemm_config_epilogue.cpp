// The epilogue stages the whole fp32 tile in shared memory: 256 x 256 x 4 bytes = 256 KiB.
#include "tessel/gemm/config_sm80.hpp"
constexpr int bytes = tessel::GemmConfigSm80<256, 256, 32, 2>::kSmemBytes;
int main() { return bytes; }
