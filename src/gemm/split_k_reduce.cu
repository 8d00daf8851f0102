#include "gemm/split_k_reduce.hpp"

#include <algorithm>
#include <cstdint>

#include "tessel/runtime/gemm.hpp"

namespace tessel::sm80 {
namespace {

// Workspace column `col` of `row` -> D's column, or -1 where the compaction drops it
// (split_k_reduce.hpp).
template <class Int>
__device__ Int d_column(ColumnCompaction const& columns, Int row, Int col) {
  if (columns.block == 0) return col;
  const Int first = columns.rows_per_run > 0 ? row / columns.rows_per_run * columns.keep : 0;
  const Int j = col % columns.block - first;
  return j < 0 || j >= columns.keep ? Int(-1) : col / columns.block * columns.keep + j;
}
// One element of D from its sum over the slices, C's element (read where beta != 0) and the
// bias of its column and of its row (read as p.bias_mode says).
template <class Out>
__device__ Out epilogue_element(EpilogueParams const& p, float acc, float c, float column_bias, float row_bias) {
  float x = p.alpha * acc;
  if (p.beta != 0.0f) x += p.beta * c;
  if (p.bias_mode == BiasMode::kPerColumn) x += column_bias;
  if (p.bias_mode == BiasMode::kPerRow) x += row_bias;
  return detail::from_float<Out>(detail::activate(x, p.act));
}

// Any shape: one element a thread.
template <class Out>
__global__ void split_k_reduce_kernel(float const* workspace, int splits, int m, int n, int batch,
                                      EpilogueParams p, ColumnCompaction columns) {
  const std::int64_t per_matrix = std::int64_t(m) * n, total = per_matrix * batch;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t b = i / per_matrix, mn = i % per_matrix, row = mn / n;
    const std::int64_t col = d_column(columns, row, mn % n);
    if (col < 0) continue;
    float const* w = workspace + b * splits * per_matrix + mn;
    float acc = 0.0f;
    for (int s = 0; s < splits; ++s) acc += w[s * per_matrix];  // (split, M, N), in order
    const float c = p.beta != 0.0f ? detail::to_float(static_cast<Out const*>(
                                         p.c)[b * p.c_batch_stride + p.scatter.row_start(row, p.ldc) + col])
                                   : 0.0f;
    Out const* bias = static_cast<Out const*>(p.bias) + b * p.bias_batch_stride;
    const float column_bias = p.bias_mode == BiasMode::kPerColumn ? detail::to_float(bias[col]) : 0.0f;
    const float row_bias = p.bias_mode == BiasMode::kPerRow ? detail::to_float(bias[row]) : 0.0f;
    static_cast<Out*>(p.d)[b * p.d_batch_stride + p.scatter.row_start(row, p.ldd) + col] =
        epilogue_element<Out>(p, acc, c, column_bias, row_bias);
  }
}

// Four elements of a row a thread, where every access allows it (split_k_reduce_vectorizes):
// 16-byte loads of the slices, 8- or 16-byte accesses of D, C and the bias, and a grid of
// (vectors of a row, rows, batches) so that no index is divided. One element a thread, with
// four 64-bit divisions each, took 11 us for ResNet-50's 7x7x512 3x3 fprop (4 slices of
// 1568 x 512, ncu on the H100: 1.2 TB/s from L2; docs/PERFORMANCE.md, 2026-11-27).
template <class Out>
struct alignas(4 * sizeof(Out)) Vec4 {
  Out v[4];
};
// Eight slices' loads in flight a thread: without the bounds ptxas kept three 16-byte loads in
// flight (registers for full occupancy) where the element-a-thread kernel keeps eight 4-byte
// ones, and wgrad's 52-slice reductions ran 10% longer than on it (H100, 2026-11-27).
constexpr int kVec4Threads = 64;
template <class Out>
__global__ void __launch_bounds__(kVec4Threads, 8)
    split_k_reduce_vec4_kernel(float const* workspace, int splits, int m, int n, int batch, EpilogueParams p,
                               ColumnCompaction columns) {
  const int vector = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (vector >= n / 4) return;
  const std::int64_t per_matrix = std::int64_t(m) * n;
  for (int b = int(blockIdx.z); b < batch; b += int(gridDim.z)) {
    for (int row = int(blockIdx.y * blockDim.y + threadIdx.y); row < m; row += int(gridDim.y * blockDim.y)) {
      // D's column (block, keep and first are multiples of 4: a vector is kept whole or dropped)
      const int col = d_column(columns, row, 4 * vector);
      if (col < 0) continue;
      float const* w = workspace + std::int64_t(b) * splits * per_matrix + std::int64_t(row) * n + 4 * vector;
      float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll 8
      for (int s = 0; s < splits; ++s) {  // (split, M, N), in order
        const float4 x = __ldcs(reinterpret_cast<float4 const*>(w + s * per_matrix));
        acc[0] += x.x, acc[1] += x.y, acc[2] += x.z, acc[3] += x.w;
      }
      Vec4<Out> c{}, bias{}, d;
      if (p.beta != 0.0f) {
        c = *reinterpret_cast<Vec4<Out> const*>(static_cast<Out const*>(p.c) + b * p.c_batch_stride +
                                                p.scatter.row_start(row, p.ldc) + col);
      }
      Out const* biases = static_cast<Out const*>(p.bias) + b * p.bias_batch_stride;
      if (p.bias_mode == BiasMode::kPerColumn) bias = *reinterpret_cast<Vec4<Out> const*>(biases + col);
      const float row_bias = p.bias_mode == BiasMode::kPerRow ? detail::to_float(biases[row]) : 0.0f;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        d.v[j] = epilogue_element<Out>(p, acc[j], detail::to_float(c.v[j]), detail::to_float(bias.v[j]), row_bias);
      }
      *reinterpret_cast<Vec4<Out>*>(static_cast<Out*>(p.d) + b * p.d_batch_stride + p.scatter.row_start(row, p.ldd) +
                                    col) = d;
    }
  }
}

template <class Out>
cudaError_t launch(float const* workspace, int splits, int m, int n, int batch,
                   EpilogueParams const& p, ColumnCompaction columns, cudaStream_t stream) {
  if (m == 0 || n == 0 || batch == 0) return cudaSuccess;
  if (split_k_reduce_vectorizes(workspace, n, p, columns)) {
    // Blocks of 64 threads: wgrad's small outputs with many slices (56x56x64 3x3: 64 x 576,
    // 52 slices) spread over every SM.
    const int vectors = n / 4, along = vectors >= 64 ? 64 : 32;  // threads along a row
    const dim3 threads(unsigned(along), unsigned(kVec4Threads / along));
    const dim3 blocks(unsigned((vectors + along - 1) / along),
                      unsigned(std::min<std::int64_t>((std::int64_t(m) + threads.y - 1) / threads.y, 65535)),
                      unsigned(std::min(batch, 65535)));
    split_k_reduce_vec4_kernel<Out><<<blocks, threads, 0, stream>>>(workspace, splits, m, n, batch, p, columns);
    return cudaGetLastError();
  }
  const std::int64_t total = std::int64_t(m) * n * batch;
  const int threads = 256;
  const int blocks = int(total / threads + 1 < 4096 ? total / threads + 1 : 4096);
  split_k_reduce_kernel<Out>
      <<<blocks, threads, 0, stream>>>(workspace, splits, m, n, batch, p, columns);
  return cudaGetLastError();
}

}  // namespace

bool split_k_reduce_vectorizes(float const* workspace, int n, EpilogueParams const& p,
                               ColumnCompaction columns) {
  const std::uintptr_t vector_bytes = 4 * std::uintptr_t(data_type_bytes(p.out));
  auto whole = [](std::int64_t x) { return x % 4 == 0; };
  auto aligned = [&](void const* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % vector_bytes == 0; };
  const RowScatter& sc = p.scatter;
  const bool rows = sc.cols == 0 || (whole(sc.image) && whole(sc.row_step) && whole(sc.col_step) && whole(sc.origin));
  return n % 4 == 0 && reinterpret_cast<std::uintptr_t>(workspace) % 16 == 0 && rows && aligned(p.d) &&
         whole(p.ldd) && whole(p.d_batch_stride) &&
         (p.beta == 0.0f || (aligned(p.c) && whole(p.ldc) && whole(p.c_batch_stride))) &&
         (p.bias_mode != BiasMode::kPerColumn || (aligned(p.bias) && whole(p.bias_batch_stride))) &&
         (columns.block == 0 || (whole(columns.block) && whole(columns.keep)));
}

cudaError_t split_k_reduce(float const* workspace, int splits, int m, int n, int batch,
                           EpilogueParams const& out, ColumnCompaction columns,
                           cudaStream_t stream) {
  switch (out.out) {
    case DataType::kF32:
      return launch<float>(workspace, splits, m, n, batch, out, columns, stream);
    case DataType::kF16:
      return launch<Half>(workspace, splits, m, n, batch, out, columns, stream);
    case DataType::kBF16:
      return launch<BFloat16>(workspace, splits, m, n, batch, out, columns, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t split_k_reduce(float const* workspace, int splits, int m, int n, int batch,
                           EpilogueParams const& out, cudaStream_t stream) {
  return split_k_reduce(workspace, splits, m, n, batch, out, ColumnCompaction{}, stream);
}

}  // namespace tessel::sm80
