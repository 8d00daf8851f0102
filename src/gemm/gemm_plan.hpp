// Planning the GEMM: from validated GemmArguments and the device to one precompiled sm80 kernel.
// Host code that calls no CUDA function (the device is an input, runtime/device_info.hpp), so
// that tests/host/plan_fuzz_test.cpp plans random problems without a GPU; dispatch_sm80.cpp
// launches what it chose.
//
//   1. the kernel's view: D row-major (M,N) = A (M,K) * B (N,K)^T. A column-major D is
//      computed as D^T = B^T A^T (A and B swap, M and N swap, the bias runs along rows)
//   2. each operand K-major or MN-major; 16-byte access if its pointer, leading dimension,
//      batch stride and contiguous extent allow it, else the narrow path
//   3. a tile configuration (the override, or the heuristic), interior or edge variant
//   4. split-K when the output tiles would leave most SMs idle and K is deep: the kernel writes
//      each K slice's fp32 partial sums to a stream-ordered workspace, split_k_reduce sums
//      them in order and applies the epilogue
#pragma once

#include <cstdint>

#include "gemm/instances_sm80.hpp"
#include "runtime/device_info.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel::gemm_detail {

// One operand as the kernel sees it: (MN, K), K-major or MN-major.
struct OperandView {
  const void* ptr;
  Major major;
  std::int64_t ld, batch_stride;
  int mn;
};

struct KernelProblem {
  int m, n, k, batch;
  OperandView a, b;  // (M,K) and (N,K)
  bool swapped;
};

struct Choice {
  KernelProblem problem;
  sm80::KernelChoice kernel;
  int splits;             // K slices (1: none)
  int k_tiles_per_split;  // K tiles each slice accumulates
};

// The kernel for valid, non-empty arguments (m, n >= 1) on `device`; kInvalidArgument or
// kNotSupported for a config override that this build lacks or that cannot run the problem.
Status choose(GemmArguments const& args, DeviceInfo const& device, Choice* out);

// What choose() picked, as tessel::plan() reports it.
GemmPlan describe(Choice const& choice);

}  // namespace tessel::gemm_detail
