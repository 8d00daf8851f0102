// cuDNN's convolution of each pass through the backend (graph) API: the path to the engines
// the legacy API may not reach (Hopper's). One operation graph holds one operation,
//
//   fprop  CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR          X, W -> Y
//   dgrad  CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR    dY, W -> dX
//   wgrad  CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR  dY, X -> dW
//
// with out = alpha op + beta out (alpha and beta are part of the graph), fp32 compute, every
// tensor in the input type, dimensions in cuDNN's NCHW order with NHWC strides:
//
//   X  dims (N, C, H, W)      strides (H W C, 1, W C, C)
//   W  dims (K, C/G, R, S)    strides (R S C/G, 1, S C/G, C/G)   (C/G < C makes it grouped)
//   Y  dims (N, K, P, Q)      strides (P Q K, 1, Q K, K)
//
// The engine configurations come from CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, first
// CUDNN_HEUR_MODE_A's list, then CUDNN_HEUR_MODE_FALLBACK's (duplicates dropped); the first
// `max_plans` that finalize into an execution plan within the workspace limit are kept. The
// caller times them (cudnn_best.hpp) and keeps the fastest: cuDNN's own search, run by us.
#pragma once

#include <cudnn.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conv_problem.hpp"
#include "cudnn_common.hpp"
#include "device_buffer.hpp"

namespace tessel::prof {

// One backend descriptor, destroyed with its owner. Creation and attribute setting throw
// ProfError naming the descriptor type, the attribute and the status.
class BackendDescriptor {
 public:
  BackendDescriptor() = default;
  explicit BackendDescriptor(cudnnBackendDescriptorType_t type);
  ~BackendDescriptor();
  BackendDescriptor(BackendDescriptor&& o) noexcept;
  BackendDescriptor& operator=(BackendDescriptor&& o) noexcept;
  BackendDescriptor(const BackendDescriptor&) = delete;
  BackendDescriptor& operator=(const BackendDescriptor&) = delete;

  cudnnBackendDescriptor_t get() const { return desc_; }
  cudnnBackendDescriptorType_t type() const { return type_; }

  // cudnnBackendSetAttribute(desc, name, type, count, values), checked.
  void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count,
           const void* values);
  void set_int64(cudnnBackendAttributeName_t name, std::int64_t v) {
    set(name, CUDNN_TYPE_INT64, 1, &v);
  }
  void set_int64s(cudnnBackendAttributeName_t name, const std::vector<std::int64_t>& v) {
    set(name, CUDNN_TYPE_INT64, static_cast<std::int64_t>(v.size()), v.data());
  }
  void set_descriptor(cudnnBackendAttributeName_t name, const BackendDescriptor& d) {
    cudnnBackendDescriptor_t raw = d.get();
    set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
  }
  void finalize();               // throws with the type and the status
  cudnnStatus_t try_finalize();  // for plans, whose failure only skips a configuration

 private:
  cudnnBackendDescriptor_t desc_ = nullptr;
  cudnnBackendDescriptorType_t type_ = CUDNN_BACKEND_TENSOR_DESCRIPTOR;
};

// "CUDNN_ATTR_TENSOR_STRIDES" (the attributes this file sets or reads), else "attribute 903".
std::string backend_attribute_name(cudnnBackendAttributeName_t name);
// "CUDNN_BACKEND_TENSOR_DESCRIPTOR", likewise.
std::string backend_descriptor_name(cudnnBackendDescriptorType_t type);
// "tile_m", "stages", ... (knob types by value, valid across cuDNN 9 releases), else "knob44".
std::string backend_knob_name(std::int64_t knob_type);

// The backend dimensions and strides of a role's tensor (the table above).
struct BackendTensorShape {
  std::array<std::int64_t, 4> dims, strides;
};
BackendTensorShape backend_tensor_shape(const ConvProblem& p, ConvRole role);

// "eng12 tile_m=2 stages=3": an engine's global index and its knob choices.
std::string backend_config_name(std::int64_t engine,
                                const std::vector<std::pair<std::int64_t, std::int64_t>>& knobs);

class CudnnGraphConvolution {
 public:
  // Builds and finalizes the operation graph of `p` (alpha and beta as given), asks the
  // heuristics and finalizes up to `max_plans` execution plans. Throws ProfError when the graph
  // cannot be built or no plan finalizes (the message gives each configuration's status).
  CudnnGraphConvolution(cudnnHandle_t handle, const ConvProblem& p, float alpha, float beta,
                        int max_plans);

  int plan_count() const { return static_cast<int>(plans_.size()); }
  const std::string& plan_name(int i) const { return plans_[i].name; }
  std::size_t plan_workspace(int i) const { return plans_[i].workspace; }
  // The configurations that did not become plans, with why (for --verbose and errors).
  const std::vector<CudnnCandidate>& rejected() const { return rejected_; }

  // One variant pack per set of buffers (the rotation copies), sharing one workspace large
  // enough for every plan; call before run().
  void bind(const std::vector<ConvBuffers>& copies);
  // Plan `plan` on bound copy `copy`, asynchronous on the handle's stream.
  void run(int plan, int copy) const;

 private:
  struct Plan {
    BackendDescriptor plan;
    std::string name;
    std::size_t workspace = 0;
  };
  void build_graph(const ConvProblem& p, float alpha, float beta);
  std::vector<BackendDescriptor> engine_configs(cudnnBackendHeurMode_t mode, std::string& why);
  void make_plans(int max_plans);

  cudnnHandle_t handle_;
  ConvPass pass_;
  // Kept alive for the plans: tensors, the convolution, the operation, the graph.
  BackendDescriptor x_, w_, y_, conv_, operation_, graph_;
  std::vector<Plan> plans_;
  std::vector<CudnnCandidate> rejected_;
  DeviceBuffer workspace_;
  std::vector<BackendDescriptor> packs_;
};

}  // namespace tessel::prof
