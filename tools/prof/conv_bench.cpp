// run_conv_bench: the steps of one conv2d row (conv_bench.hpp), each failure recorded and the
// rest still attempted where it makes sense (cuDNN is timed even when tessel refuses).
#include "conv_bench.hpp"

#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

#include "conv_reference.hpp"
#include "cuda_check.hpp"
#include "cudnn_reference.hpp"
#include "device_buffer.hpp"
#include "device_kernels.hpp"
#include "operands.hpp"
#include "verify.hpp"

namespace tessel::prof {
namespace {

std::string status_text(const Status& s) {
  return std::string(status_code_name(s.code())) + ": " + s.message();
}

void add_message(ConvResult& r, const std::string& text) {
  if (!r.message.empty()) r.message += "; ";
  r.message += text;
}

// One tensor, `copies` times back to back, each copy on a kCopyAlignment boundary.
class CopiedTensor {
 public:
  CopiedTensor() = default;
  CopiedTensor(std::size_t elements, DataType t, int copies, const std::string& what)
      : type_(t),
        copy_bytes_(elements * data_type_bytes(t)),
        copy_stride_((copy_bytes_ + kCopyAlignment - 1) / kCopyAlignment * kCopyAlignment),
        buffer_(copy_stride_ * copies, what + " (" + std::to_string(copies) + " copies)") {}
  void* at(int copy) const {
    if (buffer_.get() == nullptr) return nullptr;
    return static_cast<char*>(buffer_.get()) + copy * copy_stride_;
  }
  std::size_t copy_bytes() const { return copy_bytes_; }
  // Uniform values in [-1, 1) over the whole allocation (the copies differ).
  void fill(std::uint64_t seed, cudaStream_t stream) const {
    fill_uniform(buffer_.get(), type_, buffer_.bytes() / data_type_bytes(type_), seed, stream);
  }

 private:
  DataType type_ = DataType::kF16;
  std::size_t copy_bytes_ = 0, copy_stride_ = 0;
  DeviceBuffer buffer_;
};

// X, W, the residual, Y and bias for tessel, and cuDNN's own Y (in the input type), rotated
// like the GEMM's operands (operands.hpp): enough copies that the launches of either library
// read tensors the previous launches have evicted from L2.
struct ConvTensors {
  int copies = 1;
  CopiedTensor x, w, residual, y, bias, cudnn_y;

  ConvTensors(const ConvProblem& p, std::size_t l2_bytes, std::uint64_t seed, cudaStream_t stream) {
    const std::size_t in_bytes = data_type_bytes(p.input_type);
    const std::size_t out_bytes = data_type_bytes(p.output_type);
    const std::size_t inputs = (p.x_elements() + p.w_elements()) * in_bytes;
    const std::size_t residual_elements = p.reads_residual() ? p.y_elements() : 0;
    const std::size_t bias_elements = p.bias ? p.shape.k : 0;
    const std::size_t tessel_footprint =
        inputs + (residual_elements + p.y_elements() + bias_elements) * out_bytes;
    const std::size_t cudnn_footprint =
        inputs + (residual_elements != 0 ? 2 : 1) * std::size_t(p.y_elements()) * in_bytes;
    copies = rotation_copies(std::min(tessel_footprint, cudnn_footprint), l2_bytes);
    x = CopiedTensor(p.x_elements(), p.input_type, copies, "X");
    w = CopiedTensor(p.w_elements(), p.input_type, copies, "W");
    residual = CopiedTensor(residual_elements, p.output_type, copies, "the residual");
    y = CopiedTensor(p.y_elements(), p.output_type, copies, "Y");
    bias = CopiedTensor(bias_elements, p.output_type, copies, "bias");
    cudnn_y = CopiedTensor(p.y_elements(), p.input_type, copies, "cuDNN's Y");
    constexpr std::uint64_t kTensors = 8;  // one stream of values per tensor
    x.fill(seed * kTensors + 0, stream);
    w.fill(seed * kTensors + 1, stream);
    residual.fill(seed * kTensors + 2, stream);
    bias.fill(seed * kTensors + 3, stream);
    cudnn_y.fill(seed * kTensors + 4, stream);  // cuDNN's beta reads it: finite values
  }

  Conv2dArguments arguments(const ConvProblem& p, int copy) const {
    return make_conv_arguments(p, x.at(copy), w.at(copy), residual.at(copy), y.at(copy),
                               bias.at(copy));
  }
};

// The fp64 reference of copy 0, kept while tessel and cuDNN are checked against it.
struct Reference {
  DeviceBuffer ref, scale;
  Reference(const ConvProblem& p, const ConvTensors& t, cudaStream_t stream)
      : ref(p.y_elements() * sizeof(float), "the conv2d reference"),
        scale(p.y_elements() * sizeof(float), "the error's denominator |X||W| + |R| + |bias|") {
    conv2d_reference(p, t.x.at(0), t.w.at(0), t.residual.at(0), t.bias.at(0), ref.as<float>(),
                     scale.as<float>(), stream);
  }
  double error_of(const void* y, DataType t, std::size_t count, cudaStream_t stream) const {
    return max_scaled_error(y, t, ref.as<float>(), scale.as<float>(), count, stream);
  }
};

}  // namespace

double conv_tolerance(const ConvProblem& p, DataType output_type) {
  GemmProblem g;  // the same reduction as a GEMM of depth R S C/G
  g.shape = {1, 1, static_cast<int>(p.reduction())};
  g.output_type = output_type;
  g.activation = p.activation;
  return tolerance(g);
}

ConvResult run_conv_bench(const ConvProblem& p, const BenchOptions& options,
                          const ConvBenchContext& context) {
  ConvResult r;
  r.problem = p;
  r.tolerance = conv_tolerance(p, p.output_type);
  if (p.pass != ConvPass::kFprop) {
    r.message = std::string("tessel: conv2d ") + conv_pass_name(p.pass) +
                " is not implemented yet (only fprop is)";
    return r;  // kError: nothing for tessel to run
  }
  if (Status s = validate(p.shape); !s) {
    r.message = "tessel: " + status_text(s);
    return r;  // no tensors to allocate for an impossible problem
  }
  std::unique_ptr<ConvTensors> t;
  try {
    t = std::make_unique<ConvTensors>(p, context.l2_bytes, options.seed, context.stream);
    r.copies = t->copies;
  } catch (const std::exception& e) {
    r.message = std::string("tensors: ") + e.what();
    return r;
  }
  bool failed = false;
  auto attempt = [&](const char* step, auto&& body) {
    try {
      body();
      return true;
    } catch (const std::exception& e) {
      add_message(r, std::string(step) + ": " + e.what());
      failed = true;
      return false;
    }
  };
  const std::size_t y_count = p.y_elements();
  const cudaStream_t stream = context.stream;

  // tessel once on Y poisoned with 0xFF bytes (NaN in f16, bf16 and f32): an element the
  // kernel does not write fails the comparison.
  const bool tessel_ok = attempt("tessel", [&] {
    if (Status s = validate(t->arguments(p, 0)); !s) throw ProfError(status_text(s));
    check_cuda(cudaMemsetAsync(t->y.at(0), 0xFF, t->y.copy_bytes(), stream), "poisoning Y");
    if (Status s = conv2d_fprop(t->arguments(p, 0), stream); !s) throw ProfError(status_text(s));
    check_cuda(cudaStreamSynchronize(stream), "tessel::conv2d_fprop (the verified launch)");
  });
  std::unique_ptr<Reference> reference;
  if (options.verify) {
    attempt("reference", [&] { reference = std::make_unique<Reference>(p, *t, stream); });
  }
  if (tessel_ok && reference) {
    attempt("verification",
            [&] { r.max_err = reference->error_of(t->y.at(0), p.output_type, y_count, stream); });
  }
  if (tessel_ok) {
    attempt("tessel timing", [&] {
      r.tessel = time_launches(
          [&](long i) {
            const int copy = static_cast<int>(i % t->copies);
            if (Status s = conv2d_fprop(t->arguments(p, copy), stream); !s) {
              throw ProfError(status_text(s) + " (launch " + std::to_string(i) + ")");
            }
          },
          stream, options.timing);
    });
  }

  // cuDNN: alpha and beta as tessel (beta reads its own Y as the residual); no bias, no
  // activation. Its result is checked against the reference only for a plain epilogue.
  attempt("cuDNN", [&] {
    const CudnnConvolution conv(context.cudnn, p, t->x.at(0), t->w.at(0), t->cudnn_y.at(0));
    r.cudnn_algorithm = conv.algorithm();
    const bool plain = !p.reads_residual() && !p.bias && p.activation == Activation::kNone;
    if (reference && plain) {
      conv.run(t->x.at(0), t->w.at(0), t->cudnn_y.at(0), p.alpha, 0.0f);
      r.cudnn_err = reference->error_of(t->cudnn_y.at(0), p.input_type, y_count, stream);
    }
    r.cudnn = time_launches(
        [&](long i) {
          const int copy = static_cast<int>(i % t->copies);
          conv.run(t->x.at(copy), t->w.at(copy), t->cudnn_y.at(copy), p.alpha, p.beta);
        },
        stream, options.timing);
  });

  if (failed) {
    r.outcome = Outcome::kError;
  } else if (!r.max_err) {
    r.outcome = Outcome::kUnverified;
  } else if (*r.max_err <= r.tolerance) {
    r.outcome = Outcome::kPass;
  } else {
    r.outcome = Outcome::kFail;
    char text[96];
    std::snprintf(text, sizeof text, "max_err %.3e, tolerance %.3e", *r.max_err, r.tolerance);
    add_message(r, std::string("beyond the tolerance: ") + text);
  }
  // cuDNN far from the reference means the reference (or the descriptors) is suspect: said,
  // not counted against tessel.
  if (r.cudnn_err) {
    const double cudnn_tolerance = conv_tolerance(p, p.input_type);
    if (*r.cudnn_err > cudnn_tolerance) {
      char text[128];
      std::snprintf(text, sizeof text,
                    "note: cuDNN differs from the fp64 reference by %.3e (tolerance %.3e)",
                    *r.cudnn_err, cudnn_tolerance);
      add_message(r, text);
    }
  }
  return r;
}

}  // namespace tessel::prof
