// An M-major A needs TileM to be a multiple of its 64-element swizzle atom.
#include "tessel/gemm/config_sm80.hpp"
using Config = tessel::GemmConfigSm80<32, 128, 32, 3, 2, 2, tessel::Half, tessel::Major::kMN>;
constexpr int bytes = sizeof(Config::SmemLayoutA);
int main() { return bytes; }
