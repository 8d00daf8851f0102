// RotatingOperands: A, B, C, D and bias of one problem, several copies of each so that
// back-to-back launches read operands the previous launches have evicted from L2.
//
//   footprint = bytes of A + B + C (when beta != 0) + D + bias, one copy, all batches
//   copies    = 1 when footprint >= 2 x L2, else floor(2 x L2 / footprint) + 1
//
// Launch i uses copy i % copies. Each operand is one allocation holding the copies back to
// back, each copy starting on a kCopyAlignment boundary.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "device_buffer.hpp"
#include "problem.hpp"

namespace tessel::prof {

inline constexpr std::size_t kCopyAlignment = 256;  // cudaMalloc's own alignment

// The number of copies for one copy's `footprint` bytes and an L2 of `l2_bytes`.
// Example: rotation_copies(32 << 20, 50 << 20) == 4 (128 MiB > 2 x 50 MiB).
int rotation_copies(std::size_t footprint, std::size_t l2_bytes);

class RotatingOperands {
 public:
  // Allocates every copy and fills A, B, C and bias with uniform values in [-1, 1) (a
  // different stream of values per operand and copy, from `seed`). D is left as it is.
  RotatingOperands(const GemmProblem& p, std::size_t l2_bytes, std::uint64_t seed,
                   cudaStream_t stream);

  int copies() const { return copies_; }
  std::size_t footprint_bytes() const { return footprint_; }  // one copy

  const void* a(int copy) const { return a_.at(copy); }
  const void* b(int copy) const { return b_.at(copy); }
  const void* c(int copy) const { return c_.at(copy); }  // null when beta == 0
  void* d(int copy) const { return d_.at(copy); }
  const void* bias(int copy) const { return bias_.at(copy); }  // null without --bias
  std::size_t d_bytes() const { return d_.copy_bytes; }        // one copy

  // tessel's arguments over copy `copy`.
  const GemmArguments& arguments(int copy) const { return arguments_[copy]; }

  // D of every copy = C of the same copy (cuBLAS reads its C from the D buffers).
  void copy_c_into_d(cudaStream_t stream) const;

 private:
  struct Operand {
    DeviceBuffer buffer;
    std::size_t copy_bytes = 0;   // one copy's bytes
    std::size_t copy_stride = 0;  // copy_bytes rounded up to kCopyAlignment
    void* at(int copy) const;
  };
  Operand make_operand(std::size_t elements, DataType t, const char* name) const;
  void fill(const Operand& o, DataType t, std::uint64_t seed, cudaStream_t stream) const;

  GemmProblem problem_;
  int copies_ = 1;
  std::size_t footprint_ = 0;
  Operand a_, b_, c_, d_, bias_;
  std::vector<GemmArguments> arguments_;
};

}  // namespace tessel::prof
