// split-K's second pass (src/gemm/split_k_reduce.hpp) on the GPU against a host reference, on
// random cases from the whole space its callers use: shapes of any size (rows of 4-element
// multiples or not), 1-9 slices, batches, every output type, alpha, beta with C, bias per column
// or per row (per batch, as conv's groups), every activation, row scatter (strided dgrad's
// phases) and column compaction (wgrad's padded channels and packed groups), with D placed so
// that both the four-element path and the one-element path run (the test requires each in at
// least a quarter of the cases). D is poisoned (NaN) before the call: what the reduction does
// not own must stay poisoned, and what it owns must match within the output type's rounding.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gemm/split_k_reduce.hpp"
#include "typed_values.hpp"

namespace tessel {
namespace {

using test::decode;
using test::encode;
using test::output_eps;

struct Case {
  int m, n, splits, batch;
  DataType out;
  float alpha, beta;
  BiasMode bias;
  Activation act;
  bool misaligned;            // D and C one element off a 4-element boundary
  bool scatter;               // rows placed by a RowScatter
  sm80::ColumnCompaction columns;
};

// Device bytes, freed on scope exit.
struct DeviceBytes {
  void* p = nullptr;
  explicit DeviceBytes(std::vector<unsigned char> const& bytes) {
    EXPECT_EQ(cudaMalloc(&p, bytes.size() + 16), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~DeviceBytes() { cudaFree(p); }
};

// Workspace column j -> D's column, or -1 where the compaction drops it (split_k_reduce.hpp).
int d_column(sm80::ColumnCompaction const& c, int row, int j) {
  if (c.block == 0) return j;
  const int first = c.rows_per_run > 0 ? row / c.rows_per_run * c.keep : 0;
  const int kept = j % c.block - first;
  return kept < 0 || kept >= c.keep ? -1 : j / c.block * c.keep + kept;
}

// Runs one case; returns whether it took the four-element path.
bool run_case(Case const& t, std::mt19937& rng) {
  std::uniform_int_distribution<int> value(-64, 64);  // multiples of 1/64: exact in every type
  const int m = t.m, n = t.n, ob = data_type_bytes(t.out);
  const int n_out = t.columns.block > 0 ? n / t.columns.block * t.columns.keep : n;
  // D's rows: packed (ldd = n_out, or a little more), or scattered with gaps between rows.
  const std::int64_t ldd = n_out + (rng() % 2 ? 0 : 4);
  RowScatter sc{};
  std::int64_t extent = std::int64_t(m) * ldd;  // elements of one batch of D
  if (t.scatter) {  // m = images * rows * cols, rows of ldd with a gap of 4 after each
    sc.cols = 1 + int(rng() % 3);
    sc.rows = 1 + int(rng() % 3);
    const int images = (m + sc.rows * sc.cols - 1) / (sc.rows * sc.cols);
    sc.col_step = ldd + 4, sc.row_step = sc.cols * sc.col_step + 8, sc.image = sc.rows * sc.row_step, sc.origin = 4;
    extent = sc.origin + images * sc.image;
  }
  const std::int64_t offset = t.misaligned ? 1 : 0, batch_stride = (extent + 3) / 4 * 4;
  const std::int64_t d_elems = offset + batch_stride * t.batch;

  std::vector<float> w(std::size_t(t.batch) * t.splits * m * n), c(std::size_t(d_elems), 0.0f);
  for (float& x : w) x = value(rng) / 64.0f;
  for (float& x : c) x = value(rng) / 64.0f;
  const int bias_len = t.bias == BiasMode::kPerRow ? m : n_out;
  std::vector<float> bias(std::size_t(bias_len) * t.batch + 4);
  for (float& x : bias) x = value(rng) / 64.0f;

  std::vector<unsigned char> poison(std::size_t(d_elems) * ob, 0xff);  // NaN in every type
  DeviceBytes dw(encode(DataType::kF32, w)), dd(poison), dc(encode(t.out, c)), dbias(encode(t.out, bias));
  EpilogueParams p{};
  p.d = static_cast<unsigned char*>(dd.p) + offset * ob;
  p.c = static_cast<unsigned char*>(dc.p) + offset * ob;
  p.bias = dbias.p;
  p.ldd = p.ldc = ldd;
  p.d_batch_stride = p.c_batch_stride = batch_stride;
  p.alpha = t.alpha, p.beta = t.beta, p.bias_mode = t.bias, p.act = t.act, p.out = t.out;
  p.scatter = sc;
  p.bias_batch_stride = bias_len;
  auto const* workspace = static_cast<float const*>(dw.p);
  const bool vec4 = sm80::split_k_reduce_vectorizes(workspace, n, p, t.columns);
  EXPECT_EQ(sm80::split_k_reduce(workspace, t.splits, m, n, t.batch, p, t.columns, nullptr), cudaSuccess);
  std::vector<unsigned char> got(poison.size());
  EXPECT_EQ(cudaMemcpy(got.data(), dd.p, got.size(), cudaMemcpyDeviceToHost), cudaSuccess);

  std::vector<char> owned(std::size_t(d_elems), 0);
  int bad = 0;
  for (int b = 0; b < t.batch; ++b) {
    for (int row = 0; row < m; ++row) {
      for (int j = 0; j < n; ++j) {
        const int col = d_column(t.columns, row, j);
        if (col < 0) continue;
        float acc = 0.0f;  // in slice order, as the kernel
        for (int s = 0; s < t.splits; ++s) acc += w[((std::size_t(b) * t.splits + s) * m + row) * n + j];
        const std::int64_t at = offset + b * batch_stride + sc.row_start(row, ldd) + col;
        owned[at] = 1;
        const double cv = t.beta != 0.0f ? test::round_to(t.out, c[at]) : 0.0;
        const double bv = t.bias == BiasMode::kPerColumn ? test::round_to(t.out, bias[b * bias_len + col])
                          : t.bias == BiasMode::kPerRow  ? test::round_to(t.out, bias[b * bias_len + row])
                                                         : 0.0;
        const double pre = double(t.alpha) * acc + t.beta * cv + bv;
        const double ref = test::activate(pre, t.act);
        const double v = decode(t.out, &got[at * ob]);
        const double tol = output_eps(t.out) * (1 + std::fabs(t.alpha * acc) + std::fabs(t.beta * cv) + std::fabs(bv));
        if (!(std::fabs(v - ref) <= tol) && bad++ < 5) {
          ADD_FAILURE() << "batch " << b << " row " << row << " column " << col << ": " << v << ", expected " << ref;
        }
      }
    }
  }
  for (std::int64_t i = 0; i < d_elems; ++i) {
    if (!owned[i] && std::memcmp(&got[i * ob], &poison[i * ob], ob) != 0 && bad++ < 5) {
      ADD_FAILURE() << "element " << i << " of D's buffer was written but is not D's";
    }
  }
  return vec4;
}

TEST(SplitKReduce, RandomCasesAgainstTheHostReference) {
  std::mt19937 rng(20261127);
  const DataType outs[] = {DataType::kF32, DataType::kF16, DataType::kBF16};
  const BiasMode biases[] = {BiasMode::kNone, BiasMode::kPerColumn, BiasMode::kPerRow};
  const Activation acts[] = {Activation::kNone, Activation::kReLU, Activation::kGELU};
  int vec4 = 0, cases = 240;
  for (int i = 0; i < cases; ++i) {
    Case t{};
    t.m = 1 + int(rng() % 150);
    t.n = rng() % 2 ? 4 * (1 + int(rng() % 64)) : 1 + int(rng() % 257);
    t.splits = 1 + int(rng() % 9), t.batch = 1 + int(rng() % 3);
    t.out = outs[rng() % 3], t.bias = biases[rng() % 3], t.act = acts[rng() % 3];
    t.alpha = rng() % 2 ? 1.0f : -0.75f, t.beta = rng() % 2 ? 0.0f : 1.5f;
    t.misaligned = rng() % 4 == 0, t.scatter = rng() % 5 == 0;
    switch (rng() % 6) {
      case 0:  // packed groups: blocks of 64 columns, each row keeps its group's cg
        t.columns.keep = t.columns.rows_per_run = rng() % 2 ? 8 : 16, t.columns.block = 64;
        t.n = 64 * (1 + int(rng() % 3));
        break;
      case 1:  // channel-padded activations: of every 8 columns the first 3
        t.columns.block = 8, t.columns.keep = 3, t.n = 8 * (1 + int(rng() % 20));
        break;
      default:
        break;
    }
    SCOPED_TRACE(::testing::Message() << "case " << i << ": m " << t.m << " n " << t.n << " splits " << t.splits
                                      << " batch " << t.batch << " out " << int(t.out) << " misaligned "
                                      << t.misaligned << " scatter " << t.scatter << " compaction "
                                      << t.columns.block << "/" << t.columns.keep);
    vec4 += run_case(t, rng);
  }
  EXPECT_GE(vec4, cases / 4) << "the four-element path ran in too few cases";
  EXPECT_GE(cases - vec4, cases / 4) << "the one-element path ran in too few cases";
}

}  // namespace
}  // namespace tessel
