// CudnnGraphConvolution: the operation graph, the heuristics' engine configurations, the
// execution plans and the variant packs (cudnn_graph.hpp).
#include "cudnn_graph.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "cuda_check.hpp"

namespace tessel::prof {
namespace {

// The tensors' unique ids in the graph and the variant packs.
constexpr std::int64_t kUidX = 'x', kUidW = 'w', kUidY = 'y';
// What every pointer the profiler passes guarantees (copies sit on 256-byte boundaries); 16
// bytes is what cuDNN's vectorised and TMA engines ask for.
constexpr std::int64_t kTensorAlignment = 16;
// More knob choices than any engine has (CUDNN_KNOB_TYPE_COUNTS is 44 in cuDNN 9.19).
constexpr std::int64_t kMaxKnobs = 64;

// cudnnBackendGetAttribute, checked; returns the element count cuDNN reports.
std::int64_t get_attribute(cudnnBackendDescriptor_t desc, cudnnBackendAttributeName_t name,
                           cudnnBackendAttributeType_t type, std::int64_t requested, void* values) {
  std::int64_t count = 0;
  check_cudnn(cudnnBackendGetAttribute(desc, name, type, requested, &count, values),
              "cudnnBackendGetAttribute(" + backend_attribute_name(name) + ")");
  return count;
}

}  // namespace

// ---- descriptors ----

BackendDescriptor::BackendDescriptor(cudnnBackendDescriptorType_t type) : type_(type) {
  check_cudnn(cudnnBackendCreateDescriptor(type, &desc_),
              "cudnnBackendCreateDescriptor(" + backend_descriptor_name(type) + ")");
}

BackendDescriptor::~BackendDescriptor() {
  if (desc_ != nullptr) cudnnBackendDestroyDescriptor(desc_);
}

BackendDescriptor::BackendDescriptor(BackendDescriptor&& o) noexcept
    : desc_(std::exchange(o.desc_, nullptr)), type_(o.type_) {}

BackendDescriptor& BackendDescriptor::operator=(BackendDescriptor&& o) noexcept {
  std::swap(desc_, o.desc_);
  std::swap(type_, o.type_);
  return *this;
}

void BackendDescriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                            std::int64_t count, const void* values) {
  check_cudnn(cudnnBackendSetAttribute(desc_, name, type, count, values),
              "cudnnBackendSetAttribute(" + backend_descriptor_name(type_) + ", " +
                  backend_attribute_name(name) + ")");
}

void BackendDescriptor::finalize() {
  check_cudnn(cudnnBackendFinalize(desc_),
              "cudnnBackendFinalize(" + backend_descriptor_name(type_) + ")");
}

cudnnStatus_t BackendDescriptor::try_finalize() { return cudnnBackendFinalize(desc_); }

std::string backend_attribute_name(cudnnBackendAttributeName_t name) {
  switch (name) {
    case CUDNN_ATTR_TENSOR_DATA_TYPE:
      return "CUDNN_ATTR_TENSOR_DATA_TYPE";
    case CUDNN_ATTR_TENSOR_DIMENSIONS:
      return "CUDNN_ATTR_TENSOR_DIMENSIONS";
    case CUDNN_ATTR_TENSOR_STRIDES:
      return "CUDNN_ATTR_TENSOR_STRIDES";
    case CUDNN_ATTR_TENSOR_UNIQUE_ID:
      return "CUDNN_ATTR_TENSOR_UNIQUE_ID";
    case CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT:
      return "CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT";
    case CUDNN_ATTR_CONVOLUTION_COMP_TYPE:
      return "CUDNN_ATTR_CONVOLUTION_COMP_TYPE";
    case CUDNN_ATTR_CONVOLUTION_CONV_MODE:
      return "CUDNN_ATTR_CONVOLUTION_CONV_MODE";
    case CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS:
      return "CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS";
    case CUDNN_ATTR_CONVOLUTION_DILATIONS:
      return "CUDNN_ATTR_CONVOLUTION_DILATIONS";
    case CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES:
      return "CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES";
    case CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS:
      return "CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS";
    case CUDNN_ATTR_CONVOLUTION_POST_PADDINGS:
      return "CUDNN_ATTR_CONVOLUTION_POST_PADDINGS";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X";
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY:
      return "CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY";
    case CUDNN_ATTR_OPERATIONGRAPH_HANDLE:
      return "CUDNN_ATTR_OPERATIONGRAPH_HANDLE";
    case CUDNN_ATTR_OPERATIONGRAPH_OPS:
      return "CUDNN_ATTR_OPERATIONGRAPH_OPS";
    case CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH:
      return "CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH";
    case CUDNN_ATTR_ENGINEHEUR_MODE:
      return "CUDNN_ATTR_ENGINEHEUR_MODE";
    case CUDNN_ATTR_ENGINEHEUR_RESULTS:
      return "CUDNN_ATTR_ENGINEHEUR_RESULTS";
    case CUDNN_ATTR_ENGINECFG_ENGINE:
      return "CUDNN_ATTR_ENGINECFG_ENGINE";
    case CUDNN_ATTR_ENGINECFG_KNOB_CHOICES:
      return "CUDNN_ATTR_ENGINECFG_KNOB_CHOICES";
    case CUDNN_ATTR_ENGINE_GLOBAL_INDEX:
      return "CUDNN_ATTR_ENGINE_GLOBAL_INDEX";
    case CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE:
      return "CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE";
    case CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE:
      return "CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE";
    case CUDNN_ATTR_EXECUTION_PLAN_HANDLE:
      return "CUDNN_ATTR_EXECUTION_PLAN_HANDLE";
    case CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG:
      return "CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG";
    case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE:
      return "CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE";
    case CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS:
      return "CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS";
    case CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS:
      return "CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS";
    case CUDNN_ATTR_VARIANT_PACK_WORKSPACE:
      return "CUDNN_ATTR_VARIANT_PACK_WORKSPACE";
    default:
      return "attribute " + std::to_string(static_cast<int>(name));
  }
}

std::string backend_descriptor_name(cudnnBackendDescriptorType_t type) {
  switch (type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
      return "CUDNN_BACKEND_TENSOR_DESCRIPTOR";
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR:
      return "CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR";
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
      return "CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR";
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
      return "CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR";
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
      return "CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR";
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
      return "CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR";
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
      return "CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR";
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
      return "CUDNN_BACKEND_ENGINECFG_DESCRIPTOR";
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
      return "CUDNN_BACKEND_ENGINE_DESCRIPTOR";
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
      return "CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR";
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
      return "CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR";
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
      return "CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR";
    default:
      return "descriptor type " + std::to_string(static_cast<int>(type));
  }
}

std::string backend_knob_name(std::int64_t knob_type) {
  // cudnnBackendKnobType_t by value: later cuDNN 9 releases add names, never renumber.
  static const std::pair<std::int64_t, const char*> kNames[] = {
      {0, "split_k"},     {1, "swizzle"},      {2, "tile"},       {4, "edge"},
      {11, "multiply"},   {12, "split_k_buf"}, {13, "tile_k"},    {14, "stages"},
      {15, "reduction"},  {17, "split_k_slc"}, {18, "idx_mode"},  {23, "specfilt"},
      {24, "kernel_cfg"}, {25, "workspace"},   {27, "cga_m"},     {28, "cga_n"},
      {29, "block"},      {30, "occupancy"},   {31, "array"},     {33, "split_cols"},
      {34, "tile_rows"},  {35, "tile_cols"},   {36, "load_size"}, {37, "cta_count"},
      {38, "stream_k"},   {39, "split_p_slc"}, {40, "tile_m"},    {41, "tile_n"},
      {42, "warp_spec"},  {43, "swap_ab"}};
  for (const auto& [value, name] : kNames) {
    if (value == knob_type) return name;
  }
  return "knob" + std::to_string(knob_type);
}

std::string backend_config_name(std::int64_t engine,
                                const std::vector<std::pair<std::int64_t, std::int64_t>>& knobs) {
  std::string name = "eng" + std::to_string(engine);
  for (const auto& [type, value] : knobs) {
    name.append(" ").append(backend_knob_name(type)).append("=").append(std::to_string(value));
  }
  return name;
}

BackendTensorShape backend_tensor_shape(const ConvProblem& p, ConvRole role) {
  const Conv2dProblem& s = p.shape;
  const std::int64_t cg = s.channels_per_group();
  switch (role) {
    case ConvRole::kX:  // (N, C, H, W) over NHWC memory
      return {{s.n, s.c, s.h, s.w},
              {std::int64_t{s.h} * s.w * s.c, 1, std::int64_t{s.w} * s.c, s.c}};
    case ConvRole::kW:  // (K, C/G, R, S) over KRSC memory
      return {{s.k, cg, s.r, s.s}, {std::int64_t{s.r} * s.s * cg, 1, std::int64_t{s.s} * cg, cg}};
    case ConvRole::kY:  // (N, K, P, Q) over NPQK memory
      return {{s.n, s.k, s.p(), s.q()},
              {std::int64_t{s.p()} * s.q() * s.k, 1, std::int64_t{s.q()} * s.k, s.k}};
  }
  return {};
}

// ---- the graph ----

namespace {

// One convolution operation's descriptor type and attribute names, by pass; x, w and y name
// the tensors by their fprop roles (dgrad's DX is X, wgrad's DW is W).
struct OperationAttributes {
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t alpha, beta, conv, x, w, y;
};

OperationAttributes operation_attributes(ConvPass pass) {
  switch (pass) {
    case ConvPass::kFprop:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y};
    case ConvPass::kDgrad:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY};
    case ConvPass::kWgrad:
      break;
  }
  return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY};
}

}  // namespace

CudnnGraphConvolution::CudnnGraphConvolution(cudnnHandle_t handle, const ConvProblem& p,
                                             float alpha, float beta, int max_plans)
    : handle_(handle), pass_(p.pass) {
  build_graph(p, alpha, beta);
  make_plans(max_plans);
}

void CudnnGraphConvolution::build_graph(const ConvProblem& p, float alpha, float beta) {
  const cudnnDataType_t io_type = cudnn_data_type(p.input_type);
  auto tensor = [&](ConvRole role, std::int64_t uid) {
    BackendDescriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const BackendTensorShape s = backend_tensor_shape(p, role);
    t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &io_type);
    t.set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, s.dims.data());
    t.set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, s.strides.data());
    t.set_int64(CUDNN_ATTR_TENSOR_UNIQUE_ID, uid);
    t.set_int64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, kTensorAlignment);
    t.finalize();
    return t;
  };
  x_ = tensor(ConvRole::kX, kUidX);
  w_ = tensor(ConvRole::kW, kUidW);
  y_ = tensor(ConvRole::kY, kUidY);

  const Conv2dProblem& s = p.shape;
  conv_ = BackendDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode =
      s.mode == ConvMode::kConvolution ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
  conv_.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
  conv_.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  conv_.set_int64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 2);
  conv_.set_int64s(CUDNN_ATTR_CONVOLUTION_DILATIONS, {s.dilation_h, s.dilation_w});
  conv_.set_int64s(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, {s.stride_h, s.stride_w});
  conv_.set_int64s(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, {s.pad_h, s.pad_w});
  conv_.set_int64s(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, {s.pad_h, s.pad_w});
  conv_.finalize();

  const OperationAttributes a = operation_attributes(pass_);
  operation_ = BackendDescriptor(a.type);
  operation_.set(a.alpha, CUDNN_TYPE_FLOAT, 1, &alpha);
  operation_.set(a.beta, CUDNN_TYPE_FLOAT, 1, &beta);
  operation_.set_descriptor(a.conv, conv_);
  operation_.set_descriptor(a.x, x_);
  operation_.set_descriptor(a.w, w_);
  operation_.set_descriptor(a.y, y_);
  operation_.finalize();

  graph_ = BackendDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph_.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_);
  graph_.set_descriptor(CUDNN_ATTR_OPERATIONGRAPH_OPS, operation_);
  graph_.finalize();
}

// The heuristics' engine configurations in `mode`, best first; none (and `why`) when the
// heuristics do not finalize for this graph.
std::vector<BackendDescriptor> CudnnGraphConvolution::engine_configs(cudnnBackendHeurMode_t mode,
                                                                     std::string& why) {
  BackendDescriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heuristics.set_descriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph_);
  heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  if (cudnnStatus_t s = heuristics.try_finalize(); s != CUDNN_STATUS_SUCCESS) {
    why = cudnn_status_text(s);
    return {};
  }
  const std::int64_t available = get_attribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                               CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, nullptr);
  std::vector<BackendDescriptor> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < available; ++i) {
    configs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    raw.push_back(configs.back().get());
  }
  const std::int64_t returned = get_attribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, available, raw.data());
  configs.resize(static_cast<std::size_t>(std::clamp<std::int64_t>(returned, 0, available)));
  if (configs.empty()) why = "no engine configuration";
  return configs;
}

namespace {

// "eng12 tile_m=2 stages=3" of an engine configuration.
std::string config_name(const BackendDescriptor& config) {
  BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t raw_engine = engine.get();
  get_attribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                &raw_engine);
  std::int64_t index = -1;
  get_attribute(engine.get(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &index);

  std::vector<BackendDescriptor> choices;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < kMaxKnobs; ++i) {
    choices.emplace_back(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    raw.push_back(choices.back().get());
  }
  const std::int64_t count = get_attribute(config.get(), CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                           CUDNN_TYPE_BACKEND_DESCRIPTOR, kMaxKnobs, raw.data());
  std::vector<std::pair<std::int64_t, std::int64_t>> knobs;
  for (std::int64_t i = 0; i < std::min(count, kMaxKnobs); ++i) {
    cudnnBackendKnobType_t type{};
    std::int64_t value = 0;
    get_attribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &type);
    get_attribute(raw[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &value);
    knobs.emplace_back(static_cast<std::int64_t>(type), value);
  }
  std::sort(knobs.begin(), knobs.end());
  return backend_config_name(index, knobs);
}

}  // namespace

void CudnnGraphConvolution::make_plans(int max_plans) {
  std::set<std::string> seen;
  std::string why_failed;  // "; "-separated: heuristics that gave nothing
  const std::pair<cudnnBackendHeurMode_t, const char*> modes[] = {
      {CUDNN_HEUR_MODE_A, "CUDNN_HEUR_MODE_A"},
      {CUDNN_HEUR_MODE_FALLBACK, "CUDNN_HEUR_MODE_FALLBACK"}};
  for (const auto& [mode, mode_name] : modes) {
    std::string why;
    const std::vector<BackendDescriptor> configs = engine_configs(mode, why);
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const BackendDescriptor& config = configs[i];
      if (plan_count() >= max_plans) return;
      CudnnCandidate candidate;
      try {
        candidate.name = "graph:" + config_name(config);
      } catch (const ProfError& e) {  // unnamed, still worth a try
        candidate.name = std::string("graph:") + mode_name + " #" + std::to_string(i);
      }
      if (!seen.insert(candidate.name).second) continue;  // in both lists
      Plan plan{BackendDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR), candidate.name, 0};
      plan.plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle_);
      plan.plan.set_descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
      if (cudnnStatus_t s = plan.plan.try_finalize(); s != CUDNN_STATUS_SUCCESS) {
        candidate.excluded = "does not finalize: " + cudnn_status_text(s);
        rejected_.push_back(candidate);
        continue;
      }
      std::int64_t workspace = 0;
      get_attribute(plan.plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                    &workspace);
      plan.workspace = static_cast<std::size_t>(std::max<std::int64_t>(workspace, 0));
      if (plan.workspace > kMaxCudnnWorkspaceBytes) {
        candidate.workspace = plan.workspace;
        candidate.excluded = "workspace of " + std::to_string(plan.workspace) + " bytes";
        rejected_.push_back(candidate);
        continue;
      }
      plans_.push_back(std::move(plan));
    }
    if (!why.empty())
      why_failed += std::string(why_failed.empty() ? "" : "; ") + mode_name + ": " + why;
  }
  if (plans_.empty()) {
    std::string text = "no execution plan";
    if (!why_failed.empty()) text += " (" + why_failed + ")";
    for (std::size_t i = 0; i < rejected_.size() && i < 3; ++i) {
      text += "; " + rejected_[i].name + " " + rejected_[i].excluded;
    }
    throw ProfError(text);
  }
}

void CudnnGraphConvolution::bind(const std::vector<ConvBuffers>& copies) {
  std::size_t workspace = 0;
  for (const Plan& p : plans_) workspace = std::max(workspace, p.workspace);
  workspace_ = DeviceBuffer(workspace, "the cuDNN graph plans' workspace");
  packs_.clear();
  for (const ConvBuffers& b : copies) {
    BackendDescriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    const std::int64_t uids[] = {kUidX, kUidW, kUidY};
    void* pointers[] = {b.x, b.w, b.y};
    void* ws = workspace_.get();
    pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
    pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
    pack.finalize();
    packs_.push_back(std::move(pack));
  }
}

void CudnnGraphConvolution::run(int plan, int copy) const {
  const cudnnStatus_t s = cudnnBackendExecute(handle_, plans_[plan].plan.get(), packs_[copy].get());
  if (s != CUDNN_STATUS_SUCCESS) {
    check_cudnn(s, "cudnnBackendExecute(" + plans_[plan].name + ")");
  }
}

}  // namespace tessel::prof
