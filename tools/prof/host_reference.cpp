// host_reference_error: a column at a time (columns split across threads), A first copied
// to column-major so the inner loop runs down contiguous columns of A and of D.
#include "host_reference.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <thread>

namespace tessel::prof {
namespace {

double activate(double x, Activation act) {
  constexpr double kSqrt2OverPi = 0.7978845608028654;
  constexpr double kCubic = 0.044715;
  switch (act) {
    case Activation::kNone:
      return x;
    case Activation::kReLU:
      return x > 0.0 ? x : 0.0;
    case Activation::kGELU:
      return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + kCubic * x * x * x)));
  }
  return x;
}

// The largest error over columns first, first + step, ... of one batch.
double batch_columns_error(const GemmProblem& p, const HostOperands& h, int batch,
                           const std::vector<double>& a_cm, int first, int step) {
  const auto [m, n, k] = p.shape;
  const std::int64_t d0 = std::int64_t(batch) * p.d_elements();
  const std::int64_t b0 = std::int64_t(batch) * p.b_elements();
  std::vector<double> acc(m), mag(m);
  double worst = 0.0;
  for (int col = first; col < n; col += step) {
    std::fill(acc.begin(), acc.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    for (int kk = 0; kk < k; ++kk) {
      const std::int64_t b_at =
          p.b_transposed() ? std::int64_t(kk) * p.ldb() + col : kk + std::int64_t(col) * p.ldb();
      const double bv = h.b[b0 + b_at];
      const double* a_col = a_cm.data() + std::int64_t(kk) * m;
      for (int row = 0; row < m; ++row) {
        acc[row] += a_col[row] * bv;
        mag[row] += std::fabs(a_col[row] * bv);
      }
    }
    const double bias = h.bias.empty() ? 0.0 : h.bias[col];
    for (int row = 0; row < m; ++row) {
      const std::int64_t at = d0 + row + std::int64_t(col) * m;
      const double c = h.c.empty() ? 0.0 : h.c[at];
      const double ref = activate(p.alpha * acc[row] + p.beta * c + bias, p.activation);
      const double scale = std::fabs(p.alpha) * mag[row] + std::fabs(p.beta * c) + std::fabs(bias);
      const double diff = std::fabs(h.d[at] - ref);
      double err = scale > 0.0 ? diff / scale : (diff == 0.0 ? 0.0 : INFINITY);
      if (!(err <= DBL_MAX)) err = INFINITY;  // NaN in d
      worst = std::max(worst, err);
    }
  }
  return worst;
}

}  // namespace

double host_reference_error(const GemmProblem& p, const HostOperands& h) {
  const auto [m, n, k] = p.shape;
  const int threads =
      std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::max(n, 1));
  double worst = 0.0;
  std::vector<double> a_cm(std::size_t(m) * k);  // (M,K) column-major, one batch
  for (int batch = 0; batch < p.batch; ++batch) {
    const std::int64_t a0 = std::int64_t(batch) * p.a_elements();
    for (int kk = 0; kk < k; ++kk) {
      for (int row = 0; row < m; ++row) {
        const std::int64_t at =
            p.a_transposed() ? std::int64_t(row) * p.lda() + kk : row + std::int64_t(kk) * p.lda();
        a_cm[std::size_t(kk) * m + row] = h.a[a0 + at];
      }
    }
    std::vector<double> worst_of(threads, 0.0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back(
          [&, t] { worst_of[t] = batch_columns_error(p, h, batch, a_cm, t, threads); });
    }
    for (std::thread& t : pool) t.join();
    for (double w : worst_of) worst = std::max(worst, w);
  }
  return worst;
}

}  // namespace tessel::prof
