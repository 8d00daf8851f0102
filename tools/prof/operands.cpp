// RotatingOperands: the copies, their fill and their per-copy tessel arguments.
#include "operands.hpp"

#include <string>

#include "device_kernels.hpp"

namespace tessel::prof {

int rotation_copies(std::size_t footprint, std::size_t l2_bytes) {
  const std::size_t target = 2 * l2_bytes;
  if (footprint == 0 || footprint >= target) return 1;
  return static_cast<int>(target / footprint + 1);
}

void* RotatingOperands::Operand::at(int copy) const {
  if (buffer.get() == nullptr) return nullptr;
  return static_cast<char*>(buffer.get()) + copy * copy_stride;
}

RotatingOperands::Operand RotatingOperands::make_operand(std::size_t elements, DataType t,
                                                         const char* name) const {
  Operand o;
  o.copy_bytes = elements * data_type_bytes(t);
  o.copy_stride = (o.copy_bytes + kCopyAlignment - 1) / kCopyAlignment * kCopyAlignment;
  o.buffer = DeviceBuffer(o.copy_stride * copies_,
                          std::string(name) + " (" + std::to_string(copies_) + " copies of " +
                              problem_.shape_text() + " " + data_type_name(t) + ")");
  return o;
}

void RotatingOperands::fill(const Operand& o, DataType t, std::uint64_t seed,
                            cudaStream_t stream) const {
  // The whole allocation at once: the padding between copies gets values too.
  fill_uniform(o.buffer.get(), t, o.buffer.bytes() / data_type_bytes(t), seed, stream);
}

RotatingOperands::RotatingOperands(const GemmProblem& p, std::size_t l2_bytes, std::uint64_t seed,
                                   cudaStream_t stream)
    : problem_(p) {
  const std::size_t batch = p.batch;
  const std::size_t a_elements = batch * p.a_elements(), b_elements = batch * p.b_elements();
  const std::size_t d_elements = batch * p.d_elements();
  const std::size_t c_elements = p.reads_c() ? d_elements : 0;
  const std::size_t bias_elements = p.bias ? std::size_t(p.shape.n) : 0;
  const int in_bytes = data_type_bytes(p.input_type), out_bytes = data_type_bytes(p.output_type);
  footprint_ =
      (a_elements + b_elements) * in_bytes + (c_elements + d_elements + bias_elements) * out_bytes;
  copies_ = rotation_copies(footprint_, l2_bytes);

  a_ = make_operand(a_elements, p.input_type, "A");
  b_ = make_operand(b_elements, p.input_type, "B");
  c_ = make_operand(c_elements, p.output_type, "C");
  d_ = make_operand(d_elements, p.output_type, "D");
  bias_ = make_operand(bias_elements, p.output_type, "bias");

  // One stream of values per operand; copies differ because they are further along it.
  constexpr std::uint64_t kOperands = 8;
  fill(a_, p.input_type, seed * kOperands + 0, stream);
  fill(b_, p.input_type, seed * kOperands + 1, stream);
  fill(c_, p.output_type, seed * kOperands + 2, stream);
  fill(bias_, p.output_type, seed * kOperands + 3, stream);

  arguments_.reserve(copies_);
  for (int i = 0; i < copies_; ++i) {
    arguments_.push_back(make_arguments(p, a(i), b(i), c(i), d(i), bias(i)));
  }
}

void RotatingOperands::copy_c_into_d(cudaStream_t stream) const {
  if (c_.buffer.get() == nullptr) return;
  check_cuda(cudaMemcpyAsync(d_.buffer.get(), c_.buffer.get(), c_.buffer.bytes(),
                             cudaMemcpyDeviceToDevice, stream),
             "cudaMemcpyAsync of C into D (cuBLAS's C)");
}

}  // namespace tessel::prof
