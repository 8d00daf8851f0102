// `tessel-prof gemm`: the command line of the GEMM profiler.
//
//   tessel-prof gemm                                   the default suite, TN, f16 -> f32
//   tessel-prof gemm --m 4096 --n 4096 --k 4096 --layout nt --dtype bf16 --out-dtype bf16
//   tessel-prof gemm --beta 0.5 --bias --activation relu --csv > gemm.csv
#include <climits>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.hpp"
#include "device.hpp"
#include "exit_codes.hpp"
#include "gemm_suite.hpp"

namespace tessel::prof {
namespace {

struct GemmOptions {
  std::optional<int> m, n, k;
  int batch = 1;
  std::string layout = "tn";
  std::string dtype = "f16";
  std::string out_dtype = "f32";
  float alpha = 1.0f, beta = 0.0f;
  bool bias = false;
  std::string activation = "none";
  std::string config;
  std::optional<int> warmup, iterations;
  int repeats = 7;
  bool graph = false;
  bool csv = false, json = false;
  bool no_verify = false;
  bool list_configs = false;
  std::uint64_t seed = 1;
};

constexpr const char* kFooter = R"(
Layouts (BLAS / cuBLAS column-major names, first letter A, second B; D is M x N column-major):
  A: t = A^T stored K x M column-major (M x K row-major, lda = K); n = M x K column-major (lda = M)
  B: n = K x N column-major (ldb = K); t = B^T stored N x K column-major (ldb = N)
  tn is the fast case (both K-contiguous), the same bytes as cuBLAS's CUBLAS_OP_T, CUBLAS_OP_N.

Without --m/--n/--k, the default suite: 81920x256x256; 1024^3 .. 8192^3; 4096x14336x4096,
14336x4096x4096; 128x4096x4096, 16x4096x4096; 256x256x65536, 1024x1024x65536; 1000^3,
4095x4097x1031, 3000x5000x700.

Each problem: inputs uniform in [-1, 1); tessel runs once on D filled with NaN, is verified,
then tessel and cuBLAS are timed alike: warm-up, then 7 batches of back-to-back launches
(each batch ~50 ms unless --iterations), median time per launch. When the operands fit in 2x
the L2, several copies are cycled so each launch reads data evicted by the previous ones.
cuBLAS runs the same alpha and beta; it cannot fuse bias or activation: its time excludes them.

Error: max |d - ref| / (|alpha| |A||B| + |beta C| + |bias|) over all elements (componentwise
relative error), against cuBLAS in f32 (max_err) and, up to 2^30 multiply-adds, an fp64 host
GEMM (fp64_err). PASS when both are within
  tol = 2^-23 (2 sqrt(K) + 8) + u_out (+ 2^-11 with GELU),  u_out = 0 f32, 2^-11 f16, 2^-8 bf16
(fp32 tensor-core accumulation truncates: one unit 2^-23 per rounding, sqrt(K) growth of
random rounding errors, two computations compared; 8 epilogue roundings; D's own rounding).

Output: a table (default), --csv (a header line, then one line per problem), --json (JSON
Lines: one object per problem per line), all on stdout; progress on stderr (terminals only).
Exit status: 0 all PASS, 1 bad command line, 2 no CUDA device, 3 some FAIL or ERROR.)";

std::vector<GemmProblem> problems_of(const GemmOptions& o) {
  GemmProblem common;
  common.batch = o.batch;
  common.layout = o.layout;
  common.input_type = data_type_from(o.dtype);
  common.output_type = data_type_from(o.out_dtype);
  common.alpha = o.alpha;
  common.beta = o.beta;
  common.bias = o.bias;
  common.activation = activation_from(o.activation);
  common.config = o.config;
  std::vector<GemmShape> shapes;
  if (o.m) {
    shapes.push_back({*o.m, *o.n, *o.k});
  } else {
    shapes = default_gemm_shapes();
  }
  std::vector<GemmProblem> problems;
  for (const GemmShape& s : shapes) {
    problems.push_back(common);
    problems.back().shape = s;
  }
  return problems;
}

int run_gemm(const GemmOptions& o) {
  if (o.list_configs) {
    for (const std::string& name : gemm_config_names()) std::cout << name << "\n";
    return kExitOk;
  }
  std::string why;
  const std::optional<DeviceInfo> device = find_device(why);
  if (!device) {
    std::cerr << "tessel-prof: no CUDA device found (" << why
              << "); tessel-prof measures kernels on a GPU\n";
    return kExitNoDevice;
  }
  BenchOptions bench;
  bench.timing.warmup = o.warmup;
  bench.timing.iterations = o.iterations;
  bench.timing.repeats = o.repeats;
  bench.timing.graph = o.graph;
  bench.verify = !o.no_verify;
  bench.seed = o.seed;
  const ReportFormat format =
      o.csv ? ReportFormat::kCsv : (o.json ? ReportFormat::kJson : ReportFormat::kTable);
  return run_gemm_suite(problems_of(o), bench, *device, format);
}

}  // namespace

void add_gemm_command(CLI::App& app, int& status) {
  auto o = std::make_shared<GemmOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gemm", "time tessel::gemm against cuBLAS on one shape or the default suite, verified");
  const CLI::Range positive(1, INT_MAX, "POSITIVE");
  CLI::Option* m = cmd->add_option("--m", o->m, "rows of D (with --n and --k)")->check(positive);
  CLI::Option* n = cmd->add_option("--n", o->n, "columns of D (with --m and --k)")->check(positive);
  CLI::Option* k =
      cmd->add_option("--k", o->k, "the reduction length (with --m and --n)")->check(positive);
  m->needs(n, k);
  n->needs(m, k);
  k->needs(m, n);
  cmd->add_option("--batch", o->batch, "batched GEMMs, packed one after the other")
      ->check(positive)
      ->capture_default_str();
  cmd->add_option("--layout", o->layout, "A and B as BLAS names them: tn, nt, nn or tt")
      ->check(CLI::IsMember({"tn", "nt", "nn", "tt"}))
      ->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "A and B: f16 or bf16")
      ->check(CLI::IsMember({"f16", "bf16"}))
      ->capture_default_str();
  cmd->add_option("--out-dtype", o->out_dtype, "C, D and bias: f32, f16 or bf16")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}))
      ->capture_default_str();
  cmd->add_option("--alpha", o->alpha, "D = act(alpha A B + beta C + bias)")->capture_default_str();
  cmd->add_option("--beta", o->beta, "C is read when beta != 0")->capture_default_str();
  cmd->add_flag("--bias", o->bias, "add a bias of N values (one per column of D)");
  cmd->add_option("--activation", o->activation, "none, relu or gelu (tanh approximation)")
      ->check(CLI::IsMember({"none", "relu", "gelu"}))
      ->capture_default_str();
  cmd->add_option("--config", o->config,
                  "a tile configuration (--list-configs); default: "
                  "the library's heuristic")
      ->check(CLI::IsMember(gemm_config_names()));
  cmd->add_option("--warmup", o->warmup, "untimed launches before timing (default 5)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--iterations", o->iterations,
                  "launches per timed batch (default: enough for ~50 ms)")
      ->check(positive);
  cmd->add_option("--repeats", o->repeats, "timed batches; the median is reported")
      ->check(positive)
      ->capture_default_str();
  cmd->add_flag("--graph", o->graph,
                "time a CUDA graph of each batch's launches (no host "
                "launch overhead)");
  CLI::Option* csv = cmd->add_flag("--csv", o->csv, "CSV: a header line, one line per problem");
  CLI::Option* json =
      cmd->add_flag("--json", o->json, "JSON Lines: one object per problem per line");
  csv->excludes(json);
  json->excludes(csv);
  cmd->add_flag("--no-verify", o->no_verify, "time only: no comparison with the references");
  cmd->add_option("--seed", o->seed, "seed of the random inputs")->capture_default_str();
  cmd->add_flag("--list-configs", o->list_configs,
                "print the tile configurations tessel ships, and exit");
  cmd->footer(kFooter);
  cmd->callback([o, &status] { status = run_gemm(*o); });
}

}  // namespace tessel::prof
