// Copying a matrix of 16-bit elements into rows padded with zeros to a multiple of 8
// elements, so that a kernel loads it in 16-byte vectors: operands whose rows are odd numbers
// of elements (a GEMM with K = 1031, gemm_plan.hpp's StagedOperand, whose copies for the sm80
// kernel also hold whole tiles of rows) and layers with few channels (C = 3 at stride 1:
// conv2d_plan.hpp's pad_channels). A vector whose first element lies inside a row reads zeros
// past its end, which add nothing to a reduction.
#pragma once

#include <cuda_runtime_api.h>

namespace tessel {

// dst (batches, rows_dst, ld_dst) = src (batches, rows, cols), row r of batch b of src at
// src + b * batch_src + r * ld_src elements, each row followed by ld_dst - cols zeros, and
// rows_dst - rows rows of zeros after each batch's rows (the sm80 GEMM reads a copy in whole
// tiles). src needs only 2-byte alignment; dst is 16-byte aligned, ld_dst a multiple of 8 and
// >= cols, rows_dst >= rows, and its batches packed (rows_dst * ld_dst apart).
struct PadRowsCopy {
  const void* src;
  long long ld_src, batch_src;
  void* dst;
  long long ld_dst, rows, rows_dst;
  int cols, batches;
};

// Up to kMaxPadRowsCopies copies in one launch (a GEMM's A and B; a layer's X and W).
inline constexpr int kMaxPadRowsCopies = 2;
cudaError_t pad_rows(PadRowsCopy const* copies, int count, cudaStream_t stream);

// One copy without zero rows (rows_dst = rows).
inline cudaError_t pad_rows(const void* src, long long ld_src, long long batch_src, void* dst, long long ld_dst,
                            long long rows, int cols, int batches, cudaStream_t stream) {
  const PadRowsCopy c{src, ld_src, batch_src, dst, ld_dst, rows, rows, cols, batches};
  return pad_rows(&c, 1, stream);
}

}  // namespace tessel
