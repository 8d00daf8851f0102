// The tensors of one conv2d row, rotated like the GEMM's operands (operands.hpp): enough copies
// of each that back-to-back launches of either library read tensors the previous launches have
// evicted from L2.
//
//   x, w, y     by fprop role (conv_problem.hpp): the pass's inputs in input_type, its output
//               in output_type
//   residual    fprop's R (output_type), when beta != 0; dgrad and wgrad read their output
//   bias        K values (fprop) or C values (dgrad), output_type
//   cudnn_out   cuDNN's own output (input_type: its tensor-core paths write 16-bit outputs)
//
// Inputs, R, the bias and cuDNN's output start uniform in [-1, 1) (cuDNN's beta reads finite
// values); tessel's output too when it is its own residual (dgrad, wgrad with beta != 0).
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "conv_problem.hpp"
#include "device_buffer.hpp"
#include "device_kernels.hpp"
#include "operands.hpp"  // kCopyAlignment, rotation_copies

namespace tessel::prof {

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

struct ConvTensors {
  int copies = 1;
  CopiedTensor x, w, y, residual, bias, cudnn_out;

  ConvTensors(const ConvProblem& p, std::size_t l2_bytes, std::uint64_t seed, cudaStream_t stream) {
    const std::size_t in_bytes = data_type_bytes(p.input_type);
    const std::size_t out_bytes = data_type_bytes(p.output_type);
    const ConvRole out = p.output_role();
    std::size_t inputs = 0;  // bytes of the two inputs
    for (ConvRole r : {ConvRole::kX, ConvRole::kW, ConvRole::kY}) {
      if (r != out) inputs += p.elements(r) * in_bytes;
    }
    const bool separate_residual = p.reads_residual() && !p.residual_is_output();
    const std::size_t residual_elements = separate_residual ? p.output_elements() : 0;
    const std::size_t tessel_footprint =
        inputs + (residual_elements + p.output_elements() + p.bias_elements()) * out_bytes;
    const std::size_t cudnn_footprint = inputs + p.output_elements() * in_bytes;
    copies = rotation_copies(std::min(tessel_footprint, cudnn_footprint), l2_bytes);

    auto tensor = [&](ConvRole r) {
      const std::string name = conv_role_name(r, p.pass);
      return CopiedTensor(p.elements(r), p.type_of(r), copies, name);
    };
    x = tensor(ConvRole::kX);
    w = tensor(ConvRole::kW);
    y = tensor(ConvRole::kY);
    residual = CopiedTensor(residual_elements, p.output_type, copies, "the residual");
    bias = CopiedTensor(p.bias_elements(), p.output_type, copies, "bias");
    cudnn_out = CopiedTensor(p.output_elements(), p.input_type, copies,
                             std::string("cuDNN's ") + conv_role_name(out, p.pass));
    constexpr std::uint64_t kTensors = 8;  // one stream of values per tensor
    const CopiedTensor* by_role[] = {&x, &w, &y};
    for (int r = 0; r < 3; ++r) {
      const bool is_output = static_cast<ConvRole>(r) == out;
      if (!is_output || (p.reads_residual() && p.residual_is_output())) {
        by_role[r]->fill(seed * kTensors + r, stream);
      }
    }
    residual.fill(seed * kTensors + 3, stream);
    bias.fill(seed * kTensors + 4, stream);
    cudnn_out.fill(seed * kTensors + 5, stream);
  }

  // tessel's tensors of one copy.
  ConvBuffers tessel(int copy) const {
    return {x.at(copy), w.at(copy), y.at(copy), residual.at(copy), bias.at(copy)};
  }
  // cuDNN's: the same inputs, its own output.
  ConvBuffers cudnn(const ConvProblem& p, int copy) const {
    ConvBuffers b = tessel(copy);
    b.residual = b.bias = nullptr;
    const ConvRole out = p.output_role();
    (out == ConvRole::kX ? b.x : (out == ConvRole::kW ? b.w : b.y)) = cudnn_out.at(copy);
    return b;
  }
  const CopiedTensor& output(const ConvProblem& p) const {
    const ConvRole out = p.output_role();
    return out == ConvRole::kX ? x : (out == ConvRole::kW ? w : y);
  }
};

}  // namespace tessel::prof
