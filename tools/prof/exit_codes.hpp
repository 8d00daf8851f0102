// tessel-prof's exit statuses (also listed in `tessel-prof gemm --help`).
#pragma once

namespace tessel::prof {

inline constexpr int kExitOk = 0;        // every problem PASSed (or was timed with --no-verify)
inline constexpr int kExitUsage = 1;     // bad command line
inline constexpr int kExitNoDevice = 2;  // no CUDA device: nothing measured
inline constexpr int kExitFailed = 3;    // some problem FAILed or reported an ERROR

}  // namespace tessel::prof
