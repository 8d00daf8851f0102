// gemm() and plan(): validate (runtime/validate_gemm.cpp), plan (gemm_plan.cpp: the kernel,
// its tile and split-K), encode the TMA maps where the sm_90a kernel runs, launch.
#include <cstdint>
#include <string>
#include <tuple>

#include "gemm/gemm_plan.hpp"
#include "gemm/instances_sm90.hpp"
#include "gemm/split_k_reduce.hpp"
#include "gemm/stream_k_workspace.hpp"
#include "gemm/tile_configs_sm90.hpp"
#include "runtime/pad_rows.hpp"
#include "runtime/stream_buffer.hpp"
#include "runtime/tma_encoder.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {
namespace {

using gemm_detail::Choice;

// The TMA kernel with the TMA epilogue (Tma) or the registers' (instances_sm90.hpp).
template <DataType Element, bool Tma>
cudaError_t run_tma(Choice const& ch, GemmParams const& params, TmaMatrix const& a, TmaMatrix const& b,
                    StreamKParams const& sk, TmaStoreD const& d, cudaStream_t stream) {
  auto const& p = ch.problem;
  const bool ka = p.a.major == Major::kK, kb = p.b.major == Major::kK;
  const int c = ch.sm90.config;
  if (ka && kb) return sm90::run_gemm_tma<Element, Major::kK, Major::kK, Tma>(c, params, p.batch, stream, a, b, sk, d);
  if (ka) return sm90::run_gemm_tma<Element, Major::kK, Major::kMN, Tma>(c, params, p.batch, stream, a, b, sk, d);
  if (kb) return sm90::run_gemm_tma<Element, Major::kMN, Major::kK, Tma>(c, params, p.batch, stream, a, b, sk, d);
  return sm90::run_gemm_tma<Element, Major::kMN, Major::kMN, Tma>(c, params, p.batch, stream, a, b, sk, d);
}

template <DataType Element>
cudaError_t run(Choice const& ch, GemmParams const& params, TmaMatrix const& a, TmaMatrix const& b,
                StreamKParams const& sk, TmaStoreD const& d, cudaStream_t stream) {
  auto const& p = ch.problem;
  const bool ka = p.a.major == Major::kK, kb = p.b.major == Major::kK;
  if (ch.kernel == gemm_detail::GemmKernel::kSm90Tma) {
    return d.on ? run_tma<Element, true>(ch, params, a, b, sk, d, stream)
                : run_tma<Element, false>(ch, params, a, b, sk, d, stream);
  }
  if (ka && kb) return sm80::run_gemm<Element, Major::kK, Major::kK>(ch.sm80, params, p.batch, stream);
  if (ka) return sm80::run_gemm<Element, Major::kK, Major::kMN>(ch.sm80, params, p.batch, stream);
  if (kb) return sm80::run_gemm<Element, Major::kMN, Major::kK>(ch.sm80, params, p.batch, stream);
  return sm80::run_gemm<Element, Major::kMN, Major::kMN>(ch.sm80, params, p.batch, stream);
}

// An operand's copy into its zero-padded rows (gemm_plan.hpp, StagedOperand).
PadRowsCopy staging(gemm_detail::OperandView const& v, gemm_detail::StagedOperand const& s, void* dst) {
  return {v.ptr, v.ld, v.batch_stride, dst, s.ld, s.strided, s.rows, s.contiguous, s.batches};
}

// The TMA kernel's maps over A and B, read at a and b (the operands, or their staged copies;
// no maps when K is 0: nothing is loaded); false when the driver refuses one.
bool encode_maps(Choice const& ch, const void* a, const void* b, TmaMatrix* tma_a, TmaMatrix* tma_b) {
  *tma_a = {}, *tma_b = {};
  if (ch.kernel != gemm_detail::GemmKernel::kSm90Tma || ch.problem.k == 0) return true;
  tma_a->broadcast = ch.sm90.a_broadcast, tma_b->broadcast = ch.sm90.b_broadcast;
  return sm90::encode_tma_map(ch.sm90.a, a, &tma_a->map) && sm90::encode_tma_map(ch.sm90.b, b, &tma_b->map);
}

EpilogueParams epilogue_params(GemmArguments const& args, bool swapped) {
  const bool c_read = args.beta != 0.0f;
  BiasMode bias = args.bias == nullptr ? BiasMode::kNone : swapped ? BiasMode::kPerRow : BiasMode::kPerColumn;
  return {args.d,  c_read ? args.c : nullptr,
          args.bias, args.ldd,
          args.ldc,  args.d_batch_stride,
          args.c_batch_stride, args.alpha,
          args.beta, bias,
          args.activation, args.output_type,
          gemm_detail::epilogue_vectorizes(args)};
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
  auto failed = [&](const char* what, cudaError_t e) -> Status {
    cudaGetLastError();
    return {StatusCode::kCudaError, std::string("gemm: ") + what + " failed (" + gemm_detail::describe(ch).config +
                                        "): " + cudaGetErrorString(e)};
  };
  // Operands the kernel cannot read at full width are copied to 16-byte rows first (a, b: what
  // the kernel reads).
  StreamBuffer staged_a(stream), staged_b(stream), workspace(stream);
  gemm_detail::OperandView a = ch.problem.a, b = ch.problem.b;
  auto stage_operands = [&]() -> Status {
    a = ch.problem.a, b = ch.problem.b;
    if (ch.problem.k == 0) return {};
    PadRowsCopy copies[kMaxPadRowsCopies];
    int count = 0;
    for (auto [view, staged, buffer, read] : {std::tuple{&ch.problem.a, &ch.a_staged, &staged_a, &a},
                                              std::tuple{&ch.problem.b, &ch.b_staged, &staged_b, &b}}) {
      if (!staged->on) continue;
      if (Status s = buffer->allocate(size_t(staged->bytes()), "gemm", "a staged operand"); !s) return s;
      copies[count++] = staging(*view, *staged, buffer->get());
      *read = gemm_detail::kernel_view(*view, *staged, buffer->get());
    }
    if (count == 0) return {};
    if (cudaError_t e = pad_rows(copies, count, stream); e != cudaSuccess) return failed("staging the operands", e);
    return {};
  };
  if (Status s = stage_operands(); !s) return s;
  TmaMatrix tma_a, tma_b;
  if (!encode_maps(ch, a.ptr, b.ptr, &tma_a, &tma_b)) {  // the driver refused a map: the sm80 kernel runs it
    device.tma_encoder = false;
    if (Status s = gemm_detail::choose(args, device, &ch); !s) return s;
    if (Status s = stage_operands(); !s) return s;
  }
  auto const& p = ch.problem;
  const EpilogueParams epilogue = epilogue_params(args, p.swapped);
  GemmParams params{a.ptr,          b.ptr,          p.m,       p.n,  p.k, int(a.ld), int(b.ld),
                    a.batch_stride, b.batch_stride, ch.splits, ch.k_tiles_per_split, epilogue};
  if (ch.splits > 1) {  // the kernel's epilogue writes raw fp32 slices: (batch * splits, M, N)
    const std::int64_t per_matrix = std::int64_t(p.m) * p.n;
    if (Status s = workspace.allocate(size_t(per_matrix) * p.batch * ch.splits * sizeof(float), "gemm",
                                      "the split-K workspace");
        !s) {
      return s;
    }
    params.epilogue = EpilogueParams{workspace.get(), nullptr, nullptr, p.n, 0, per_matrix, 0, 1.0f, 0.0f,
                                     BiasMode::kNone, Activation::kNone, DataType::kF32, p.n % 4 == 0};
  }
  StreamKParams sk;
  if (ch.kernel == gemm_detail::GemmKernel::kSm90Tma && ch.sm90.stream_k.sk_items > 0) {
    auto const& c = sm90::kTmaTileConfigs[ch.sm90.config];
    if (Status s = stream_k_workspace(ch.sm90.stream_k, c.tile_m, c.tile_n, c.cluster_m, "gemm", stream, &workspace, &sk);
        !s) {
      return s;
    }
  }
  // D's map for the TMA epilogue; where the driver refuses it, the registers store D.
  TmaStoreD tma_d;
  tma_d.on = ch.kernel == gemm_detail::GemmKernel::kSm90Tma && ch.sm90.d_tma &&
             sm90::encode_tma_map(ch.sm90.d, args.d, &tma_d.map);
  cudaError_t e = args.input_type == DataType::kF16 ? run<DataType::kF16>(ch, params, tma_a, tma_b, sk, tma_d, stream)
                                                    : run<DataType::kBF16>(ch, params, tma_a, tma_b, sk, tma_d, stream);
  if (e == cudaSuccess && ch.splits > 1) {
    e = sm80::split_k_reduce(workspace.get<float>(), ch.splits, p.m, p.n, p.batch, epilogue, stream);
  }
  if (e != cudaSuccess) return failed("kernel launch", e);
  return {};
}

}  // namespace tessel
