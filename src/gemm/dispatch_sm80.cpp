// gemm(), plan() and gemm_config_names(): from GemmArguments to one precompiled sm80 kernel.
//
//   1. validate (runtime/validate_gemm.cpp); empty problems return at once
//   2. the kernel's view: D row-major (M,N) = A (M,K) * B (N,K)^T. A column-major D is
//      computed as D^T = B^T A^T (A and B swap, M and N swap, the bias runs along rows)
//   3. each operand K-major or MN-major; 16-byte access if its pointer, leading dimension,
//      batch stride and contiguous extent allow it, else the narrow path
//   4. a tile configuration (the override, or the heuristic), interior or edge variant
//   5. split-K when the output tiles would leave most SMs idle and K is deep: the kernel writes
//      each K slice's fp32 partial sums to a stream-ordered workspace, split_k_reduce sums
//      them in order and applies the epilogue
#include <algorithm>
#include <cstdint>
#include <string>

#include "gemm/instances_sm80.hpp"
#include "gemm/split_k_reduce.hpp"
#include "gemm/tile_configs_sm80.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {
namespace {

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

KernelProblem kernel_problem(GemmArguments const& args) {
  // User A (M x K): row-major is K-major. User B (K x N): column-major is K-major.
  OperandView a{args.a, args.a_layout == MatrixLayout::kRowMajor ? Major::kK : Major::kMN, args.lda,
                args.a_batch_stride, args.m};
  OperandView b{args.b, args.b_layout == MatrixLayout::kColumnMajor ? Major::kK : Major::kMN, args.ldb,
                args.b_batch_stride, args.n};
  if (args.d_layout == MatrixLayout::kColumnMajor) return {args.n, args.m, args.k, args.batch, b, a, true};
  return {args.m, args.n, args.k, args.batch, a, b, false};
}

// 16-byte cp.async needs whole 16-byte vectors: the contiguous extent, the leading dimension,
// the batch stride (when batched) and the pointer all multiples of 8 elements.
bool allows_16b_access(OperandView const& v, int k, int batch) {
  const int contiguous = v.major == Major::kK ? k : v.mn;
  return contiguous % 8 == 0 && v.ld % 8 == 0 && (batch == 1 || v.batch_stride % 8 == 0) &&
         reinterpret_cast<std::uintptr_t>(v.ptr) % 16 == 0;
}

int config_index(std::string const& name) {
  for (int i = 0; i < sm80::kNumTileConfigs; ++i) {
    if (name == sm80::kTileConfigs[i].name) return i;
  }
  return -1;
}

// The heuristic, from tessel-prof sweeps on an H100 (docs/PERFORMANCE.md, 2026-11-23):
// 128x128x32 with 4 stages was fastest or tied (within 1%) on every large shape measured,
// 8192^3 and 4096x14336x4096 included, and on the memory-bound 81920x256x256; the large
// 128x256x64 tile tied at 8192^3 and lost elsewhere, so it is left to the override. When
// 128x128 tiles would leave SMs idle, the 64x128 tile gives more blocks.
int choose_config(KernelProblem const& p, int sms) {
  if (sm80::kNumTileConfigs == 1) return 0;
  const std::int64_t tiles_128x128 = std::int64_t((p.m + 127) / 128) * ((p.n + 127) / 128) * p.batch;
  return config_index(tiles_128x128 < sms ? "64x128x32_s4_w2x2" : "128x128x32_s4_w2x2");
}

std::string config_list() {
  std::string s;
  for (auto const& c : sm80::kTileConfigs) s += std::string(s.empty() ? "" : ", ") + c.name;
  return s;
}

struct Choice {
  KernelProblem problem;
  sm80::KernelChoice kernel;
  int splits;             // K slices (1: none)
  int k_tiles_per_split;  // K tiles each slice accumulates
};

// Split-K: only when the output tiles fill less than half the GPU and K has at least 2048
// elements; as many slices as fill the SMs once, each of at least 8 K tiles, at most 32, and
// no empty slice. Example: 256x256x65536 with 64x128 tiles (8 tiles, 2048 K tiles on 132 SMs)
// -> 16 slices of 128 K tiles.
void choose_splits(KernelProblem const& p, sm80::TileConfigInfo const& c, int sms, int* splits, int* per_split) {
  const int k_tiles = (p.k + c.tile_k - 1) / c.tile_k;
  const std::int64_t tiles = std::int64_t((p.m + c.tile_m - 1) / c.tile_m) * ((p.n + c.tile_n - 1) / c.tile_n) * p.batch;
  *splits = 1, *per_split = k_tiles > 0 ? k_tiles : 1;
  if (2 * tiles > sms || p.k < 2048) return;
  std::int64_t n = std::min<std::int64_t>({sms / tiles, k_tiles / 8, 32, 65535 / p.batch});
  if (n < 2) return;
  *per_split = int((k_tiles + n - 1) / n);
  *splits = (k_tiles + *per_split - 1) / *per_split;
}

Status choose(GemmArguments const& args, int sms, Choice* out) {
  KernelProblem p = kernel_problem(args);
  const bool wide = p.k == 0 || (allows_16b_access(p.a, p.k, p.batch) && allows_16b_access(p.b, p.k, p.batch));
  int config = -1;
  if (!args.config.empty()) {
    config = config_index(args.config);
    if (config < 0) {
      return {StatusCode::kInvalidArgument,
              "config = \"" + args.config + "\" is not a configuration of this build; choose one of: " + config_list()};
    }
    if (!wide && std::string(sm80::kTileConfigs[config].name) != sm80::kNarrowTileConfig.name) {
      return {StatusCode::kNotSupported,
              "config = \"" + args.config +
                  "\" has no narrow-access variant, and this problem needs one (an operand's pointer, leading "
                  "dimension, batch stride or contiguous extent is not a multiple of 16 bytes); use \"" +
                  sm80::kNarrowTileConfig.name + "\" or the default"};
    }
  } else {
    config = wide ? choose_config(p, sms) : config_index(sm80::kNarrowTileConfig.name);
  }
  auto const& c = sm80::kTileConfigs[config];
  const bool interior = wide && p.m % c.tile_m == 0 && p.n % c.tile_n == 0 && p.k % c.tile_k == 0;
  *out = {p, {config, !interior, !wide}, 1, 1};
  choose_splits(p, c, sms, &out->splits, &out->k_tiles_per_split);
  return {};
}

template <DataType Element>
cudaError_t run(Choice const& ch, GemmParamsSm80 const& params, cudaStream_t stream) {
  auto const& p = ch.problem;
  const bool ka = p.a.major == Major::kK, kb = p.b.major == Major::kK;
  if (ka && kb) return sm80::run_gemm<Element, Major::kK, Major::kK>(ch.kernel, params, p.batch, stream);
  if (ka) return sm80::run_gemm<Element, Major::kK, Major::kMN>(ch.kernel, params, p.batch, stream);
  if (kb) return sm80::run_gemm<Element, Major::kMN, Major::kK>(ch.kernel, params, p.batch, stream);
  return sm80::run_gemm<Element, Major::kMN, Major::kMN>(ch.kernel, params, p.batch, stream);
}

bool aligned16(const void* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; }

EpilogueParams epilogue_params(GemmArguments const& args, bool swapped) {
  const int vec = 16 / data_type_bytes(args.output_type);
  const bool c_read = args.beta != 0.0f;
  const bool d_ok = aligned16(args.d) && args.ldd % vec == 0 && (args.batch == 1 || args.d_batch_stride % vec == 0);
  const bool c_ok =
      !c_read || (aligned16(args.c) && args.ldc % vec == 0 && (args.batch == 1 || args.c_batch_stride % vec == 0));
  BiasMode bias = args.bias == nullptr ? BiasMode::kNone : swapped ? BiasMode::kPerRow : BiasMode::kPerColumn;
  return {args.d,  c_read ? args.c : nullptr,
          args.bias, args.ldd,
          args.ldc,  args.d_batch_stride,
          args.c_batch_stride, args.alpha,
          args.beta, bias,
          args.activation, args.output_type,
          d_ok && c_ok};
}

Status device_sms(int* sms) {
  int device = 0, major = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    cudaGetLastError();  // clear it: the caller's later CUDA calls must not see our failure
    return {StatusCode::kNoDevice, std::string("no CUDA device: cudaGetDevice: ") + cudaGetErrorString(e)};
  }
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (major < 8) {
    return {StatusCode::kNoDevice, "device " + std::to_string(device) + " has compute capability " +
                                       std::to_string(major) + ".x; tessel's kernels need sm_80 or newer"};
  }
  cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device);
  return {};
}

}  // namespace

std::vector<std::string> gemm_config_names() {
  std::vector<std::string> names;
  for (auto const& c : sm80::kTileConfigs) names.emplace_back(c.name);
  return names;
}

Status plan(GemmArguments const& args, GemmPlan* out) {
  if (out == nullptr) return {StatusCode::kInvalidArgument, "plan: out is null"};
  if (Status s = validate(args); !s) return s;
  int sms = 132;  // without a device, plan as for an H100
  if (int count = 0; cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    int device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  } else {
    cudaGetLastError();
  }
  Choice ch;
  if (Status s = choose(args, sms, &ch); !s) return s;
  std::string variant = ch.kernel.edges ? "edge" : "interior";
  if (ch.splits > 1) variant += "+splitk" + std::to_string(ch.splits);
  *out = {sm80::kTileConfigs[ch.kernel.config].name, variant, ch.kernel.narrow ? "2B" : "16B", ch.problem.swapped,
          ch.splits};
  return {};
}

Status gemm(GemmArguments const& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  if (args.m == 0 || args.n == 0) return {};  // nothing to compute
  int sms = 0;
  if (Status s = device_sms(&sms); !s) return s;
  Choice ch;
  if (Status s = choose(args, sms, &ch); !s) return s;
  auto const& p = ch.problem;
  const EpilogueParams epilogue = epilogue_params(args, p.swapped);
  GemmParamsSm80 params{p.a.ptr,          p.b.ptr,          p.m,       p.n,  p.k, int(p.a.ld), int(p.b.ld),
                        p.a.batch_stride, p.b.batch_stride, ch.splits, ch.k_tiles_per_split, epilogue};
  auto failed = [&](const char* what, cudaError_t e) -> Status {
    cudaGetLastError();
    return {StatusCode::kCudaError, std::string("gemm: ") + what + " failed (" +
                                        sm80::kTileConfigs[ch.kernel.config].name + "): " + cudaGetErrorString(e)};
  };
  float* workspace = nullptr;
  if (ch.splits > 1) {  // the kernel's epilogue writes raw fp32 slices: (batch * splits, M, N)
    const std::int64_t per_matrix = std::int64_t(p.m) * p.n;
    if (cudaError_t e = cudaMallocAsync(reinterpret_cast<void**>(&workspace),
                                        size_t(per_matrix) * p.batch * ch.splits * sizeof(float), stream);
        e != cudaSuccess) {
      return failed("allocating the split-K workspace", e);
    }
    params.epilogue = EpilogueParams{workspace, nullptr, nullptr, p.n, 0, per_matrix, 0, 1.0f, 0.0f,
                                     BiasMode::kNone, Activation::kNone, DataType::kF32, p.n % 4 == 0};
  }
  cudaError_t e =
      args.input_type == DataType::kF16 ? run<DataType::kF16>(ch, params, stream) : run<DataType::kBF16>(ch, params, stream);
  if (e == cudaSuccess && workspace != nullptr) {
    e = sm80::split_k_reduce(workspace, ch.splits, p.m, p.n, p.batch, epilogue, stream);
  }
  if (workspace != nullptr) cudaFreeAsync(workspace, stream);
  if (e != cudaSuccess) return failed("kernel launch", e);
  return {};
}

}  // namespace tessel
