// The fp64 reference on the host: D = act(alpha A B + beta C + bias) summed in double, for
// problems small enough to compute on the CPU (verify.hpp's kHostReferenceMaxMacs).
#pragma once

#include <vector>

#include "problem.hpp"

namespace tessel::prof {

// Every operand as f32 (exact for f16 and bf16), all batches, laid out as `problem.hpp`
// says; c and bias empty when the problem has none.
struct HostOperands {
  std::vector<float> a, b, c, bias, d;
};

// max |d - ref| / (|alpha| (|A||B|) + |beta C| + |bias|) over all elements, ref and the
// denominator in double (verify.hpp defines the measure). Uses every hardware thread.
double host_reference_error(const GemmProblem& p, const HostOperands& h);

}  // namespace tessel::prof
