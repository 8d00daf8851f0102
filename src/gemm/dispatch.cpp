// gemm() and plan(): validate (runtime/validate_gemm.cpp), plan (gemm_plan.cpp: the kernel,
// its tile and split-K), encode the TMA maps where the sm_90a kernel runs, launch.
#include <cstdint>
#include <string>

#include "gemm/gemm_plan.hpp"
#include "gemm/instances_sm90.hpp"
#include "gemm/split_k_reduce.hpp"
#include "runtime/tma_encoder.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {
namespace {

using gemm_detail::Choice;

template <DataType Element>
cudaError_t run(Choice const& ch, GemmParamsSm80 const& params, TmaMatrix const& a, TmaMatrix const& b,
                cudaStream_t stream) {
  auto const& p = ch.problem;
  const bool ka = p.a.major == Major::kK, kb = p.b.major == Major::kK;
  if (ch.kernel == gemm_detail::GemmKernel::kSm90Tma) {
    const int c = ch.sm90.config;
    if (ka && kb) return sm90::run_gemm_tma<Element, Major::kK, Major::kK>(c, params, p.batch, stream, a, b);
    if (ka) return sm90::run_gemm_tma<Element, Major::kK, Major::kMN>(c, params, p.batch, stream, a, b);
    if (kb) return sm90::run_gemm_tma<Element, Major::kMN, Major::kK>(c, params, p.batch, stream, a, b);
    return sm90::run_gemm_tma<Element, Major::kMN, Major::kMN>(c, params, p.batch, stream, a, b);
  }
  if (ka && kb) return sm80::run_gemm<Element, Major::kK, Major::kK>(ch.sm80, params, p.batch, stream);
  if (ka) return sm80::run_gemm<Element, Major::kK, Major::kMN>(ch.sm80, params, p.batch, stream);
  if (kb) return sm80::run_gemm<Element, Major::kMN, Major::kK>(ch.sm80, params, p.batch, stream);
  return sm80::run_gemm<Element, Major::kMN, Major::kMN>(ch.sm80, params, p.batch, stream);
}

// The TMA kernel's maps over A and B (none when K is 0: nothing is loaded); false when the
// driver refuses one.
bool encode_maps(Choice const& ch, TmaMatrix* a, TmaMatrix* b) {
  *a = {}, *b = {};
  if (ch.kernel != gemm_detail::GemmKernel::kSm90Tma || ch.problem.k == 0) return true;
  a->broadcast = ch.sm90.a_broadcast, b->broadcast = ch.sm90.b_broadcast;
  return sm90::encode_tma_map(ch.sm90.a, ch.problem.a.ptr, &a->map) &&
         sm90::encode_tma_map(ch.sm90.b, ch.problem.b.ptr, &b->map);
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

}  // namespace

Status plan(GemmArguments const& args, GemmPlan* out) {
  if (out == nullptr) return {StatusCode::kInvalidArgument, "plan: out is null"};
  if (Status s = validate(args); !s) return s;
  DeviceInfo device = planning_device_without_gpu();
  if (int count = 0; cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    if (Status s = current_device("gemm", &device); !s) return s;
  } else {
    cudaGetLastError();
  }
  Choice ch;
  if (Status s = gemm_detail::choose(args, device, &ch); !s) return s;
  *out = gemm_detail::describe(ch);
  return {};
}

Status gemm(GemmArguments const& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  if (args.m == 0 || args.n == 0) return {};  // nothing to compute
  DeviceInfo device;
  if (Status s = current_device("gemm", &device); !s) return s;
  Choice ch;
  if (Status s = gemm_detail::choose(args, device, &ch); !s) return s;
  TmaMatrix tma_a, tma_b;
  if (!encode_maps(ch, &tma_a, &tma_b)) {  // the driver refused a map: the sm80 kernel runs it
    device.tma_encoder = false;
    if (Status s = gemm_detail::choose(args, device, &ch); !s) return s;
  }
  auto const& p = ch.problem;
  const EpilogueParams epilogue = epilogue_params(args, p.swapped);
  GemmParamsSm80 params{p.a.ptr,          p.b.ptr,          p.m,       p.n,  p.k, int(p.a.ld), int(p.b.ld),
                        p.a.batch_stride, p.b.batch_stride, ch.splits, ch.k_tiles_per_split, epilogue};
  auto failed = [&](const char* what, cudaError_t e) -> Status {
    cudaGetLastError();
    return {StatusCode::kCudaError, std::string("gemm: ") + what + " failed (" + gemm_detail::describe(ch).config +
                                        "): " + cudaGetErrorString(e)};
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
  cudaError_t e = args.input_type == DataType::kF16 ? run<DataType::kF16>(ch, params, tma_a, tma_b, stream)
                                                    : run<DataType::kBF16>(ch, params, tma_a, tma_b, stream);
  if (e == cudaSuccess && workspace != nullptr) {
    e = sm80::split_k_reduce(workspace, ch.splits, p.m, p.n, p.batch, epilogue, stream);
  }
  if (workspace != nullptr) cudaFreeAsync(workspace, stream);
  if (e != cudaSuccess) return failed("kernel launch", e);
  return {};
}

}  // namespace tessel
