// `tessel-layout conv`: runs the library's own implicit-GEMM iterators
// (include/tessel/conv/activation_iterator.hpp, dgrad_operand_sm80.hpp) on a small problem and
// prints what one thread visits, so that the convolution page of docs/guide shows real output.
//
//   tessel-layout conv fprop --input 1,7,1,8 --filter 1,3,1 --pad 1,0 --stride 2,1 --tile-k 8
//       a thread's rows of the implicit A (N*P*Q, R*S*C/G), K tile after K tile: at(i),
//       valid(i), offset(i) of ActivationIteratorAnalytic next to ActivationIteratorOptimized's
//   tessel-layout conv dgrad --input 1,8,1,8 --filter 8,3,1 --pad 1,0 --stride 2,1
//       the stride phases (make_dgrad_phase): each phase's taps, and which dY element each row
//       of dX reads through each tap, by the phase's own fprop iterator over dY, checked
//       against the direct map dgrad_output_grad_at
// Exit status 1 when the two iterators, or the phases and the direct map, disagree.
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <tuple>

#include "commands.hpp"
#include "tessel/conv/activation_iterator.hpp"
#include "tessel/conv/dgrad_operand_sm80.hpp"
#include "tessel/runtime/conv2d_problem_check.hpp"

namespace tessel::tool {
namespace {

// One thread's rows: kMaxRows is the iterators' compile-time row count; --rows asks for at
// most that many.
constexpr int kMaxRows = 16;

class ConvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ConvOptions {
  std::vector<int> input{1, 1, 1, 1};  // N,H,W,C
  std::vector<int> filter{1, 1, 1};    // K,R,S
  std::vector<int> pad{0, 0}, stride{1, 1}, dilation{1, 1};
  int groups = 1;
  bool convolution = false;
  std::vector<int> rows;  // FIRST,STEP,COUNT (fprop)
  int column = 0;
  int tile_k = 0;  // 0: 8 for fprop, K for dgrad
  int tiles = 0;   // 0: until the end of K
};

Conv2dProblem make_problem(const ConvOptions& o) {
  Conv2dProblem pb;
  pb.n = o.input[0], pb.h = o.input[1], pb.w = o.input[2], pb.c = o.input[3];
  pb.k = o.filter[0], pb.r = o.filter[1], pb.s = o.filter[2];
  pb.pad_h = o.pad[0], pb.pad_w = o.pad[1];
  pb.stride_h = o.stride[0], pb.stride_w = o.stride[1];
  pb.dilation_h = o.dilation[0], pb.dilation_w = o.dilation[1];
  pb.groups = o.groups;
  pb.mode = o.convolution ? ConvMode::kConvolution : ConvMode::kCrossCorrelation;
  if (const Status status = validate(pb); !status.ok()) throw ConvError(status.message());
  const long long elements = (long long)pb.n * pb.h * pb.w * pb.c;
  if (elements > 1 << 20 || o.tile_k < 0) {
    throw ConvError(
        "expected a small worked example (at most 2^20 activation elements, tile-k >= 1); "
        "this command prints every element it visits");
  }
  return pb;
}

std::string tuple_text(std::initializer_list<long long> values) {
  std::string text = "(";
  for (long long v : values) text += (text.size() > 1 ? "," : "") + std::to_string(v);
  return text + ")";
}

void print_problem(const Conv2dProblem& pb, const char* direction) {
  std::cout << direction << "  X (N,H,W,C) = " << tuple_text({pb.n, pb.h, pb.w, pb.c})
            << "  filter (K,R,S,C/G) = " << tuple_text({pb.k, pb.r, pb.s, pb.channels_per_group()})
            << "  pad " << tuple_text({pb.pad_h, pb.pad_w}) << "  stride "
            << tuple_text({pb.stride_h, pb.stride_w}) << "  dilation "
            << tuple_text({pb.dilation_h, pb.dilation_w})
            << (pb.groups > 1 ? "  groups " + std::to_string(pb.groups) : "")
            << (pb.mode == ConvMode::kConvolution ? "  convolution" : "") << "\n";
}

// ---- fprop ---------------------------------------------------------------------------------

int run_fprop(ConvOptions o) {
  const Conv2dProblem pb = make_problem(o);
  if (o.tile_k == 0) o.tile_k = 8;
  const ConvGemmExtents gemm = fprop_gemm_extents(pb);
  const int first = o.rows.empty() ? 0 : o.rows[0];
  const int step = o.rows.empty() ? 1 : o.rows[1];
  const int count = o.rows.empty() ? int(std::min<long long>(gemm.m, kMaxRows)) : o.rows[2];
  if (count < 1 || count > kMaxRows || step < 1 || first < 0 || o.column < 0) {
    throw ConvError("--rows FIRST,STEP,COUNT: FIRST >= 0, STEP >= 1 and 1 <= COUNT <= " +
                    std::to_string(kMaxRows) + " (the rows one thread loads); --column >= 0");
  }
  print_problem(pb, "fprop");
  std::cout << "GEMM   M = N*P*Q = " << gemm.m << " (P = " << pb.p() << ", Q = " << pb.q()
            << ")  N = K = " << gemm.n << "  K = R*S*C/G = " << gemm.k << "\n"
            << "       row npq = (n*P + p)*Q + q, column crs = (r*S + s)*C/G + c\n"
            << "thread rows npq = " << first << " + " << step << "*i (i < " << count << "), column "
            << o.column << ", advance() by tile_k = " << o.tile_k << "\n";

  const ThreadSlice slice{first, step, o.column};
  ActivationIteratorAnalytic<kMaxRows> analytic(pb, 0, slice, o.tile_k);
  const ActivationParams params = make_activation_params(pb, o.tile_k);
  const bool optimized_ok = ActivationIteratorOptimized<kMaxRows>::supports(pb);
  ActivationIteratorOptimized<kMaxRows> optimized(params, 0, slice);
  const int tiles = o.tiles > 0 ? o.tiles : int((gemm.k - o.column + o.tile_k - 1) / o.tile_k);
  bool agree = true;
  for (int t = 0; t < tiles; ++t) {
    const int column = analytic.column();
    const int cg = pb.channels_per_group();
    std::cout << "\nK tile " << t << ": column " << column << " = (r,s,c) "
              << tuple_text({column / cg / pb.s, column / cg % pb.s, column % cg});
    if (optimized_ok) {
      std::cout << "; optimized keeps (r,s,c) "
                << tuple_text({optimized.filter_r(), optimized.filter_s(), optimized.channel()})
                << ", predicate ";
      for (int i = count - 1; i >= 0; --i) std::cout << ((optimized.predicate() >> i) & 1u);
    }
    std::cout << "\n    i  npq  (n,p,q)   at(i) (n,h,w,c)   valid  offset(i)   optimized\n";
    for (int i = 0; i < count; ++i) {
      const long long npq = (long long)first + (long long)i * step;
      const int pq = pb.p() * pb.q();
      const bool valid = analytic.valid(i);
      const ActivationCoord x = analytic.at(i);
      std::ostringstream line;
      line << std::setw(5) << i << std::setw(5) << npq << "  " << std::left << std::setw(10)
           << (npq < gemm.m ? tuple_text({npq / pq, npq % pq / pb.q(), npq % pb.q()}) : "past M")
           << std::setw(18) << tuple_text({x.n, x.h, x.w, x.c}) << std::setw(7)
           << (valid ? "yes" : "no") << std::setw(12)
           << (valid ? std::to_string(analytic.offset(i)) : "zero-fill");
      if (optimized_ok) {
        const bool same =
            optimized.valid(i) == valid && (!valid || optimized.offset(i) == analytic.offset(i));
        agree = agree && same;
        line << (same ? "same"
                      : "DIFFERS: valid " + std::to_string(optimized.valid(i)) + " offset " +
                            std::to_string(optimized.offset(i)));
      } else {
        line << "n/a (R or S > 32)";
      }
      std::string text = line.str();
      text.erase(text.find_last_not_of(' ') + 1);
      std::cout << text << "\n";
    }
    analytic.advance();
    optimized.advance();
  }
  if (optimized_ok) {
    std::cout << "\n"
              << (agree ? "the analytic and the optimized iterator visit the same addresses with "
                          "the same predicates"
                        : "the analytic and the optimized iterator DIFFER")
              << "\n";
  }
  return agree ? 0 : 1;
}

// ---- dgrad ---------------------------------------------------------------------------------

int run_dgrad(ConvOptions o) {
  const Conv2dProblem pb = make_problem(o);
  if (pb.groups != 1) throw ConvError("conv dgrad: the worked example takes groups = 1");
  const int kg = pb.filters_per_group();
  if (o.tile_k == 0) o.tile_k = kg;
  if (o.tile_k != kg) {
    throw ConvError("conv dgrad: --tile-k must equal K (" + std::to_string(kg) +
                    "), so that each K tile of a phase is one filter tap");
  }
  print_problem(pb, "dgrad");
  std::cout << "output dY (N,P,Q,K) = " << tuple_text({pb.n, pb.p(), pb.q(), pb.k})
            << "; dX[n,h,w,c] sums "
            << "dY[n,p,q,k] W[k,r,s,c] over h = p*stride_h - pad_h + r*dilation_h (likewise w)\n"
            << "direct implicit GEMM: M = N*H*W = " << dgrad_gemm_extents(pb).m
            << ", K = R*S*K = " << dgrad_gemm_extents(pb).k << "; stride phases (h mod "
            << pb.stride_h << ", w mod " << pb.stride_w << "):\n";

  // Every (row of dX, tap) the direct map reaches, with the dY element it reads; the phases
  // must visit exactly these.
  std::set<std::tuple<long long, int, int, long long>> direct, phased;  // (nhw, r, s, dY offset)
  for (long long nhw = 0; nhw < (long long)pb.n * pb.h * pb.w; ++nhw) {
    for (int tap = 0; tap < pb.r * pb.s; ++tap) {
      const OutputCoord y = dgrad_output_grad_at(pb, 0, int(nhw), tap * kg);
      if (y.valid) direct.insert({nhw, tap / pb.s, tap % pb.s, output_offset(pb, y)});
    }
  }

  bool agree = true;
  for (int ph = 0; ph < std::min(pb.stride_h, pb.h); ++ph) {
    for (int pw = 0; pw < std::min(pb.stride_w, pb.w); ++pw) {
      const DgradPhase phase = make_dgrad_phase(pb, ph, pw);
      const long long rows = (long long)pb.n * phase.rows * phase.cols;
      std::cout << "\nphase " << tuple_text({ph, pw}) << ": rows h = " << ph << " + " << pb.stride_h
                << "*i, w = " << pw << " + " << pb.stride_w << "*j, grid " << phase.rows << "x"
                << phase.cols;
      if (phase.taps_r == 0 || phase.taps_s == 0) {
        std::cout << "; no tap reaches these rows (K = 0: the epilogue alone)\n";
        continue;
      }
      std::cout << "; taps r = " << phase.r_first << " + " << phase.r_step << "*t (t < "
                << phase.taps_r << "), s = " << phase.s_first << " + " << phase.s_step << "*u (u < "
                << phase.taps_s << ")\n"
                << "  its fprop over dY: stride 1, pad "
                << tuple_text({phase.fprop.pad_h, phase.fprop.pad_w}) << ", dilation "
                << tuple_text({phase.fprop.dilation_h, phase.fprop.dilation_w})
                << ", taps walked backwards; GEMM M = " << rows
                << ", K = " << phase.taps_r * phase.taps_s * kg << "\n";
      if (rows > kMaxRows)
        throw ConvError("conv dgrad: a phase of more than 16 rows; use a smaller example");
      const ActivationParams params = make_dgrad_activation_params(phase, o.tile_k);
      ActivationIteratorAnalytic<kMaxRows> analytic(phase.fprop, 0, ThreadSlice{0, 1, 0}, o.tile_k,
                                                    phase.rows, phase.cols);
      ActivationIteratorOptimized<kMaxRows> optimized(params, 0, ThreadSlice{0, 1, 0});
      std::vector<std::string> cells(rows);
      std::string header = "    dX (n,h,w)";
      for (int t = 0; t < phase.taps_r; ++t) {
        for (int u = 0; u < phase.taps_s; ++u) {
          const int r = phase.r_first + t * phase.r_step, s = phase.s_first + u * phase.s_step;
          std::ostringstream head;
          head << "  tap (r,s) " << std::left << std::setw(7) << tuple_text({r, s})
               << "reads dY (p,q)";
          header += head.str();
          for (int i = 0; i < rows; ++i) {
            const long long n = i / (phase.rows * phase.cols);
            const long long h = ph + (long long)(i / phase.cols % phase.rows) * pb.stride_h;
            const long long w = pw + (long long)(i % phase.cols) * pb.stride_w;
            const long long nhw = (n * pb.h + h) * pb.w + w;
            const bool same = optimized.valid(i) == analytic.valid(i) &&
                              (!analytic.valid(i) || optimized.offset(i) == analytic.offset(i));
            agree = agree && same;
            std::string text = "-";
            if (analytic.valid(i)) {
              const ActivationCoord y = analytic.at(i);  // (n, p, q, k) of dY
              text = tuple_text({y.h, y.w});
              phased.insert({nhw, r, s, analytic.offset(i)});
            }
            std::ostringstream cell;
            cell << std::setw(33) << text + (same ? "" : " DIFFERS");
            cells[i] += cell.str();
          }
          analytic.advance();
          optimized.advance();
        }
      }
      std::cout << header << "\n";
      for (int i = 0; i < rows; ++i) {
        const long long n = i / (phase.rows * phase.cols);
        const long long h = ph + (long long)(i / phase.cols % phase.rows) * pb.stride_h;
        const long long w = pw + (long long)(i % phase.cols) * pb.stride_w;
        std::cout << std::setw(14) << tuple_text({n, h, w}) << cells[i] << "\n";
      }
    }
  }
  const bool same_set = direct == phased;
  std::cout << "\n"
            << (agree
                    ? "optimized iterators: the same addresses and predicates as the analytic ones"
                    : "optimized iterators: DIFFER from the analytic ones")
            << "\n"
            << (same_set ? "the phases read exactly the " + std::to_string(direct.size()) +
                               " (row, tap, dY element) triples of the direct map, each once; " +
                               "the direct GEMM would visit " +
                               std::to_string(dgrad_gemm_extents(pb).m * pb.r * pb.s) +
                               " (row, tap) pairs"
                         : "the phases and the direct map DIFFER")
            << "\n";
  return agree && same_set ? 0 : 1;
}

void add_problem_options(CLI::App* cmd, ConvOptions& o) {
  cmd->add_option("--input", o.input, "N,H,W,C: the activation X (NHWC)")
      ->expected(4)
      ->delimiter(',')
      ->required();
  cmd->add_option("--filter", o.filter, "K,R,S: filters and their height and width")
      ->expected(3)
      ->delimiter(',')
      ->required();
  cmd->add_option("--pad", o.pad, "H,W (default 0,0)")->expected(2)->delimiter(',');
  cmd->add_option("--stride", o.stride, "H,W (default 1,1)")->expected(2)->delimiter(',');
  cmd->add_option("--dilation", o.dilation, "H,W (default 1,1)")->expected(2)->delimiter(',');
  cmd->add_option("--groups", o.groups, "G (default 1)");
  cmd->add_flag("--convolution", o.convolution,
                "true convolution (the filter flipped), not cross-correlation");
  cmd->add_option("--tile-k", o.tile_k,
                  "the GEMM K tile, advance()'s step (default: 8 for fprop, K for dgrad)");
}

template <class Run>
int guarded(Run run, const ConvOptions& o) {
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "tessel-layout conv: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

void add_conv_command(CLI::App& app, int& status) {
  CLI::App* conv = app.add_subcommand("conv",
                                      "Run the library's implicit-GEMM convolution iterators on a "
                                      "small problem and print what they visit");
  conv->require_subcommand(1);
  auto fprop_options = std::make_shared<ConvOptions>();
  CLI::App* fprop = conv->add_subcommand(
      "fprop",
      "One thread's rows of fprop's implicit A (N*P*Q, R*S*C/G), K tile after K tile: at, valid "
      "and "
      "offset of ActivationIteratorAnalytic, checked against ActivationIteratorOptimized");
  add_problem_options(fprop, *fprop_options);
  fprop
      ->add_option("--rows", fprop_options->rows,
                   "FIRST,STEP,COUNT: the thread's GEMM rows (default: all, up to 16)")
      ->expected(3)
      ->delimiter(',');
  fprop->add_option("--column", fprop_options->column,
                    "the thread's first GEMM column (default 0)");
  fprop->add_option("--tiles", fprop_options->tiles, "K tiles to walk (default: to the end of K)");
  fprop->footer(
      "Example:\n  conv fprop --input 1,7,1,8 --filter 1,3,1 --pad 1,0 --stride 2,1 --tile-k 8");
  fprop->callback(
      [fprop_options, &status] { status = std::max(status, guarded(run_fprop, *fprop_options)); });

  auto dgrad_options = std::make_shared<ConvOptions>();
  CLI::App* dgrad = conv->add_subcommand(
      "dgrad",
      "dgrad's stride phases (make_dgrad_phase) and, for each row of dX, the dY element each tap "
      "reads, by the phase's fprop iterators over dY, checked against the direct map");
  add_problem_options(dgrad, *dgrad_options);
  dgrad->footer("Example:\n  conv dgrad --input 1,8,1,8 --filter 8,3,1 --pad 1,0 --stride 2,1");
  dgrad->callback(
      [dgrad_options, &status] { status = std::max(status, guarded(run_dgrad, *dgrad_options)); });
}

}  // namespace tessel::tool
