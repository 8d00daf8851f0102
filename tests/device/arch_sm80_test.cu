// The sm80 PTX wrappers on the GPU, checked against the PTX ISA and against the traits:
//   mma.sync    random A, B, C loaded into fragments through MmaTraits' TV layouts, D written
//               back through CLayout, compared with a double-precision host reference;
//   ldmatrix    every register bit of every lane compared with the ISA's sentence and with
//               CopyTraits' DstLayout, rows placed non-contiguously in shared memory;
//   cp.async    4/8/16 bytes, .ca/.cg, with and without zero-fill, into poisoned shared
//               memory; wait_group<N> leaves the older groups complete.
// Build and run (GPU machine):
//   cmake --build build --target arch_sm80_test && ./build/tests/device/arch_sm80_test
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tessel/arch/sm80.hpp"
#include "tessel/atom/copy_traits_sm80.hpp"
#include "tessel/atom/mma_traits_sm80.hpp"

namespace tessel {
namespace {

// ---- host helpers ------------------------------------------------------------------------

::testing::AssertionResult cuda_ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e) << ")";
}
#define TESSEL_CUDA_OK(expr) ASSERT_TRUE(cuda_ok((expr), #expr))

// A device copy of a host vector; `download` brings it back.
template <class T>
struct DeviceBuffer {
  explicit DeviceBuffer(std::vector<T> const& host) : n(host.size()) {
    if (cudaMalloc(&ptr, n * sizeof(T)) == cudaSuccess) {
      cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    }
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(DeviceBuffer const&) = delete;
  DeviceBuffer& operator=(DeviceBuffer const&) = delete;
  std::vector<T> download() const {
    std::vector<T> host(n);
    cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost);
    return host;
  }
  T* ptr = nullptr;
  std::size_t n;
};

// Launches a one-warp kernel and waits; a trap in the kernel (e.g. compiled for an arch
// without the instruction) shows up here with the CUDA error.
#define TESSEL_LAUNCH_ONE_WARP(kernel, ...)  \
  do {                                       \
    kernel<<<1, 32>>>(__VA_ARGS__);          \
    TESSEL_CUDA_OK(cudaGetLastError());      \
    TESSEL_CUDA_OK(cudaDeviceSynchronize()); \
  } while (0)

template <class T>
T from_float(float x) {
  if constexpr (std::is_same_v<T, Half>) {
    return __float2half_rn(x);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return __float2bfloat16_rn(x);
  } else {
    return x;
  }
}
template <class T>
double to_double(T x) {
  if constexpr (std::is_same_v<T, Half>) {
    return __half2float(x);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return __bfloat162float(x);
  } else {
    return x;
  }
}

// ---- mma.sync ----------------------------------------------------------------------------

// How many values one thread holds in a (thread, value) layout: 8 for A of m16n8k16.
template <class TV>
inline constexpr int kValuesPerThread = decltype(size(get<1>(TV{})))::value;

// One warp: A (M,K), B (N,K), C and D (M,N), all column-major, i.e. indexed by the traits'
// coordinates directly. Lane l's value v of A is a[ALayout(l, v)]; values are packed into the
// op's registers in order (two 16-bit values per register, low half first).
template <class Op>
__global__ void run_mma(typename MmaTraits<Op>::ValTypeA const* a,
                        typename MmaTraits<Op>::ValTypeB const* b,
                        typename MmaTraits<Op>::ValTypeC const* c,
                        typename MmaTraits<Op>::ValTypeD* d) {
  using T = MmaTraits<Op>;
  constexpr int kA = kValuesPerThread<typename T::ALayout>;
  constexpr int kB = kValuesPerThread<typename T::BLayout>;
  constexpr int kC = kValuesPerThread<typename T::CLayout>;
  int lane = threadIdx.x;

  typename T::ValTypeA a_vals[kA];
  typename T::ValTypeB b_vals[kB];
  typename T::ValTypeC c_vals[kC];
  typename T::ValTypeD d_vals[kC];
  for (int v = 0; v < kA; ++v) a_vals[v] = a[typename T::ALayout{}(lane, v)];
  for (int v = 0; v < kB; ++v) b_vals[v] = b[typename T::BLayout{}(lane, v)];
  for (int v = 0; v < kC; ++v) c_vals[v] = c[typename T::CLayout{}(lane, v)];

  typename Op::ARegisters a_regs;
  typename Op::BRegisters b_regs;
  typename Op::CRegisters c_regs;
  typename Op::DRegisters d_regs;
  static_assert(sizeof(a_vals) == sizeof(a_regs) && sizeof(b_vals) == sizeof(b_regs) &&
                    sizeof(c_vals) == sizeof(c_regs) && sizeof(d_vals) == sizeof(d_regs),
                "the traits' values per thread must fill the op's registers exactly");
  memcpy(&a_regs, a_vals, sizeof(a_regs));
  memcpy(&b_regs, b_vals, sizeof(b_regs));
  memcpy(&c_regs, c_vals, sizeof(c_regs));
  Op::fma(d_regs, a_regs, b_regs, c_regs);
  memcpy(d_vals, &d_regs, sizeof(d_regs));
  for (int v = 0; v < kC; ++v) d[typename T::CLayout{}(lane, v)] = d_vals[v];
}

// Who holds D(m, n), for failure messages.
template <class CLayout>
std::string holder_of(int mn) {
  constexpr int kC = kValuesPerThread<CLayout>;
  for (int lane = 0; lane < 32; ++lane) {
    for (int v = 0; v < kC; ++v) {
      if (CLayout{}(lane, v) == mn) {
        return "lane " + std::to_string(lane) + " value " + std::to_string(v);
      }
    }
  }
  return "no lane (CLayout does not cover it)";
}

// D = A * B + C on random inputs in [-1, 1] (rounded to the input types), against a double
// reference computed from the same rounded values. Tolerance, per element, with
// S = sum_k |A(m,k) B(n,k)| + |C(m,n)|:
//   f32 accumulate:  1e-5 * S + 1e-6   (products of 16-bit inputs are exact in f32; this
//                    leaves ~80 ulp of f32 for the tensor core's accumulation order)
//   f16 accumulate:  2^-7 * S + 2^-10  (16 roundings to f16, 2^-11 each, in the worst order)
// A fragment placed wrongly moves errors to the order of S, far above either bound.
template <class Op>
void check_mma(unsigned seed) {
  using T = MmaTraits<Op>;
  using TA = typename T::ValTypeA;
  using TB = typename T::ValTypeB;
  using TC = typename T::ValTypeC;
  using TD = typename T::ValTypeD;
  typename T::ShapeMNK mnk{};
  const int m_size = get<0>(mnk), n_size = get<1>(mnk), k_size = get<2>(mnk);
  const bool f16_accumulate = std::is_same_v<TD, Half>;

  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<TA> a(m_size * k_size);
  std::vector<TB> b(n_size * k_size);
  std::vector<TC> c(m_size * n_size);
  for (auto& x : a) x = from_float<TA>(uniform(rng));
  for (auto& x : b) x = from_float<TB>(uniform(rng));
  for (auto& x : c) x = from_float<TC>(uniform(rng));
  std::vector<TD> poison(m_size * n_size, from_float<TD>(12345.0f));

  DeviceBuffer<TA> d_a(a);
  DeviceBuffer<TB> d_b(b);
  DeviceBuffer<TC> d_c(c);
  DeviceBuffer<TD> d_d(poison);
  ASSERT_TRUE(d_a.ptr && d_b.ptr && d_c.ptr && d_d.ptr) << "cudaMalloc failed";
  TESSEL_LAUNCH_ONE_WARP(run_mma<Op>, d_a.ptr, d_b.ptr, d_c.ptr, d_d.ptr);
  std::vector<TD> d = d_d.download();

  int failures = 0;
  for (int n = 0; n < n_size; ++n) {
    for (int m = 0; m < m_size; ++m) {
      double ref = to_double(c[m + m_size * n]);
      double scale = std::abs(ref);
      for (int k = 0; k < k_size; ++k) {
        double p = to_double(a[m + m_size * k]) * to_double(b[n + n_size * k]);
        ref += p;
        scale += std::abs(p);
      }
      double tol =
          f16_accumulate ? std::ldexp(scale, -7) + std::ldexp(1.0, -10) : 1e-5 * scale + 1e-6;
      double got = to_double(d[m + m_size * n]);
      if (!(std::abs(got - ref) <= tol) && ++failures <= 8) {
        ADD_FAILURE() << "seed " << seed << ": D(" << m << "," << n << ") = " << got
                      << ", reference " << ref << " (|error| " << std::abs(got - ref)
                      << " > tolerance " << tol << "); D(" << m << "," << n << ") is held by "
                      << holder_of<typename T::CLayout>(m + m_size * n)
                      << " per CLayout. A wrong A/B/C layout or register packing shows as "
                         "errors of the order of the values themselves.";
      }
    }
  }
  EXPECT_EQ(failures, 0) << "seed " << seed << ": " << failures << " of " << m_size * n_size
                         << " elements of D outside the tolerance";
}

TEST(Sm80Mma, M16N8K16_F32F16F16F32_MatchesHostReference) {
  for (unsigned seed : {1u, 2u, 3u}) check_mma<SM80_16x8x16_F32F16F16F32_TN>(seed);
}
TEST(Sm80Mma, M16N8K16_F32BF16BF16F32_MatchesHostReference) {
  for (unsigned seed : {1u, 2u, 3u}) check_mma<SM80_16x8x16_F32BF16BF16F32_TN>(seed);
}
TEST(Sm80Mma, M16N8K16_F16F16F16F16_MatchesHostReference) {
  for (unsigned seed : {1u, 2u, 3u}) check_mma<SM80_16x8x16_F16F16F16F16_TN>(seed);
}
TEST(Sm80Mma, M16N8K8_F32F16F16F32_MatchesHostReference) {
  for (unsigned seed : {1u, 2u, 3u}) check_mma<SM80_16x8x8_F32F16F16F32_TN>(seed);
}
TEST(Sm80Mma, M16N8K8_F32BF16BF16F32_MatchesHostReference) {
  for (unsigned seed : {1u, 2u, 3u}) check_mma<SM80_16x8x8_F32BF16BF16F32_TN>(seed);
}

// ---- ldmatrix ----------------------------------------------------------------------------

// Shared memory rows are kRowPitch elements apart (48 bytes: 16-byte aligned, but not
// contiguous), so a wrapper that assumed contiguous rows would read the wrong data.
constexpr int kRowPitch = 24;
constexpr std::uint16_t kPoison16 = 0xDEAD;

// Element (r, c) of matrix j, readable in hex in failure messages: 0x0jrc.
std::uint16_t matrix_element(int j, int r, int c) { return std::uint16_t(j << 8 | r << 4 | c); }

// `matrices`: Num 8x8 matrices, row-major, one after the other. Lane t < 8*Num addresses row
// t%8 of matrix t/8; the other lanes address a poisoned row (the ISA ignores them). Lane l's
// register j goes to out[l * Num + j].
template <class Op, int Num>
__global__ void run_ldmatrix(std::uint16_t const* matrices, std::uint32_t* out) {
  __shared__ alignas(16) std::uint16_t smem[(8 * Num + 1) * kRowPitch];
  int lane = threadIdx.x;
  for (int i = lane; i < (8 * Num + 1) * kRowPitch; i += 32) smem[i] = kPoison16;
  __syncthreads();
  for (int i = lane; i < 64 * Num; i += 32) smem[(i / 8) * kRowPitch + i % 8] = matrices[i];
  __syncthreads();
  int row = lane < 8 * Num ? lane : 8 * Num;
  std::uint32_t d[Num];
  Op::copy(*reinterpret_cast<Uint128 const*>(&smem[row * kRowPitch]), d);
  for (int j = 0; j < Num; ++j) out[lane * Num + j] = d[j];
}

std::string describe_element(std::uint16_t e) {
  std::ostringstream os;
  os << "0x" << std::hex << e << std::dec;
  if (e == kPoison16) return os.str() + " (poison: an ignored lane's row was read)";
  os << " (matrix " << (e >> 8) << " row " << (e >> 4 & 0xf) << " col " << (e & 0xf) << ")";
  return os.str();
}

template <class Op, int Num, bool Trans>
void check_ldmatrix() {
  std::vector<std::uint16_t> matrices(64 * Num);
  for (int i = 0; i < 64 * Num; ++i) matrices[i] = matrix_element(i / 64, i % 64 / 8, i % 8);
  DeviceBuffer<std::uint16_t> d_matrices(matrices);
  DeviceBuffer<std::uint32_t> d_out(std::vector<std::uint32_t>(32 * Num, 0xFFFFFFFFu));
  ASSERT_TRUE(d_matrices.ptr && d_out.ptr) << "cudaMalloc failed";
  TESSEL_LAUNCH_ONE_WARP((run_ldmatrix<Op, Num>), d_matrices.ptr, d_out.ptr);
  std::vector<std::uint32_t> out = d_out.download();

  using Dst = typename CopyTraits<Op>::DstLayout;
  for (int lane = 0; lane < 32; ++lane) {
    for (int j = 0; j < Num; ++j) {
      std::uint32_t reg = out[lane * Num + j];
      for (int h = 0; h < 2; ++h) {
        // The ISA: lane l holds row l/4, columns 2(l%4) and 2(l%4)+1; .trans the transpose.
        int r = Trans ? 2 * (lane % 4) + h : lane / 4;
        int c = Trans ? lane / 4 : 2 * (lane % 4) + h;
        std::uint16_t got = std::uint16_t(reg >> (16 * h));
        std::uint16_t want = matrix_element(j, r, c);
        EXPECT_EQ(got, want) << "lane " << lane << " register " << j << (h ? " high" : " low")
                             << " half: got " << describe_element(got) << ", the PTX ISA says "
                             << describe_element(want);
        // The traits: bit b of that half is bit Dst(lane, 32j + 16h + b) of the matrices.
        for (int b = 0; b < 16; ++b) {
          int bit = static_cast<int>(Dst{}(lane, 32 * j + 16 * h + b));
          int want_bit = matrices[bit / 16] >> (bit % 16) & 1;
          if ((got >> b & 1) != want_bit) {
            ADD_FAILURE() << "lane " << lane << " register " << j << " bit " << 16 * h + b
                          << ": CopyTraits::DstLayout says it comes from bit " << bit
                          << " (element " << describe_element(matrices[bit / 16])
                          << "), the hardware loaded " << describe_element(got);
            break;
          }
        }
      }
    }
  }
}

TEST(Sm80Ldmatrix, X1LoadsOneMatrixAsTheIsaSays) { check_ldmatrix<SM80_LDMATRIX_X1, 1, false>(); }
TEST(Sm80Ldmatrix, X2LoadsTwoMatricesAsTheIsaSays) { check_ldmatrix<SM80_LDMATRIX_X2, 2, false>(); }
TEST(Sm80Ldmatrix, X4LoadsFourMatricesAsTheIsaSays) {
  check_ldmatrix<SM80_LDMATRIX_X4, 4, false>();
}
TEST(Sm80Ldmatrix, X1TransLoadsTheTranspose) { check_ldmatrix<SM80_LDMATRIX_X1_TRANS, 1, true>(); }
TEST(Sm80Ldmatrix, X2TransLoadsTheTranspose) { check_ldmatrix<SM80_LDMATRIX_X2_TRANS, 2, true>(); }
TEST(Sm80Ldmatrix, X4TransLoadsTheTranspose) { check_ldmatrix<SM80_LDMATRIX_X4_TRANS, 4, true>(); }

// ---- cp.async ----------------------------------------------------------------------------

constexpr unsigned char kPoison8 = 0xAB;
constexpr int kSmemBytes = 32 * 16;  // room for the widest access of every thread

// Thread t copies bytes [t*Bytes, (t+1)*Bytes) of src into poisoned shared memory; with
// zero-fill, threads whose bit is set in `skip` pass pred = false. Then the whole shared
// buffer (kSmemBytes, more than was copied) goes to out.
template <class Op, bool ZeroFill>
__global__ void run_cp_async(unsigned char const* src, unsigned char* out, unsigned skip) {
  constexpr int kBytes = Op::kBytes;
  __shared__ alignas(16) unsigned char smem[kSmemBytes];
  int t = threadIdx.x;
  for (int i = t; i < kSmemBytes; i += 32) smem[i] = kPoison8;
  __syncthreads();
  auto const& s = *reinterpret_cast<UintBytes<kBytes> const*>(src + t * kBytes);
  auto& d = *reinterpret_cast<UintBytes<kBytes>*>(smem + t * kBytes);
  if constexpr (ZeroFill) {
    Op::copy(s, d, ((skip >> t) & 1u) == 0);
  } else {
    Op::copy(s, d);
  }
  cp_async_commit_group();
  cp_async_wait_group<0>();
  __syncthreads();  // every thread's copy visible to every thread
  for (int i = t; i < kSmemBytes; i += 32) out[i] = smem[i];
}

template <class Op, bool ZeroFill>
void check_cp_async() {
  constexpr int kBytes = Op::kBytes;
  const unsigned skip = ZeroFill ? 0x92492492u : 0u;  // threads 1, 4, 7, ...: pred = false
  std::vector<unsigned char> src(kSmemBytes);
  for (int i = 0; i < kSmemBytes; ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  DeviceBuffer<unsigned char> d_src(src);
  DeviceBuffer<unsigned char> d_out(std::vector<unsigned char>(kSmemBytes, 0));
  ASSERT_TRUE(d_src.ptr && d_out.ptr) << "cudaMalloc failed";
  TESSEL_LAUNCH_ONE_WARP((run_cp_async<Op, ZeroFill>), d_src.ptr, d_out.ptr, skip);
  std::vector<unsigned char> out = d_out.download();

  for (int i = 0; i < kSmemBytes; ++i) {
    int t = i / kBytes;
    bool copied = t < 32;
    bool zeroed = copied && ((skip >> t) & 1u);
    int want = !copied ? kPoison8 : zeroed ? 0 : src[i];
    const char* what = !copied  ? "untouched (past the 32 accesses: poison)"
                       : zeroed ? "zero (pred = false: src-size 0 zero-fills)"
                                : "the source byte";
    ASSERT_EQ(int(out[i]), want) << "shared byte " << i << " (thread " << t << ", byte "
                                 << i % kBytes << " of its " << kBytes << "-byte access) should be "
                                 << what
                                 << (out[i] == kPoison8 ? "; it still holds the poison" : "");
  }
}

TEST(Sm80CpAsync, Ca4BytesCopies) { check_cp_async<SM80_CP_ASYNC_CA<4>, false>(); }
TEST(Sm80CpAsync, Ca8BytesCopies) { check_cp_async<SM80_CP_ASYNC_CA<8>, false>(); }
TEST(Sm80CpAsync, Ca16BytesCopies) { check_cp_async<SM80_CP_ASYNC_CA<16>, false>(); }
TEST(Sm80CpAsync, Cg16BytesCopies) { check_cp_async<SM80_CP_ASYNC_CG<16>, false>(); }
TEST(Sm80CpAsync, Ca4BytesZeroFillsWhenPredIsFalse) {
  check_cp_async<SM80_CP_ASYNC_CA_ZFILL<4>, true>();
}
TEST(Sm80CpAsync, Ca8BytesZeroFillsWhenPredIsFalse) {
  check_cp_async<SM80_CP_ASYNC_CA_ZFILL<8>, true>();
}
TEST(Sm80CpAsync, Ca16BytesZeroFillsWhenPredIsFalse) {
  check_cp_async<SM80_CP_ASYNC_CA_ZFILL<16>, true>();
}
TEST(Sm80CpAsync, Cg16BytesZeroFillsWhenPredIsFalse) {
  check_cp_async<SM80_CP_ASYNC_CG_ZFILL<16>, true>();
}

// Three groups (stages) of cp.async per thread, each kChunks x 16 bytes. After
// cp_async_wait_group<2> stage 0 must have landed, after <1> stage 1, after <0> stage 2; each
// thread reads back only what it copied itself (wait_group covers the thread's own copies,
// so no barrier is needed). out[stage][thread][chunk] receives what the thread saw.
constexpr int kStages = 3;
constexpr int kChunks = 8;

__device__ void read_back_stage(Uint128 const (*smem)[32 * kChunks], Uint128* out, int stage) {
  int t = threadIdx.x;
  for (int i = 0; i < kChunks; ++i) {
    out[(stage * 32 + t) * kChunks + i] = smem[stage][t * kChunks + i];
  }
}

__global__ void run_wait_group(Uint128 const* src, Uint128* out, bool use_wait_all) {
  __shared__ Uint128 smem[kStages][32 * kChunks];
  int t = threadIdx.x;
  for (int s = 0; s < kStages; ++s) {
    for (int i = 0; i < kChunks; ++i) smem[s][t * kChunks + i] = Uint128{~0ull, ~0ull};
  }
  __syncthreads();
  for (int s = 0; s < kStages; ++s) {
    for (int i = 0; i < kChunks; ++i) {
      int idx = t * kChunks + i;
      SM80_CP_ASYNC_CG<16>::copy(src[s * 32 * kChunks + idx], smem[s][idx]);
    }
    cp_async_commit_group();
  }
  if (use_wait_all) {
    cp_async_wait_all();
    for (int s = 0; s < kStages; ++s) read_back_stage(smem, out, s);
    return;
  }
  cp_async_wait_group<2>();
  read_back_stage(smem, out, 0);
  cp_async_wait_group<1>();
  read_back_stage(smem, out, 1);
  cp_async_wait_group<0>();
  read_back_stage(smem, out, 2);
}

void check_wait_group(bool use_wait_all) {
  const int n = kStages * 32 * kChunks;
  std::vector<Uint128> src(n);
  for (int i = 0; i < n; ++i) src[i] = Uint128{0x1000000000ull + i, 0x2000000000ull + i};
  DeviceBuffer<Uint128> d_src(src);
  DeviceBuffer<Uint128> d_out(std::vector<Uint128>(n, Uint128{0, 0}));
  ASSERT_TRUE(d_src.ptr && d_out.ptr) << "cudaMalloc failed";
  TESSEL_LAUNCH_ONE_WARP(run_wait_group, d_src.ptr, d_out.ptr, use_wait_all);
  std::vector<Uint128> out = d_out.download();
  for (int i = 0; i < n; ++i) {
    int stage = i / (32 * kChunks), thread = i / kChunks % 32, chunk = i % kChunks;
    bool same = out[i].lo == src[i].lo && out[i].hi == src[i].hi;
    bool poison = out[i].lo == ~0ull && out[i].hi == ~0ull;
    ASSERT_TRUE(same) << "stage " << stage << " thread " << thread << " chunk " << chunk
                      << (poison ? ": still the poison" : ": wrong data") << " when read after "
                      << (use_wait_all ? std::string("cp_async_wait_all()")
                                       : "cp_async_wait_group<" +
                                             std::to_string(kStages - 1 - stage) + ">()")
                      << ", which must wait for that group and every older one";
  }
}

TEST(Sm80CpAsync, WaitGroupNLeavesOnlyTheNewestNGroupsPending) { check_wait_group(false); }
TEST(Sm80CpAsync, WaitAllWaitsForEveryGroup) { check_wait_group(true); }

}  // namespace
}  // namespace tessel
