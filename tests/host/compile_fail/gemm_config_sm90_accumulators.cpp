// Must not compile: a ping-pong warpgroup owning a whole 128x256 tile would hold 256 fp32
// accumulators a thread; wgmma's registers and the 232-register handoff allow 128.
#include <tessel/gemm/config_sm90.hpp>
using Config = tessel::GemmConfigSm90<128, 256, 64, 4, tessel::Half, tessel::Major::kK, tessel::Major::kK, 1,
                                      tessel::GmmaLayout::kRing, tessel::GmmaLayout::kRing,
                                      tessel::MmaSchedule::kPingPong>;
constexpr int accumulators = Config::kAccumulators;
