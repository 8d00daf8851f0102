// conv2d_fprop(): validation, then one implicit GEMM per group on the sm80 pipeline.
//   GEMM view of group g:  D (N*P*Q, K/G) = A (N*P*Q, R*S*C/G) * B (K/G, R*S*C/G)^T
//   A  the activations through ConvFpropA (zero-filled padding; the optimized iterator where
//      R, S <= 32, else the analytic one), B the group's KRSC filters
//      (a K-major matrix, ldb = R*S*C/G), D the group's K/G columns of Y (ldd = K).
#include <cstdint>
#include <string>

#include "conv/fprop_instances_sm80.hpp"
#include "tessel/runtime/conv2d.hpp"
#include "tessel/runtime/gemm.hpp"

namespace tessel {
namespace {

Status invalid(std::string message) { return {StatusCode::kInvalidArgument, "conv2d: " + std::move(message)}; }

bool aligned(const void* p, int bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

struct Range {
  std::uintptr_t begin, end;
};
Range bytes_of(const void* p, long long elements, int elem_bytes) {
  auto b = reinterpret_cast<std::uintptr_t>(p);
  return {b, b + std::uintptr_t(elements) * std::uintptr_t(elem_bytes)};
}
bool overlap(Range a, Range b) { return a.begin < b.end && b.begin < a.end; }

}  // namespace

Status validate(const Conv2dArguments& args) {
  if (Status s = validate(args.problem); !s) return s;
  auto type_ok = [](DataType t) { return t == DataType::kF16 || t == DataType::kBF16 || t == DataType::kF32; };
  if (!type_ok(args.input_type) || !type_ok(args.output_type)) {
    return invalid("input_type = " + std::to_string(int(args.input_type)) + ", output_type = " +
                   std::to_string(int(args.output_type)) + ": expected 0 (f16), 1 (bf16) or 2 (f32)");
  }
  if (args.input_type == DataType::kF32) {
    return {StatusCode::kNotSupported, "conv2d: input_type = f32 is not supported; expected f16 or bf16"};
  }
  if (int(args.activation) < 0 || int(args.activation) > 2) {
    return invalid("activation = " + std::to_string(int(args.activation)) + ": expected 0 (none), 1 (relu), 2 (gelu)");
  }
  const Conv2dProblem& pb = args.problem;
  const long long x_elems = (long long)pb.n * pb.h * pb.w * pb.c;
  const long long w_elems = (long long)pb.k * pb.r * pb.s * pb.channels_per_group();
  const long long y_elems = (long long)pb.n * pb.p() * pb.q() * pb.k;
  const int ib = data_type_bytes(args.input_type), ob = data_type_bytes(args.output_type);
  struct Operand {
    const char* name;
    const void* ptr;
    bool read;
    int bytes;
  };
  for (Operand o : {Operand{"x", args.x, true, ib}, Operand{"w", args.w, true, ib}, Operand{"y", args.y, true, ob},
                    Operand{"residual", args.residual, args.beta != 0.0f, ob},
                    Operand{"bias", args.bias, args.bias != nullptr, ob}}) {
    if (!o.read) continue;
    if (o.ptr == nullptr) {
      return invalid(std::string(o.name) + " is null" +
                     (std::string(o.name) == "residual" ? " but beta != 0 reads it" : ""));
    }
    if (!aligned(o.ptr, o.bytes)) {
      return {StatusCode::kMisaligned, std::string("conv2d: ") + o.name + " is not aligned to its " +
                                           std::to_string(o.bytes) + "-byte elements"};
    }
  }
  const Range y = bytes_of(args.y, y_elems, ob);
  if (overlap(y, bytes_of(args.x, x_elems, ib)) || overlap(y, bytes_of(args.w, w_elems, ib)) ||
      (args.bias != nullptr && overlap(y, bytes_of(args.bias, pb.k, ob)))) {
    return invalid("y overlaps x, w or bias; the output must be separate memory");
  }
  if (args.beta != 0.0f && args.residual != args.y && overlap(y, bytes_of(args.residual, y_elems, ob))) {
    return invalid("residual partly overlaps y; it must be y itself or separate memory");
  }
  return {};
}

Status conv2d_fprop(const Conv2dArguments& args, cudaStream_t stream) {
  if (Status s = validate(args); !s) return s;
  const Conv2dProblem& pb = args.problem;
  int device = 0, major = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    cudaGetLastError();
    return {StatusCode::kNoDevice, std::string("conv2d: no CUDA device: ") + cudaGetErrorString(e)};
  }
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (major < 8) return {StatusCode::kNoDevice, "conv2d: tessel's kernels need sm_80 or newer"};

  const int cg = pb.channels_per_group(), kg = pb.filters_per_group();
  const int rsc = pb.r * pb.s * cg, npq = pb.n * pb.p() * pb.q();
  const int ib = data_type_bytes(args.input_type), ob = data_type_bytes(args.output_type);
  // 16-byte loads: eight channels of one tap in one vector, both tensors 16-byte aligned.
  const bool narrow = !(cg % 8 == 0 && pb.c % 8 == 0 && aligned(args.x, 16) && aligned(args.w, 16));
  // The optimized iterator keeps a 32-bit tap mask per row: filters up to 32 x 32.
  const bool optimized = ActivationIteratorOptimized<1>::supports(pb);
  const int vec = 16 / ob;
  const bool c_read = args.beta != 0.0f;
  for (int g = 0; g < pb.groups; ++g) {
    void* d = static_cast<char*>(args.y) + std::size_t(g) * kg * ob;
    const void* c = c_read ? static_cast<const char*>(args.residual) + std::size_t(g) * kg * ob : nullptr;
    const void* bias = args.bias ? static_cast<const char*>(args.bias) + std::size_t(g) * kg * ob : nullptr;
    const bool vector_ok = pb.k % vec == 0 && aligned(d, 16) && (!c_read || aligned(c, 16));
    GemmParamsSm80 params{args.x, static_cast<const char*>(args.w) + std::size_t(g) * kg * rsc * ib,
                          npq, kg, rsc, 0, rsc, 0, 0, 1, 1 << 30,
                          EpilogueParams{d, c, bias, pb.k, pb.k, 0, 0, args.alpha, args.beta,
                                         bias ? BiasMode::kPerColumn : BiasMode::kNone, args.activation,
                                         args.output_type, vector_ok}};
    if (cudaError_t e = sm80::run_conv_fprop(args.input_type, narrow, optimized, params, pb, g, stream);
        e != cudaSuccess) {
      cudaGetLastError();
      return {StatusCode::kCudaError, std::string("conv2d: fprop launch failed (group ") + std::to_string(g) +
                                          "): " + cudaGetErrorString(e)};
    }
  }
  return {};
}

}  // namespace tessel
