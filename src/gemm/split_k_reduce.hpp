// Split-K's second pass: D = act(alpha * sum_s W[s] + beta * C + bias), where the GEMM kernel
// wrote each K slice's fp32 partial sums W[b * splits + s] as its own (M,N) row-major matrix.
// The sum runs over s in order, so results do not depend on scheduling.
#pragma once

#include <cuda_runtime_api.h>

#include "tessel/gemm/epilogue.hpp"

namespace tessel::sm80 {

// workspace: batch * splits matrices of (m, n) floats, densely packed. `out` is the real
// epilogue (D, C, bias, alpha, beta, activation, output type, row scatter), D row-major in the
// kernel's view.
cudaError_t split_k_reduce(float const* workspace, int splits, int m, int n, int batch,
                           EpilogueParams const& out, cudaStream_t stream);

// Columns of the workspace that D does not have: of every `block` columns, `keep` from
// first(row) = row / rows_per_run * keep are D's (column j -> (j / block) * keep + j % block -
// first(row)), the rest are dropped; rows_per_run == 0: first(row) = 0. wgrad uses it when it
// ran on channel-padded activations (block = C padded, keep = C) and for groups packed into
// blocks of 64 (block = 64, keep = rows_per_run = cg: filter row keeps its own group's cg
// channels of each tap's 64; conv/packed_groups.hpp). block == 0: off.
struct ColumnCompaction {
  int block = 0, keep = 0, rows_per_run = 0;
};
cudaError_t split_k_reduce(float const* workspace, int splits, int m, int n, int batch,
                           EpilogueParams const& out, ColumnCompaction columns,
                           cudaStream_t stream);

// Whether split_k_reduce runs four elements a thread (16-byte loads of the slices): n a
// multiple of 4, and D, C (with beta), the per-column bias, their leading dimensions, batch
// strides and row scatter, and the compaction's blocks, all in 4-element units. Otherwise it
// runs an element a thread.
bool split_k_reduce_vectorizes(float const* workspace, int n, EpilogueParams const& out,
                               ColumnCompaction columns);

}  // namespace tessel::sm80
