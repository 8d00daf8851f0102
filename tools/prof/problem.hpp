// One GEMM problem as the profiler states it: BLAS-style layout letters over tessel's
// arguments, with every derived quantity (leading dimensions, element counts, FLOPs) in one
// place so the tessel launch, the cuBLAS calls and the references agree.
//
//   layout "tn": op(A) = A^T, op(B) = B, D column-major M x N   (cuBLAS's notation)
//     A  't': stored K x M column-major = M x K row-major   (lda = K)
//        'n': M x K column-major                            (lda = M)
//     B  'n': K x N column-major                            (ldb = K)
//        't': stored N x K column-major = K x N row-major   (ldb = N)
//     C, D: M x N column-major (ldc = ldd = M); batches packed one after the other.
#pragma once

#include <cstdint>
#include <string>

#include "tessel/runtime/gemm.hpp"

namespace tessel::prof {

struct GemmShape {
  int m = 0, n = 0, k = 0;
};

struct GemmProblem {
  GemmShape shape;
  int batch = 1;
  std::string layout = "tn";  // tn, nt, nn or tt: first letter A, second B
  DataType input_type = DataType::kF16;
  DataType output_type = DataType::kF32;
  float alpha = 1.0f, beta = 0.0f;
  bool bias = false;
  Activation activation = Activation::kNone;
  std::string config;  // empty: the library's heuristic

  bool a_transposed() const { return layout[0] == 't'; }  // A is M x K row-major
  bool b_transposed() const { return layout[1] == 't'; }  // B is K x N row-major
  MatrixLayout a_layout() const;
  MatrixLayout b_layout() const;
  std::int64_t lda() const;  // K ('t') or M ('n')
  std::int64_t ldb() const;  // N ('t') or K ('n')
  std::int64_t ldd() const { return shape.m; }

  // Elements of one batch; the whole operand holds batch times as many.
  std::int64_t a_elements() const { return std::int64_t{shape.m} * shape.k; }
  std::int64_t b_elements() const { return std::int64_t{shape.k} * shape.n; }
  std::int64_t d_elements() const { return std::int64_t{shape.m} * shape.n; }
  bool reads_c() const { return beta != 0.0f; }

  double flops() const { return 2.0 * shape.m * shape.n * shape.k * batch; }
  std::string shape_text() const;  // "4096x4096x4096", "512x512x64 x8" with a batch
};

// Activation::kReLU -> "relu"; names as on the command line.
const char* activation_name(Activation a);

// The command line's names back: "bf16" -> kBF16, "f32" -> kF32, anything else kF16;
// "relu" -> kReLU, "gelu" -> kGELU, anything else kNone (CLI11 checks the names first).
DataType data_type_from(const std::string& name);
Activation activation_from(const std::string& name);

// The arguments for tessel::gemm over the given buffers (batch strides packed).
GemmArguments make_arguments(const GemmProblem& p, const void* a, const void* b, const void* c,
                             void* d, const void* bias);

}  // namespace tessel::prof
