#include "gemm/split_k_reduce.hpp"

namespace tessel::sm80 {
namespace {

template <class Out>
__global__ void split_k_reduce_kernel(float const* workspace, int splits, int m, int n, int batch,
                                      EpilogueParams p, ColumnCompaction columns) {
  const std::int64_t per_matrix = std::int64_t(m) * n, total = per_matrix * batch;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t b = i / per_matrix, mn = i % per_matrix, row = mn / n;
    std::int64_t col = mn % n;
    if (columns.block > 0) {
      const std::int64_t first = columns.rows_per_run > 0 ? row / columns.rows_per_run * columns.keep : 0;
      const std::int64_t j = col % columns.block - first;
      if (j < 0 || j >= columns.keep) continue;
      col = col / columns.block * columns.keep + j;
    }
    float const* w = workspace + b * splits * per_matrix + mn;
    float acc = 0.0f;
    for (int s = 0; s < splits; ++s) acc += w[s * per_matrix];  // (split, M, N), in order
    float x = p.alpha * acc;
    if (p.beta != 0.0f) {
      x += p.beta * detail::to_float(static_cast<Out const*>(
                        p.c)[b * p.c_batch_stride + p.scatter.row_start(row, p.ldc) + col]);
    }
    Out const* bias = static_cast<Out const*>(p.bias) + b * p.bias_batch_stride;
    if (p.bias_mode == BiasMode::kPerColumn) x += detail::to_float(bias[col]);
    if (p.bias_mode == BiasMode::kPerRow) x += detail::to_float(bias[row]);
    static_cast<Out*>(p.d)[b * p.d_batch_stride + p.scatter.row_start(row, p.ldd) + col] =
        detail::from_float<Out>(detail::activate(x, p.act));
  }
}

template <class Out>
cudaError_t launch(float const* workspace, int splits, int m, int n, int batch,
                   EpilogueParams const& p, ColumnCompaction columns, cudaStream_t stream) {
  const std::int64_t total = std::int64_t(m) * n * batch;
  const int threads = 256;
  const int blocks = int(total / threads + 1 < 4096 ? total / threads + 1 : 4096);
  split_k_reduce_kernel<Out>
      <<<blocks, threads, 0, stream>>>(workspace, splits, m, n, batch, p, columns);
  return cudaGetLastError();
}

}  // namespace

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
