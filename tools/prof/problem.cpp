// GemmProblem's derived quantities: the single place where layout letters become leading
// dimensions (see problem.hpp for the convention).
#include "problem.hpp"

namespace tessel::prof {

MatrixLayout GemmProblem::a_layout() const {
  return a_transposed() ? MatrixLayout::kRowMajor : MatrixLayout::kColumnMajor;
}

MatrixLayout GemmProblem::b_layout() const {
  return b_transposed() ? MatrixLayout::kRowMajor : MatrixLayout::kColumnMajor;
}

std::int64_t GemmProblem::lda() const { return a_transposed() ? shape.k : shape.m; }
std::int64_t GemmProblem::ldb() const { return b_transposed() ? shape.n : shape.k; }

std::string GemmProblem::shape_text() const {
  std::string text =
      std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" + std::to_string(shape.k);
  if (batch > 1) text += " x" + std::to_string(batch);
  return text;
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::kNone:
      return "none";
    case Activation::kReLU:
      return "relu";
    case Activation::kGELU:
      return "gelu";
  }
  return "?";
}

GemmArguments make_arguments(const GemmProblem& p, const void* a, const void* b, const void* c,
                             void* d, const void* bias) {
  GemmArguments args;
  args.m = p.shape.m;
  args.n = p.shape.n;
  args.k = p.shape.k;
  args.batch = p.batch;
  args.input_type = p.input_type;
  args.output_type = p.output_type;
  args.a = a;
  args.a_layout = p.a_layout();
  args.lda = p.lda();
  args.a_batch_stride = p.batch > 1 ? p.a_elements() : 0;
  args.b = b;
  args.b_layout = p.b_layout();
  args.ldb = p.ldb();
  args.b_batch_stride = p.batch > 1 ? p.b_elements() : 0;
  args.c = p.reads_c() ? c : nullptr;
  args.ldc = p.ldd();
  args.c_batch_stride = p.batch > 1 ? p.d_elements() : 0;
  args.d = d;
  args.d_layout = MatrixLayout::kColumnMajor;
  args.ldd = p.ldd();
  args.d_batch_stride = p.batch > 1 ? p.d_elements() : 0;
  args.alpha = p.alpha;
  args.beta = p.beta;
  args.bias = p.bias ? bias : nullptr;
  args.activation = p.activation;
  args.config = p.config;
  return args;
}

DataType data_type_from(const std::string& name) {
  if (name == "bf16") return DataType::kBF16;
  if (name == "f32") return DataType::kF32;
  return DataType::kF16;
}

Activation activation_from(const std::string& name) {
  if (name == "relu") return Activation::kReLU;
  if (name == "gelu") return Activation::kGELU;
  return Activation::kNone;
}

}  // namespace tessel::prof
