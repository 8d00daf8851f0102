// tessel::gemm end to end on the GPU against a double-precision host reference: every layout,
// input and output type, alpha/beta, bias and activations, batches, column-major D, C aliasing
// D, padded and misaligned leading dimensions (the narrow path), every shipped configuration,
// and random problems (fixed seeds, printed on failure). Outputs are poisoned (NaN) first.
//
// Tolerance per element: |d - ref| <= 1e-5 * K + eps_out * (1 + |ref|), where the first term
// bounds the fp32 accumulation of K products of inputs in [-1, 1] (exact in fp32, each add off
// by at most 2^-24 of a partial sum <= K) and eps_out is the output type's rounding: 2^-24 (f32),
// 2^-11 (f16), 2^-8 (bf16), doubled for the epilogue's own fp32 arithmetic (alpha, beta, GELU).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tessel/runtime/gemm.hpp"
#include "typed_values.hpp"

namespace tessel {
namespace {

using test::decode;
using test::encode;
using test::round_to;

struct Case {
  int m = 64, n = 64, k = 64, batch = 1;
  MatrixLayout a_layout = MatrixLayout::kRowMajor, b_layout = MatrixLayout::kColumnMajor,
               d_layout = MatrixLayout::kRowMajor;
  DataType in = DataType::kF16, out = DataType::kF32;
  float alpha = 1.0f, beta = 0.0f;
  bool bias = false;
  Activation act = Activation::kNone;
  int pad = 0;           // added to every leading dimension
  int offset = 0;        // elements added to every pointer (1: misaligned for 16-byte access)
  bool c_is_d = false;   // C and D the same memory
  std::string config;    // "" = heuristic
  std::string access;    // if set: what plan() must say of the global loads (GemmPlan::access)
  std::string schedule;  // if set: a part of what plan() must say of the schedule (GemmPlan::schedule)
  bool broadcast_a = false, broadcast_b = false;  // batch stride 0: one A (B) for every batch

  std::string describe() const {
    std::ostringstream s;
    s << m << "x" << n << "x" << k << " batch " << batch << " A " << (a_layout == MatrixLayout::kRowMajor ? "row" : "col")
      << " B " << (b_layout == MatrixLayout::kRowMajor ? "row" : "col") << " D "
      << (d_layout == MatrixLayout::kRowMajor ? "row" : "col") << " " << data_type_name(in) << "->"
      << data_type_name(out) << " alpha " << alpha << " beta " << beta << (bias ? " bias" : "") << " act "
      << int(act) << " pad " << pad << " offset " << offset << (c_is_d ? " C=D" : "") << (broadcast_a ? " A broadcast" : "")
      << (broadcast_b ? " B broadcast" : "") << " config '" << config << "'" << (access.empty() ? "" : " access " + access);
    return s.str();
  }
};

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(size_t bytes) { EXPECT_EQ(cudaMalloc(&ptr, bytes < 16 ? 16 : bytes), cudaSuccess); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(DeviceBuffer const&) = delete;
  DeviceBuffer& operator=(DeviceBuffer const&) = delete;
};

// A matrix of rows x cols in `layout` with leading dimension ld, `batch` of them `stride`
// apart; (r, c) of batch b is at b * stride + (row-major ? r * ld + c : r + c * ld).
size_t index(MatrixLayout layout, std::int64_t ld, std::int64_t stride, int b, int r, int c) {
  return size_t(b * stride + (layout == MatrixLayout::kRowMajor ? r * ld + c : r + c * ld));
}

void run_case(Case const& t, unsigned seed) {
  SCOPED_TRACE(t.describe() + " seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto rows_cols_ld = [&](MatrixLayout l, int rows, int cols) -> std::int64_t {
    return (l == MatrixLayout::kRowMajor ? std::max(cols, 1) : std::max(rows, 1)) + t.pad;
  };
  const std::int64_t lda = rows_cols_ld(t.a_layout, t.m, t.k), ldb = rows_cols_ld(t.b_layout, t.k, t.n),
                     ldd = rows_cols_ld(t.d_layout, t.m, t.n);
  auto span = [](MatrixLayout l, std::int64_t ld, int rows, int cols) -> std::int64_t {
    if (rows == 0 || cols == 0) return 0;
    return l == MatrixLayout::kRowMajor ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
  };
  const std::int64_t one_a = span(t.a_layout, lda, t.m, t.k) + t.pad, one_b = span(t.b_layout, ldb, t.k, t.n) + 3 * t.pad,
                     sd = span(t.d_layout, ldd, t.m, t.n) + t.pad;
  const std::int64_t sa = t.broadcast_a ? 0 : one_a, sb = t.broadcast_b ? 0 : one_b;
  const size_t na = size_t(t.offset + (t.broadcast_a ? one_a : sa * t.batch)),
               nb = size_t(t.offset + (t.broadcast_b ? one_b : sb * t.batch)), nd = size_t(t.offset + sd * t.batch);
  std::vector<float> a(na), b(nb), c(nd), bias(size_t(t.n) + t.offset);
  for (auto& x : a) x = round_to(t.in, dist(rng));
  for (auto& x : b) x = round_to(t.in, dist(rng));
  for (auto& x : c) x = round_to(t.out, dist(rng));
  for (auto& x : bias) x = round_to(t.out, dist(rng));

  const int ob = data_type_bytes(t.out), ib = data_type_bytes(t.in);
  DeviceBuffer da(na * ib), db(nb * ib), dc(nd * ob), dd(nd * ob), dbias(bias.size() * ob);
  auto upload = [](DeviceBuffer& buf, std::vector<unsigned char> const& bytes) {
    ASSERT_EQ(cudaMemcpy(buf.ptr, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
  };
  upload(da, encode(t.in, a));
  upload(db, encode(t.in, b));
  upload(dbias, encode(t.out, bias));
  if (t.c_is_d) {
    upload(dd, encode(t.out, c));
  } else {
    upload(dc, encode(t.out, c));
    ASSERT_EQ(cudaMemset(dd.ptr, 0xff, nd * ob), cudaSuccess);  // poison: NaN in every type
  }

  GemmArguments args;
  args.m = t.m, args.n = t.n, args.k = t.k, args.batch = t.batch;
  args.input_type = t.in, args.output_type = t.out;
  args.a = static_cast<char*>(da.ptr) + t.offset * ib, args.a_layout = t.a_layout, args.lda = lda,
  args.a_batch_stride = sa;
  args.b = static_cast<char*>(db.ptr) + t.offset * ib, args.b_layout = t.b_layout, args.ldb = ldb,
  args.b_batch_stride = sb;
  void* d_ptr = static_cast<char*>(dd.ptr) + t.offset * ob;
  args.c = t.c_is_d ? d_ptr : static_cast<char*>(dc.ptr) + t.offset * ob, args.ldc = ldd, args.c_batch_stride = sd;
  args.d = d_ptr, args.d_layout = t.d_layout, args.ldd = ldd, args.d_batch_stride = sd;
  args.alpha = t.alpha, args.beta = t.beta;
  args.bias = t.bias ? static_cast<char*>(dbias.ptr) + t.offset * ob : nullptr;
  args.activation = t.act;
  args.config = t.config;
  if (!t.access.empty() || !t.schedule.empty()) {
    GemmPlan p;
    ASSERT_TRUE(plan(args, &p).ok());
    if (!t.access.empty()) EXPECT_EQ(p.access, t.access);
    EXPECT_NE(p.schedule.find(t.schedule), std::string::npos) << p.schedule;
  }
  Status s = gemm(args, nullptr);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> out(nd * ob);
  ASSERT_EQ(cudaMemcpy(out.data(), dd.ptr, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);

  const double eps = test::output_eps(t.out);
  int failures = 0;
  std::vector<bool> inside(nd, false);  // elements of D's windows
  for (int bt = 0; bt < t.batch; ++bt) {
    for (int i = 0; i < t.m; ++i) {
      for (int j = 0; j < t.n; ++j) {
        double acc = 0;
        for (int kk = 0; kk < t.k; ++kk) {
          acc += double(a[t.offset + index(t.a_layout, lda, sa, bt, i, kk)]) *
                 double(b[t.offset + index(t.b_layout, ldb, sb, bt, kk, j)]);
        }
        const size_t di = t.offset + index(t.d_layout, ldd, sd, bt, i, j);
        inside[di] = true;
        double ref = t.alpha * acc;
        if (t.beta != 0.0f) ref += double(t.beta) * c[di];
        if (t.bias) ref += bias[t.offset + j];
        ref = test::activate(ref, t.act);
        const double got = decode(t.out, &out[di * ob]);
        const double tol = 1e-5 * t.k + eps * (1 + std::fabs(ref));
        if (!(std::fabs(got - ref) <= tol) && ++failures <= 5) {
          ADD_FAILURE() << "D(" << i << "," << j << ") of batch " << bt << " = " << got << ", expected " << ref
                        << " (tolerance " << tol << ")";
        }
      }
    }
  }
  // Everything outside the batches' (M,N) windows must still be poison: the offset, the padding
  // of the rows, the gaps between batches.
  if (!t.c_is_d) {
    int outside = 0;
    for (size_t e = 0; e < nd; ++e) {
      if (inside[e]) continue;
      for (int byte = 0; byte < ob; ++byte) {
        if (out[e * ob + byte] != 0xff && ++outside <= 3) {
          ADD_FAILURE() << "a store landed outside D's windows, at element " << e;
        }
      }
    }
  }
  EXPECT_EQ(failures, 0) << failures << " elements out of tolerance";
}

constexpr MatrixLayout kRow = MatrixLayout::kRowMajor, kCol = MatrixLayout::kColumnMajor;

// ---- every layout x input x output, on a tile multiple (interior) and an edge problem ----
class GemmCombination : public ::testing::TestWithParam<std::tuple<int, DataType, DataType>> {};

TEST_P(GemmCombination, InteriorAndEdgeProblems) {
  auto [layouts, in, out] = GetParam();
  for (auto [m, n, k] : {std::tuple{128, 256, 128}, std::tuple{129, 131, 72}}) {
    Case t;
    t.m = m, t.n = n, t.k = k, t.in = in, t.out = out;
    t.a_layout = layouts & 1 ? kCol : kRow;
    t.b_layout = layouts & 2 ? kRow : kCol;
    run_case(t, 1000 + layouts);
  }
}

// Named like "A_row_B_col_f16_to_f32".
std::string combination_name(::testing::TestParamInfo<std::tuple<int, DataType, DataType>> const& info) {
  auto [layouts, in, out] = info.param;
  return std::string("A_") + (layouts & 1 ? "col" : "row") + "_B_" + (layouts & 2 ? "row" : "col") + "_" +
         data_type_name(in) + "_to_" + data_type_name(out);
}

INSTANTIATE_TEST_SUITE_P(AllLayoutsAndTypes, GemmCombination,
                         ::testing::Combine(::testing::Values(0, 1, 2, 3),
                                            ::testing::Values(DataType::kF16, DataType::kBF16),
                                            ::testing::Values(DataType::kF32, DataType::kF16, DataType::kBF16)),
                         combination_name);

// ---- the epilogue ----
TEST(GemmApi, AlphaBetaBiasRelu) {
  Case t{.m = 200, .n = 136, .k = 96, .alpha = 0.5f, .beta = -1.5f, .bias = true, .act = Activation::kReLU};
  run_case(t, 1);
}
TEST(GemmApi, GeluWithF16Output) {
  Case t{.m = 130, .n = 72, .k = 64, .out = DataType::kF16, .alpha = 2.0f, .bias = true, .act = Activation::kGELU};
  run_case(t, 2);
}
TEST(GemmApi, CAliasesD) {
  Case t{.m = 160, .n = 96, .k = 48, .out = DataType::kBF16, .beta = 1.0f, .c_is_d = true};
  run_case(t, 3);
}
TEST(GemmApi, ColumnMajorDWithBiasAndBeta) {
  Case t{.m = 77, .n = 190, .k = 40, .d_layout = kCol, .alpha = 1.0f, .beta = 0.25f, .bias = true};
  run_case(t, 4);
}
TEST(GemmApi, KZeroGivesBetaCPlusBias) {
  Case t{.m = 33, .n = 40, .k = 0, .beta = 2.0f, .bias = true};
  run_case(t, 5);
}
TEST(GemmApi, OneByOneByOne) { run_case(Case{.m = 1, .n = 1, .k = 1}, 6); }

// ---- batches, leading dimensions, the narrow path ----
TEST(GemmApi, StridedBatches) {
  Case t{.m = 96, .n = 80, .k = 56, .batch = 3, .a_layout = kCol, .beta = 1.0f, .bias = true};
  run_case(t, 7);
}
TEST(GemmApi, PaddedLeadingDimensions) { run_case(Case{.m = 128, .n = 128, .k = 64, .pad = 8}, 8); }
TEST(GemmApi, OddKTakesTheNarrowPath) {
  run_case(Case{.m = 70, .n = 90, .k = 33}, 9);
  run_case(Case{.m = 70, .n = 90, .k = 33, .a_layout = kCol, .b_layout = kRow, .in = DataType::kBF16}, 10);
}
TEST(GemmApi, UnalignedLeadingDimensionsAndPointers) {
  run_case(Case{.m = 64, .n = 64, .k = 64, .pad = 3}, 11);
  run_case(Case{.m = 100, .n = 50, .k = 64, .out = DataType::kF16, .offset = 1}, 12);
  run_case(Case{.m = 100, .n = 50, .k = 64, .a_layout = kCol, .b_layout = kRow, .d_layout = kCol, .beta = 1.0f,
                .bias = true, .offset = 1},
           13);
  // D's rows not 16-byte aligned over several tiles (the epilogue's spread element-wise path),
  // with C aliasing D, and with GELU and a per-row bias (column-major D).
  run_case(Case{.m = 200, .n = 300, .k = 72, .out = DataType::kBF16, .beta = 0.5f, .pad = 1, .c_is_d = true}, 131);
  run_case(Case{.m = 260, .n = 135, .k = 40, .d_layout = kCol, .out = DataType::kF16, .alpha = 1.5f, .bias = true,
                .act = Activation::kGELU, .pad = 5},
           132);
}

bool is_sm90_config(std::string const& name) { return name.rfind("sm90_", 0) == 0; }

// Whether gemm() runs the sm_90a TMA kernel here (an H100 without TESSEL_DISABLE_SM90).
bool sm90_kernel_runs() {
  GemmArguments args;
  args.m = args.n = args.k = 64, args.lda = args.ldb = args.ldd = 64;
  args.a = reinterpret_cast<void*>(std::uintptr_t(1) << 20), args.b = reinterpret_cast<void*>(std::uintptr_t(2) << 20);
  args.d = reinterpret_cast<void*>(std::uintptr_t(3) << 20);
  GemmPlan p;
  return plan(args, &p).ok() && p.kernel == "sm90_tma_warp_specialized";
}

// 16-bit D whose rows start at every 2-byte offset from a 16-byte boundary (odd ldd shifts each
// row by one element more than the last; the pointer offset shifts them all): the epilogues'
// unaligned paths (store_tile_unaligned, the sm90 warp scratch, the store warps). Every
// configuration that runs here, tiles cut by M and N, with a residual and a bias per column,
// C aliasing D, and GELU with a bias per row (column-major D).
TEST(GemmApi, UnalignedDRowsAtEveryOffset) {
  for (auto const& name : gemm_config_names()) {
    if (is_sm90_config(name) && !sm90_kernel_runs()) continue;
    for (int offset = 0; offset < 8; offset += 3) {
      run_case(Case{.m = 141, .n = 263, .k = 24, .out = DataType::kF16, .pad = 2, .offset = offset, .config = name},
               40 + offset);
      run_case(Case{.m = 77, .n = 300, .k = 40, .out = DataType::kBF16, .beta = 0.5f, .bias = true,
                    .act = Activation::kReLU, .pad = 7, .offset = offset, .config = name},
               50 + offset);
    }
    run_case(Case{.m = 130, .n = 137, .k = 16, .out = DataType::kBF16, .beta = 1.0f, .pad = 3, .c_is_d = true,
                  .config = name},
             60);
    run_case(Case{.m = 263, .n = 70, .k = 32, .d_layout = kCol, .out = DataType::kF16, .bias = true,
                  .act = Activation::kGELU, .pad = 5, .offset = 1, .config = name},
             61);
  }
}

// ---- every shipped configuration, interior and edge ----
// (Edges with 16-byte access: the contiguous extents M, N and K stay multiples of 8.)
// The sm90 ones only where they run; elsewhere forcing one is kNotSupported.
TEST(GemmApi, EveryConfiguration) {
  for (auto const& name : gemm_config_names()) {
    if (is_sm90_config(name) && !sm90_kernel_runs()) {
      GemmArguments args;
      args.m = args.n = args.k = 64, args.lda = args.ldb = args.ldd = 64, args.config = name;
      args.a = args.b = args.d = reinterpret_cast<void*>(std::uintptr_t(1) << 20);
      args.d = reinterpret_cast<void*>(std::uintptr_t(3) << 20);
      GemmPlan p;
      EXPECT_EQ(plan(args, &p).code(), StatusCode::kNotSupported) << name;
      continue;
    }
    run_case(Case{.m = 256, .n = 256, .k = 128, .config = name}, 14);
    run_case(Case{.m = 152, .n = 264, .k = 88, .a_layout = kCol, .b_layout = kRow, .config = name}, 15);
  }
}

// Rows of 66 bytes under every configuration: the narrow sm80 tile loads them element-wise,
// the other sm80 tiles (which have no narrow access) and the TMA kernel read a copy with
// 16-byte rows (zero-padded for the sm80 kernel, whose last vector of a row reads the pad).
TEST(GemmApi, EveryConfigurationRunsANarrowProblem) {
  for (auto const& name : gemm_config_names()) {
    if (is_sm90_config(name) && !sm90_kernel_runs()) continue;  // refused: EveryConfiguration
    const std::string access = is_sm90_config(name) ? "TMA+staged" : name == "128x128x32_s4_w2x2" ? "2B" : "16B+staged";
    run_case(Case{.m = 64, .n = 72, .k = 33, .config = name, .access = access}, 19);
    run_case(Case{.m = 129, .n = 65, .k = 1031, .a_layout = kCol, .b_layout = kRow, .in = DataType::kBF16,
                  .beta = 1.0f, .pad = 3, .config = name, .access = access},
             20);
  }
}

// The narrow tile loads the widest vectors both operands allow: 8 bytes where rows, leading
// dimensions, batch strides and pointers are multiples of 4 elements, 4 bytes where of 2.
TEST(GemmApi, NarrowTileLoadsTheWidestVectorsTheOperandsAllow) {
  const std::string narrow = "128x128x32_s4_w2x2";
  run_case(Case{.m = 131, .n = 70, .k = 36, .config = narrow, .access = "8B"}, 21);
  run_case(Case{.m = 131, .n = 70, .k = 34, .config = narrow, .access = "4B"}, 22);
  run_case(Case{.m = 100, .n = 52, .k = 64, .a_layout = kCol, .b_layout = kRow, .out = DataType::kF16, .offset = 4,
                .config = narrow, .access = "8B"},
           23);
  run_case(Case{.m = 98, .n = 50, .k = 64, .d_layout = kCol, .beta = 1.0f, .bias = true, .offset = 2,
                .config = narrow, .access = "4B"},
           24);
  run_case(Case{.m = 64, .n = 96, .k = 4100, .batch = 2, .in = DataType::kBF16, .pad = 4, .config = narrow,
                .access = "8B"},
           25);  // split-K
  run_case(Case{.m = 260, .n = 36, .k = 130, .batch = 3, .a_layout = kCol, .pad = 2, .config = narrow, .access = "4B",
                .broadcast_b = true},
           26);
}

// ---- split-K: few output tiles, deep K ----
TEST(GemmApi, DeepKIsSplitAndSummed) {
  Case t{.m = 64, .n = 96, .k = 8192, .d_layout = kCol, .out = DataType::kF16, .alpha = 0.5f, .beta = 1.0f,
         .bias = true, .act = Activation::kReLU};
  run_case(t, 16);
  run_case(Case{.m = 40, .n = 72, .k = 4099, .batch = 2, .in = DataType::kBF16}, 17);  // narrow, batched
  run_case(Case{.m = 64, .n = 64, .k = 4096, .beta = 2.0f, .c_is_d = true}, 18);
}

// Calls on one stream without a synchronization between them each see the last one's output,
// and none writes what the last one may still read: the sm90 kernel is a programmatic
// dependent launch (kernel_sm90_tma.hpp), which may start before the kernel ahead of it ends.
// X and Y take turns as A and D of 16 GEMMs X·P -> Y, Y·P -> X (P a permutation, so every
// result is an exact copy of A's values), both poisoned first; X must end as A's columns
// permuted 16 times.
TEST(GemmApi, BackToBackCallsSeeEachOthersOutput) {
  constexpr int kM = 2048, kN = 512, kSteps = 16;
  std::mt19937 rng(71);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(std::size_t(kM) * kN), p(std::size_t(kN) * kN, 0.0f);
  for (auto& x : a) x = round_to(DataType::kF16, dist(rng));
  std::vector<int> perm(kN);
  for (int j = 0; j < kN; ++j) perm[j] = j;
  std::shuffle(perm.begin(), perm.end(), rng);
  for (int j = 0; j < kN; ++j) p[std::size_t(j) * kN + perm[j]] = 1.0f;  // column-major: P(perm[j], j) = 1
  DeviceBuffer x(a.size() * 2), y(a.size() * 2), dp(p.size() * 2);
  ASSERT_EQ(cudaMemset(y.ptr, 0xff, a.size() * 2), cudaSuccess);
  const std::vector<unsigned char> a_bytes = encode(DataType::kF16, a), p_bytes = encode(DataType::kF16, p);
  ASSERT_EQ(cudaMemcpy(x.ptr, a_bytes.data(), a_bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dp.ptr, p_bytes.data(), p_bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  GemmArguments args;
  args.m = kM, args.n = kN, args.k = kN, args.output_type = DataType::kF16;
  args.lda = args.ldb = args.ldd = kN, args.b = dp.ptr;
  GemmPlan plan_of;
  args.a = x.ptr, args.d = y.ptr;
  ASSERT_TRUE(plan(args, &plan_of).ok());
  if (sm90_kernel_runs()) EXPECT_EQ(plan_of.kernel, "sm90_tma_warp_specialized");
  for (int step = 0; step < kSteps; ++step) {
    args.a = step % 2 == 0 ? x.ptr : y.ptr, args.d = step % 2 == 0 ? y.ptr : x.ptr;
    const Status s = gemm(args, stream);
    ASSERT_TRUE(s.ok()) << "step " << step << ": " << s.message();
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  std::vector<unsigned char> out(a.size() * 2);
  ASSERT_EQ(cudaMemcpy(out.data(), x.ptr, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  std::vector<int> source(kN);  // column j of the result is column source[j] of A
  for (int j = 0; j < kN; ++j) source[j] = j;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<int> next(kN);
    for (int j = 0; j < kN; ++j) next[j] = source[perm[j]];  // (X·P)(i, j) = X(i, perm[j])
    source = next;
  }
  int failures = 0;
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j) {
      const float want = a[std::size_t(i) * kN + source[j]];
      const float got = decode(DataType::kF16, &out[(std::size_t(i) * kN + j) * 2]);
      if (!(got == want) && ++failures <= 5) {
        ADD_FAILURE() << "X(" << i << "," << j << ") = " << got << ", expected " << want;
      }
    }
  EXPECT_EQ(failures, 0);
}

TEST(GemmApi, PlanSplitsOnlyDeepProblemsWithFewTiles) {
  GemmArguments args;
  args.m = 256, args.n = 256, args.k = 65536, args.lda = 65536, args.ldb = 65536, args.ldd = 256;
  args.a = reinterpret_cast<void*>(std::uintptr_t(1) << 32);
  args.b = reinterpret_cast<void*>(std::uintptr_t(2) << 32);
  args.d = reinterpret_cast<void*>(std::uintptr_t(3) << 32);
  GemmPlan p;
  ASSERT_TRUE(plan(args, &p).ok());
  EXPECT_GT(p.split_k, 1);
  EXPECT_NE(p.variant.find("splitk"), std::string::npos) << p.variant;
  args.m = args.n = 4096, args.k = 4096, args.lda = args.ldb = args.ldd = 4096;
  ASSERT_TRUE(plan(args, &p).ok());
  EXPECT_EQ(p.split_k, 1);
  EXPECT_EQ(p.variant.find("streamk"), std::string::npos) << p.variant;
}

// ---- plan() says which kernel runs ----
TEST(GemmApi, PlanNamesVariantAndAccess) {
  GemmArguments args;
  args.m = 256, args.n = 256, args.k = 128, args.lda = 128, args.ldb = 128, args.ldd = 256;
  args.a = args.b = args.d = reinterpret_cast<void*>(std::uintptr_t(1) << 20);
  args.b = reinterpret_cast<void*>(std::uintptr_t(2) << 20);
  args.d = reinterpret_cast<void*>(std::uintptr_t(3) << 20);
  GemmPlan p;
  ASSERT_TRUE(plan(args, &p).ok());
  if (sm90_kernel_runs()) {
    EXPECT_EQ(p.kernel, "sm90_tma_warp_specialized");
    EXPECT_EQ(p.variant, "tma");
    EXPECT_EQ(p.access, "TMA");
    EXPECT_EQ(p.schedule, "cooperative persistent");
  } else {
    EXPECT_EQ(p.kernel, "sm80_multistage");
    EXPECT_EQ(p.variant, "interior");
    EXPECT_EQ(p.access, "16B");
  }
  args.k = 33, args.lda = 33, args.ldb = 33;  // rows of 66 bytes: neither TMA nor 16-byte cp.async
  ASSERT_TRUE(plan(args, &p).ok());
  EXPECT_EQ(p.variant, "edge");
  EXPECT_EQ(p.access, "2B");
  args.d_layout = kCol;
  ASSERT_TRUE(plan(args, &p).ok());
  EXPECT_TRUE(p.swapped);
}

// ---- the sm_90a TMA kernel, each configuration forced (skipped where it does not run) ----
class GemmSm90Config : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!sm90_kernel_runs()) GTEST_SKIP() << "the sm_90a kernel does not run here (not an H100, or TESSEL_DISABLE_SM90)";
  }
};

// Every layout x input x output type on an edge problem: M, N not multiples of the tile (nor
// of 64: the MN-major boxes), K not a multiple of 64.
TEST_P(GemmSm90Config, EveryLayoutAndType) {
  for (int layouts = 0; layouts < 4; ++layouts) {
    for (DataType in : {DataType::kF16, DataType::kBF16}) {
      for (DataType out : {DataType::kF32, DataType::kF16, DataType::kBF16}) {
        Case t{.m = 136, .n = 264, .k = 200, .in = in, .out = out, .config = GetParam()};
        t.a_layout = layouts & 1 ? kCol : kRow, t.b_layout = layouts & 2 ? kRow : kCol;
        run_case(t, 2000 + layouts);
        if (HasFailure()) return;
      }
    }
  }
}

// Sizes 1, primes and K below one K tile; 16-byte rows where the layout needs them.
TEST_P(GemmSm90Config, EdgeSizes) {
  const std::string c = GetParam();
  run_case(Case{.m = 1, .n = 8, .k = 8, .config = c}, 21);
  run_case(Case{.m = 257, .n = 8, .k = 8, .config = c}, 22);
  run_case(Case{.m = 131, .n = 383, .k = 16, .out = DataType::kF16, .config = c}, 23);
  run_case(Case{.m = 8, .n = 1, .k = 24, .a_layout = kCol, .b_layout = kCol, .d_layout = kCol, .config = c}, 24);
  run_case(Case{.m = 520, .n = 136, .k = 1032, .a_layout = kRow, .b_layout = kRow, .config = c}, 25);
  run_case(Case{.m = 33, .n = 40, .k = 0, .beta = 2.0f, .bias = true, .config = c}, 26);
}

// More tiles than SMs: each persistent block walks several (in ping-pong, both warpgroups
// take turns); with a column-major D and C read.
TEST_P(GemmSm90Config, SeveralTilesPerBlock) {
  const std::string c = GetParam();
  run_case(Case{.m = 2200, .n = 2312, .k = 72, .config = c}, 61);
  run_case(Case{.m = 1160, .n = 2056, .k = 136, .d_layout = kCol, .out = DataType::kBF16, .beta = 0.5f, .config = c},
           62);
}

TEST_P(GemmSm90Config, EpilogueAndBatches) {
  const std::string c = GetParam();
  run_case(Case{.m = 200, .n = 136, .k = 96, .alpha = 0.5f, .beta = -1.5f, .bias = true,
                .act = Activation::kReLU, .config = c},
           31);
  run_case(Case{.m = 130, .n = 72, .k = 64, .out = DataType::kF16, .alpha = 2.0f, .bias = true,
                .act = Activation::kGELU, .config = c},
           32);
  run_case(Case{.m = 160, .n = 96, .k = 48, .out = DataType::kBF16, .beta = 1.0f, .c_is_d = true, .config = c}, 33);
  run_case(Case{.m = 77, .n = 192, .k = 40, .d_layout = kCol, .beta = 0.25f, .bias = true, .config = c}, 34);
  run_case(Case{.m = 96, .n = 80, .k = 56, .batch = 3, .a_layout = kCol, .beta = 1.0f, .bias = true, .config = c}, 35);
  run_case(Case{.m = 72, .n = 264, .k = 72, .batch = 4, .config = c, .broadcast_a = true}, 36);
  run_case(Case{.m = 136, .n = 40, .k = 128, .batch = 3, .b_layout = kRow, .config = c, .broadcast_b = true}, 37);
  run_case(Case{.m = 128, .n = 128, .k = 64, .pad = 8, .config = c}, 38);
}

// The same bits from gemm() every run (split-K or stream-K, whatever is planned).
void expect_same_bits_every_run(int m, int n, int k, std::string const& c) {
  SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
  DeviceBuffer a(size_t(m) * k * 2), b(size_t(n) * k * 2), d(size_t(m) * n * 4);
  std::vector<float> values(size_t(std::max(m, n)) * k);
  std::mt19937 rng(42);
  for (auto& x : values) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  const std::vector<unsigned char> bytes = encode(DataType::kF16, values);
  ASSERT_EQ(cudaMemcpy(a.ptr, bytes.data(), size_t(m) * k * 2, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b.ptr, bytes.data(), size_t(n) * k * 2, cudaMemcpyHostToDevice), cudaSuccess);
  GemmArguments args;
  args.m = m, args.n = n, args.k = k, args.lda = k, args.ldb = k, args.ldd = n, args.config = c;
  args.a = a.ptr, args.b = b.ptr, args.d = d.ptr;
  GemmPlan p;
  ASSERT_TRUE(plan(args, &p).ok());
  SCOPED_TRACE(p.config + "/" + p.variant);
  std::vector<float> first(size_t(m) * n), again(size_t(m) * n);
  for (int run = 0; run < 5; ++run) {
    ASSERT_TRUE(gemm(args, nullptr).ok());
    ASSERT_EQ(cudaMemcpy(run == 0 ? first.data() : again.data(), d.ptr, first.size() * 4, cudaMemcpyDeviceToHost),
              cudaSuccess);
    if (run > 0) EXPECT_EQ(std::memcmp(first.data(), again.data(), first.size() * 4), 0) << "run " << run;
  }
}

// Deep K with few tiles runs split-K or stream-K; the fixed-order sums (the reduction kernel's,
// the fix-up's) give the same bits every run, whichever block finishes last.
// 16-bit D through the TMA epilogue (epilogue_tma_store_sm90.hpp; the store warps' configuration
// keeps its own): each form of the values (plain, ReLU, GELU, C, bias per column and, with
// column-major D, per row), edges of M and N inside a box, N narrower than a box, batches, C
// as D, padded rows, and enough tiles that each block's staging groups are reused. N that ends
// inside a 16-byte run stays on the registers (the engine would write the rest of the run).
TEST_P(GemmSm90Config, SixteenBitDThroughTheTmaEngine) {
  const std::string c = GetParam();
  const std::string engine = c.ends_with("_sw") ? "" : "D stored by the TMA engine";
  const DataType f16 = DataType::kF16, bf16 = DataType::kBF16;
  run_case(Case{.m = 300, .n = 200, .k = 64, .out = f16, .config = c, .schedule = engine}, 61);
  run_case(Case{.m = 131, .n = 72, .k = 128, .out = bf16, .alpha = 0.5f, .bias = true, .act = Activation::kReLU,
                .config = c, .schedule = engine},
           62);
  run_case(Case{.m = 264, .n = 136, .k = 96, .d_layout = kCol, .out = f16, .beta = 0.75f, .bias = true,
                .act = Activation::kGELU, .config = c, .schedule = engine},
           63);
  run_case(Case{.m = 96, .n = 24, .k = 64, .batch = 3, .out = bf16, .beta = 1.0f, .c_is_d = true, .config = c,
                .schedule = engine},
           64);
  run_case(Case{.m = 200, .n = 328, .k = 64, .out = f16, .pad = 8, .config = c, .schedule = engine}, 65);
  run_case(Case{.m = 2100, .n = 1032, .k = 80, .batch = 2, .out = bf16, .bias = true, .config = c, .schedule = engine},
           66);
  run_case(Case{.m = 7, .n = 61, .k = 2, .d_layout = kCol, .out = f16, .alpha = -0.5f, .pad = 1, .config = c}, 67);
  run_case(Case{.m = 190, .n = 61, .k = 64, .out = bf16, .bias = true, .pad = 3, .config = c}, 68);
}

TEST_P(GemmSm90Config, SplitKAndStreamKAreDeterministic) {
  const std::string c = GetParam();
  run_case(Case{.m = 64, .n = 96, .k = 8192, .d_layout = kCol, .out = DataType::kF16, .alpha = 0.5f, .beta = 1.0f,
                .bias = true, .act = Activation::kReLU, .config = c},
           41);
  for (auto [m, n, k] : {std::tuple{200, 136, 16384}, std::tuple{1024, 1024, 4096}}) {
    expect_same_bits_every_run(m, n, k, c);
  }
}

// Stream-K's shapes: a tile past a whole wave (the last wave and one before are shared as
// ranges, the waves before run whole tiles); 44 tiles in 2 K slices (sliced), K not a multiple
// of the tile; few tiles (split-K), batches, bias and C through the fix-up and the reduction.
// The planner takes stream-K only from 64 K tiles a tile; here from one
// (TESSEL_STREAM_K_MIN_K_TILES), so that the shapes stay small.
TEST_P(GemmSm90Config, StreamKShapes) {
  const std::string c = GetParam();
  struct Env {
    Env() { setenv("TESSEL_STREAM_K_MIN_K_TILES", "1", 1); }
    ~Env() { unsetenv("TESSEL_STREAM_K_MIN_K_TILES"); }
  } env;
  int tile_m = 0, tile_n = 0;  // from the name: sm90_<TileM>x<TileN>x...
  ASSERT_EQ(std::sscanf(c.c_str(), "sm90_%dx%dx", &tile_m, &tile_n), 2) << c;
  Case ranges{.m = tile_m * 19, .n = tile_n * 7, .k = 200, .config = c};  // 133 tiles of 4 K tiles
  Case sliced{.m = tile_m * 11, .n = tile_n * 4, .k = 1040, .out = DataType::kF16, .bias = true, .config = c};
  for (auto const& t : {ranges, sliced}) {
    GemmArguments args;
    args.m = t.m, args.n = t.n, args.k = t.k, args.lda = t.k, args.ldb = t.k, args.ldd = t.n, args.config = c;
    args.a = reinterpret_cast<void*>(std::uintptr_t(1) << 32), args.b = reinterpret_cast<void*>(std::uintptr_t(2) << 32);
    args.d = reinterpret_cast<void*>(std::uintptr_t(3) << 32);
    GemmPlan p;
    Status s = plan(args, &p);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(p.variant, "tma+streamk") << t.describe();
  }
  run_case(ranges, 81);
  run_case(sliced, 85);
  run_case(Case{.m = 200, .n = 136, .k = 3001, .a_layout = kCol, .out = DataType::kBF16, .alpha = 0.5f,
                .beta = 1.0f, .bias = true, .act = Activation::kGELU, .config = c},
           82);
  run_case(Case{.m = 72, .n = 264, .k = 2056, .batch = 3, .d_layout = kCol, .out = DataType::kF16, .bias = true,
                .config = c, .broadcast_b = true},
           83);
  run_case(Case{.m = 17, .n = 40, .k = 4160, .b_layout = kRow, .beta = 2.0f, .c_is_d = true, .config = c}, 84);
}

// Operands the TMA engine cannot read (rows, pointers or batch strides that are not 16
// bytes) are staged into 16-byte rows: odd K, offset pointers, padded and unpacked batches,
// both majors.
TEST_P(GemmSm90Config, StagesOperandsWithoutSixteenByteRows) {
  const std::string c = GetParam();
  run_case(Case{.m = 70, .n = 90, .k = 33, .config = c}, 51);
  run_case(Case{.m = 70, .n = 90, .k = 33, .a_layout = kCol, .b_layout = kRow, .in = DataType::kBF16, .config = c},
           52);
  run_case(Case{.m = 100, .n = 50, .k = 64, .out = DataType::kF16, .offset = 1, .config = c}, 53);
  run_case(Case{.m = 64, .n = 72, .k = 64, .batch = 3, .pad = 3, .config = c}, 54);
  run_case(Case{.m = 130, .n = 200, .k = 1031, .batch = 2, .beta = 1.0f, .config = c, .broadcast_b = true}, 55);
  run_case(Case{.m = 40, .n = 72, .k = 4099, .batch = 2, .in = DataType::kBF16, .config = c}, 56);  // split-K too
}

std::vector<std::string> sm90_config_names() {
  std::vector<std::string> names;
  for (auto const& name : gemm_config_names()) {
    if (is_sm90_config(name)) names.push_back(name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Sm90, GemmSm90Config, ::testing::ValuesIn(sm90_config_names()),
                         [](::testing::TestParamInfo<std::string> const& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GemmSm90Config);

// ---- random problems ----
TEST(GemmApi, RandomProblems) {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int sizes[] = {1, 2, 7, 8, 13, 16, 31, 64, 97, 127, 128, 129, 191, 256, 263};
  for (int i = 0; i < 40; ++i) {
    Case t;
    t.m = sizes[pick(0, 14)], t.n = sizes[pick(0, 14)], t.k = sizes[pick(0, 14)];
    t.batch = pick(1, 2);
    t.a_layout = pick(0, 1) ? kRow : kCol, t.b_layout = pick(0, 1) ? kRow : kCol, t.d_layout = pick(0, 3) ? kRow : kCol;
    t.in = pick(0, 1) ? DataType::kF16 : DataType::kBF16;
    t.out = DataType(pick(0, 2));
    t.alpha = pick(0, 1) ? 1.0f : 0.75f, t.beta = pick(0, 1) ? 0.0f : 0.5f;
    t.bias = pick(0, 1), t.act = Activation(pick(0, 2));
    t.pad = pick(0, 2) == 0 ? pick(1, 9) : 0;
    t.offset = pick(0, 4) == 0 ? 1 : 0;
    run_case(t, 100 + i);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace tessel
