// `tessel-prof conv2d`: the command line of the conv2d profiler.
//
//   tessel-prof conv2d                                  ResNet-50's layers at N = 32 and 128
//   tessel-prof conv2d --mode wgrad --n 64              wgrad of the same layers at N = 64 only
//   tessel-prof conv2d --n 32 --h 56 --w 56 --c 64 --k 64 --r 3 --s 3 --pad 1 --csv
//   tessel-prof conv2d --mode dgrad --h 14 --w 14 --c 256 --k 256 --r 3 --s 3 --pad 1 --verbose
#include <climits>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "conv_suite.hpp"
#include "exit_codes.hpp"
#include "problem.hpp"

namespace tessel::prof {
namespace {

struct ConvOptions {
  std::string mode = "fprop";
  std::optional<int> n, h, w, c, k;
  int r = 1, s = 1;
  std::optional<int> pad, pad_h, pad_w, stride, stride_h, stride_w;
  std::optional<int> dilation, dilation_h, dilation_w;
  int groups = 1;
  std::string suite = "resnet50";
  bool convolution = false;
  std::string dtype = "f16";
  std::optional<std::string> out_dtype;  // default: dtype, the type cuDNN writes
  float alpha = 1.0f, beta = 0.0f;
  bool bias = false;
  std::string activation = "none";
  std::optional<int> warmup, iterations;
  int repeats = 7;
  bool graph = true;
  std::string cudnn = "best";
  int cudnn_plans = 10;
  bool verbose = false;
  bool csv = false, json = false;
  bool no_verify = false;
  std::uint64_t seed = 1;
};

constexpr const char* kFooter = R"(
Tensors: X NHWC (N,H,W,C), W KRSC (K,R,S,C/groups), Y NHWC (N,P,Q,K) with
  P = (H + 2 pad_h - dilation_h (R-1) - 1) / stride_h + 1 (Q likewise). Cross-correlation
  (what frameworks call convolution) unless --conv (the filter flipped).
  fprop  Y  = act(alpha conv(X, W) + beta R + bias)    R its own tensor, bias K values
  dgrad  dX = act(alpha dgrad(dY, W) + beta dX + bias)  the residual is dX itself (random
                                                        values before the launch), bias C values
  wgrad  dW = alpha wgrad(dY, X) + beta dW              likewise dW; no --bias, no --activation
  FLOPs: 2 N P Q K R S C/groups for every mode.

Without --h/--w/--c/--k, a suite (--suite: resnet50, the default, resnext50, mobilenetv2 or
convnext-t; tools/prof/conv_suite.hpp lists their layers), at N = 32 and N = 128 (or at --n
only), in the --mode given. ResNet-50's layers (H x W x C -> K, R x S):
  224x224x3 -> 64 7x7 pad 3 stride 2 (the stem)
  56x56x64 -> 64 1x1;  56x56x64 -> 64 3x3 pad 1;  56x56x64 -> 256 1x1
  56x56x128 -> 128 3x3 pad 1 stride 2;  28x28x128 -> 128 3x3 pad 1;  28x28x128 -> 512 1x1;
  28x28x512 -> 128 1x1
  28x28x256 -> 256 3x3 pad 1 stride 2;  14x14x256 -> 256 3x3 pad 1;  14x14x256 -> 1024 1x1
  14x14x512 -> 512 3x3 pad 1 stride 2;  7x7x512 -> 512 3x3 pad 1;  7x7x512 -> 2048 1x1

Each problem: inputs uniform in [-1, 1); the fp64 reference is computed, tessel's conv2d of
the mode runs once on its output filled with NaN (or with the random residual when it is its
own, dgrad/wgrad with --beta) and is verified, then tessel and cuDNN are timed alike: warm-up,
then 7 batches of back-to-back launches (each ~50 ms unless --iterations), each batch one CUDA
graph (--no-graph: launches issued from the host, so that a library's host time per call
becomes a floor under its time when it exceeds the kernel's), median time per launch;
when the tensors fit in 2x the L2, several copies are cycled so each launch reads evicted data.
A library that cannot be captured is timed from the host, and the row says so.

cuDNN at its best (--cudnn best): the faster of
  legacy  cudnnFind{ConvolutionForward,ConvolutionBackwardData,ConvolutionBackwardFilter}
          AlgorithmEx's fastest algorithm (cuDNN's own timed search), run with its workspace and
          the math type it was measured with
  graph   the backend API: one convolution operation (NHWC strides), engine configurations
          from heuristics mode A then the fallback list, the first --cudnn-plans that finalize
          each verified (a plan beyond the tolerance is excluded, with a note) and timed
          briefly; the fastest is timed in full
cudnn_algo names the winner ("legacy:IMPLICIT_PRECOMP_GEMM", "graph:eng12 tile_m=2 ...");
CSV/JSON also give cudnn_legacy_us and cudnn_graph_us, JSON every candidate (--verbose lists
them on stderr). When one API fails for a problem, the other is used and stderr says why;
when both fail the row is an ERROR. cuDNN's tensors: NHWC X and Y and KRSC W, all in --dtype
(its tensor-core kernels write 16-bit outputs; tessel's output is --out-dtype, by default the
same), fp32 compute, tensor-op math (legacy: the math type its search measured); the same
alpha and beta (beta reads its own output), no bias or activation (its time excludes them).

Error: max |out - ref| / (|alpha| sum |products| + |beta R| + |bias|) over all output
elements, ref a direct convolution of the mode accumulated in fp64 on the GPU (with tessel's
epilogue). PASS when within
  tol = 2^-23 (2 sqrt(L) + 8) + u_out (+ 2^-11 with GELU),   u_out = 0 f32, 2^-11 f16, 2^-8 bf16
  L = the reduction length: R S C/groups (fprop), R S K/groups (dgrad), N P Q (wgrad)
(as tessel-prof gemm with K = L). cudnn_err: cuDNN's output, computed on a zeroed output (so
alpha only), against the reference of the plain problem, with u_out of --dtype; a note when
the legacy pick is beyond it (never a FAIL: it points at the reference), an exclusion for a
graph plan.

Output: a table (default), --csv or --json (JSON Lines), on stdout; the summary (counts, the
geometric mean and minimum of cudnn_us / tessel_us) ends the table, or goes to stderr.
Exit status: 0 all PASS, 1 bad command line, 2 no CUDA device, 3 some FAIL or ERROR.)";

std::vector<ConvProblem> problems_of(const ConvOptions& o) {
  ConvProblem common;
  common.pass = conv_pass_from(o.mode);
  common.input_type = data_type_from(o.dtype);
  common.output_type = data_type_from(o.out_dtype.value_or(o.dtype));
  common.alpha = o.alpha;
  common.beta = o.beta;
  common.bias = o.bias;
  common.activation = activation_from(o.activation);
  std::vector<Conv2dProblem> shapes;
  if (o.h) {
    Conv2dProblem s;
    s.n = o.n.value_or(1);
    s.h = *o.h;
    s.w = *o.w;
    s.c = *o.c;
    s.k = *o.k;
    s.r = o.r;
    s.s = o.s;
    s.pad_h = o.pad_h.value_or(o.pad.value_or(0));
    s.pad_w = o.pad_w.value_or(o.pad.value_or(0));
    s.stride_h = o.stride_h.value_or(o.stride.value_or(1));
    s.stride_w = o.stride_w.value_or(o.stride.value_or(1));
    s.dilation_h = o.dilation_h.value_or(o.dilation.value_or(1));
    s.dilation_w = o.dilation_w.value_or(o.dilation.value_or(1));
    s.groups = o.groups;
    s.mode = o.convolution ? ConvMode::kConvolution : ConvMode::kCrossCorrelation;
    shapes.push_back(s);
  } else {
    shapes = conv_suite_shapes(o.suite, o.n.value_or(0));
  }
  std::vector<ConvProblem> problems;
  for (const Conv2dProblem& s : shapes) {
    problems.push_back(common);
    problems.back().shape = s;
  }
  return problems;
}

int run_conv(const ConvOptions& o) {
  // The pass's epilogue before the device: a usage error on any machine.
  if (const auto why =
          epilogue_error(conv_pass_from(o.mode), o.bias, activation_from(o.activation))) {
    throw CLI::ValidationError(*why);
  }
  std::string why;
  const std::optional<DeviceInfo> device = find_device(why);
  if (!device) {
    std::cerr << "tessel-prof: no CUDA device found (" << why
              << "); tessel-prof measures kernels on a GPU\n";
    return kExitNoDevice;
  }
  ConvBenchOptions bench;
  bench.timing.warmup = o.warmup;
  bench.timing.iterations = o.iterations;
  bench.timing.repeats = o.repeats;
  bench.timing.graph = o.graph;
  bench.verify = !o.no_verify;
  bench.seed = o.seed;
  bench.cudnn_api = cudnn_api_from(o.cudnn);
  bench.cudnn_plans = o.cudnn_plans;
  bench.verbose = o.verbose;
  const ReportFormat format =
      o.csv ? ReportFormat::kCsv : (o.json ? ReportFormat::kJson : ReportFormat::kTable);
  return run_conv_suite(problems_of(o), bench, *device, format);
}

// --name (both sides) excludes --name-h and --name-w, which need each other.
void add_pair(CLI::App* cmd, const std::string& name, std::optional<int>& both,
              std::optional<int>& h, std::optional<int>& w, const CLI::Validator& range,
              const std::string& meaning, CLI::Option* shape) {
  CLI::Option* b = cmd->add_option("--" + name, both, meaning + ", both sides")->check(range);
  CLI::Option* oh = cmd->add_option("--" + name + "-h", h, meaning + " in height")->check(range);
  CLI::Option* ow = cmd->add_option("--" + name + "-w", w, meaning + " in width")->check(range);
  b->excludes(oh, ow);
  oh->needs(ow, shape);
  ow->needs(oh, shape);
  b->needs(shape);
}

}  // namespace

void add_conv2d_command(CLI::App& app, int& status) {
  auto o = std::make_shared<ConvOptions>();
  CLI::App* cmd = app.add_subcommand(
      "conv2d",
      "time tessel's conv2d fprop, dgrad or wgrad against cuDNN on one problem or a network's "
      "layers (--suite), verified");
  // --h is the input height: help is --help alone (CLI11 2.4 refuses "--h" beside "-h").
  cmd->set_help_flag("--help", "print this help and exit");
  const CLI::Range positive(1, INT_MAX, "POSITIVE");
  const CLI::Range non_negative(0, INT_MAX, "NON-NEGATIVE");
  cmd->add_option("--mode", o->mode, "fprop, dgrad or wgrad (the pass timed and verified)")
      ->check(CLI::IsMember({"fprop", "dgrad", "wgrad"}))
      ->capture_default_str();
  cmd->add_option("--n", o->n, "batch (default 1 with a shape; alone: the suite at this N)")
      ->check(positive);
  CLI::Option* h =
      cmd->add_option("--h", o->h, "input height (with --w, --c, --k)")->check(positive);
  CLI::Option* w =
      cmd->add_option("--w", o->w, "input width (with --h, --c, --k)")->check(positive);
  CLI::Option* c =
      cmd->add_option("--c", o->c, "input channels (with --h, --w, --k)")->check(positive);
  CLI::Option* k =
      cmd->add_option("--k", o->k, "output channels (with --h, --w, --c)")->check(positive);
  h->needs(w, c, k);
  w->needs(h, c, k);
  c->needs(h, w, k);
  k->needs(h, w, c);
  cmd->add_option("--r", o->r, "filter height")->check(positive)->needs(h)->capture_default_str();
  cmd->add_option("--s", o->s, "filter width")->check(positive)->needs(h)->capture_default_str();
  add_pair(cmd, "pad", o->pad, o->pad_h, o->pad_w, non_negative, "zero padding", h);
  add_pair(cmd, "stride", o->stride, o->stride_h, o->stride_w, positive, "stride", h);
  add_pair(cmd, "dilation", o->dilation, o->dilation_h, o->dilation_w, positive, "dilation", h);
  cmd->add_option("--groups", o->groups,
                  "groups (C and K multiples of it; C = K = groups: "
                  "depthwise)")
      ->check(positive)
      ->needs(h)
      ->capture_default_str();
  cmd->add_option("--suite", o->suite,
                  "without a shape: the layers of resnet50, resnext50 (32 groups), mobilenetv2 or "
                  "convnext-t (depthwise)")
      ->check(CLI::IsMember(conv_suite_names()))
      ->excludes(h)
      ->capture_default_str();
  cmd->add_flag("--conv", o->convolution,
                "true convolution (the filter flipped); default cross-correlation")
      ->needs(h);
  cmd->add_option("--dtype", o->dtype, "X and W: f16 or bf16")
      ->check(CLI::IsMember({"f16", "bf16"}))
      ->capture_default_str();
  cmd->add_option("--out-dtype", o->out_dtype,
                  "the output (Y, dX or dW), the residual and bias: f32, f16 or bf16 (default: "
                  "--dtype, like cuDNN's output)")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}));
  cmd->add_option("--alpha", o->alpha, "out = act(alpha op + beta residual + bias)")
      ->capture_default_str();
  cmd->add_option("--beta", o->beta,
                  "the residual is read when beta != 0 (fprop: R; dgrad, wgrad: the output)")
      ->capture_default_str();
  cmd->add_flag("--bias", o->bias, "add a bias: K values (fprop), C values (dgrad); not wgrad");
  cmd->add_option("--activation", o->activation,
                  "none, relu or gelu (tanh approximation); fprop and dgrad")
      ->check(CLI::IsMember({"none", "relu", "gelu"}))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "untimed launches before timing (default 5)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--iterations", o->iterations,
                  "launches per timed batch (default: enough for ~50 ms)")
      ->check(positive);
  cmd->add_option("--repeats", o->repeats, "timed batches; the median is reported")
      ->check(positive)
      ->capture_default_str();
  cmd->add_flag("--graph,!--no-graph", o->graph,
                "each timed batch is one CUDA graph (default); --no-graph: launches from the host");
  cmd->add_option("--cudnn", o->cudnn,
                  "cuDNN's API: best (the faster of legacy and graph), legacy or graph")
      ->check(CLI::IsMember({"best", "legacy", "graph"}))
      ->capture_default_str();
  cmd->add_option("--cudnn-plans", o->cudnn_plans,
                  "graph-API execution plans tried at most (from the heuristics)")
      ->check(positive)
      ->capture_default_str();
  cmd->add_flag("--verbose", o->verbose, "list every cuDNN algorithm and plan tried on stderr");
  CLI::Option* csv = cmd->add_flag("--csv", o->csv, "CSV: a header line, one line per problem");
  CLI::Option* json =
      cmd->add_flag("--json", o->json, "JSON Lines: one object per problem per line");
  csv->excludes(json);
  json->excludes(csv);
  cmd->add_flag("--no-verify", o->no_verify, "time only: no comparison with the reference");
  cmd->add_option("--seed", o->seed, "seed of the random inputs")->capture_default_str();
  cmd->footer(kFooter);
  cmd->callback([o, &status] { status = run_conv(*o); });
}

}  // namespace tessel::prof
