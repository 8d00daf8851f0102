// validate(): gemm.hpp's contract, checked on the host before anything touches the GPU. Each
// failure names the argument, the value found and what was expected; the first broken rule in
// this order is reported:
//
//   1. enumerations hold one of their values (the C API can pass any int)   invalid argument
//   2. m, n, k >= 0, batch >= 1                                              invalid argument
//      batch <= 65535                                                       not supported
//   3. input_type f16 or bf16 (f32 inputs are valid but not implemented)    not supported
//   4. config empty or one of gemm_config_names()                           invalid argument
//   -- m == 0 or n == 0: a no-op, nothing else is checked (pointers may be null) --
//   5. for each operand read (A and B when k > 0, C when beta != 0, D, bias when non-null):
//      non-null, aligned to its element, leading dimension >= its contiguous extent,
//      batch stride >= 0, one matrix's span below 2^31 elements, all batches inside the
//      address space
//   6. with batch > 1, the batches of D do not overlap
//   7. C is D (same pointer, ldc == ldd, same batch stride) or disjoint from it; D is disjoint
//      from A, B and bias
//
// Alpha and beta are not checked: NaN and inf are legitimate inputs and propagate as IEEE
// arithmetic says. C is read exactly when beta != 0, so a NaN beta reads C.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessel/runtime/gemm.hpp"

namespace tessel {
namespace {

// The kernels index within one matrix with 32-bit ints.
constexpr std::int64_t kMaxIndexSpan = std::int64_t{1} << 31;

Status invalid_argument(std::string message) {
  return {StatusCode::kInvalidArgument, std::move(message)};
}

std::string str(std::int64_t v) { return std::to_string(v); }

// address(0x7f3a00001001) -> "0x7f3a00001001"
std::string address(std::uintptr_t p) {
  char text[2 + 2 * sizeof(p) + 1];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(p));
  return text;
}
std::string address(const void* p) { return address(reinterpret_cast<std::uintptr_t>(p)); }

// a * b + c, or nothing when the exact result does not fit in 64 bits.
std::optional<std::int64_t> checked_mul_add(std::int64_t a, std::int64_t b, std::int64_t c) {
  std::int64_t product = 0, sum = 0;
  if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum)) {
    return std::nullopt;
  }
  return sum;
}

// Bytes [begin, end) of memory.
struct ByteRange {
  std::uintptr_t begin, end;
  bool overlaps(const ByteRange& other) const { return begin < other.end && other.begin < end; }
  std::string text() const { return "[" + address(begin) + ", " + address(end) + ")"; }
};

// `elements` elements of `bytes` each from `ptr`, or nothing when they pass the end of memory.
std::optional<ByteRange> byte_range(const void* ptr, std::int64_t elements, int bytes) {
  std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(ptr), size = 0, end = 0;
  if (__builtin_mul_overflow(elements, bytes, &size) || __builtin_add_overflow(begin, size, &end)) {
    return std::nullopt;
  }
  return ByteRange{begin, end};
}

// One matrix operand as the checks see it. Its argument names derive from `letter`:
// 'a' -> pointer "a", leading dimension "lda", batch stride "a_batch_stride", matrix "A".
struct Matrix {
  char letter;
  const char* rows_name;  // "M" or "K"
  const char* cols_name;  // "K" or "N"
  std::int64_t rows, cols;
  const void* ptr;
  MatrixLayout layout;
  std::int64_t ld, batch_stride;
  DataType type;

  std::string pointer_name() const { return std::string(1, letter); }
  std::string ld_name() const { return "ld" + pointer_name(); }
  std::string stride_name() const { return pointer_name() + "_batch_stride"; }
  std::string matrix_name() const { return std::string(1, char(letter - 'a' + 'A')); }

  bool row_major() const { return layout == MatrixLayout::kRowMajor; }
  std::int64_t contiguous() const { return row_major() ? cols : rows; }  // ld's lower bound
  std::int64_t strided() const { return row_major() ? rows : cols; }     // lines of ld elements

  // "A is row-major, M x K = 128 x 64"
  std::string shape_text() const {
    return matrix_name() + " is " + (row_major() ? "row-major" : "column-major") + ", " +
           rows_name + " x " + cols_name + " = " + str(rows) + " x " + str(cols);
  }
  // Elements from the first to one past the last of one matrix: (strided - 1) * ld + contiguous.
  std::optional<std::int64_t> span() const {
    return checked_mul_add(strided() - 1, ld, contiguous());
  }
  // All batches: (batch - 1) * batch_stride + span elements from ptr.
  std::optional<ByteRange> range(int batch) const {
    std::optional<std::int64_t> one = span();
    if (!one) return std::nullopt;
    std::optional<std::int64_t> all = checked_mul_add(batch - 1, batch_stride, *one);
    if (!all) return std::nullopt;
    return byte_range(ptr, *all, data_type_bytes(type));
  }
};

Status check_enumerations(const GemmArguments& args) {
  struct Field {
    const char* name;
    int value, count;  // valid: 0 <= value < count
    const char* expected;
  };
  const int kTypeCount = int(DataType::kF32) + 1,
            kLayoutCount = int(MatrixLayout::kColumnMajor) + 1;
  const char* kTypes = "0 (f16), 1 (bf16) or 2 (f32)";
  const char* kLayouts = "0 (row-major) or 1 (column-major)";
  const Field fields[] = {
      {"input_type", int(args.input_type), kTypeCount, kTypes},
      {"output_type", int(args.output_type), kTypeCount, kTypes},
      {"a_layout", int(args.a_layout), kLayoutCount, kLayouts},
      {"b_layout", int(args.b_layout), kLayoutCount, kLayouts},
      {"d_layout", int(args.d_layout), kLayoutCount, kLayouts},
      {"activation", int(args.activation), int(Activation::kGELU) + 1,
       "0 (none), 1 (ReLU) or 2 (GELU)"},
  };
  for (const Field& f : fields) {
    if (f.value < 0 || f.value >= f.count) {
      return invalid_argument(std::string(f.name) + " = " + str(f.value) +
                              " is not one of its values; expected " + f.expected);
    }
  }
  return {};
}

Status check_sizes(const GemmArguments& args) {
  const std::pair<const char*, int> sizes[] = {{"m", args.m}, {"n", args.n}, {"k", args.k}};
  for (auto [name, value] : sizes) {
    if (value < 0) {
      return invalid_argument(std::string(name) + " = " + str(value) +
                              " is negative; expected a size >= 0");
    }
  }
  if (args.batch < 1) {
    return invalid_argument("batch = " + str(args.batch) +
                            " is smaller than 1; expected the number of GEMMs, >= 1");
  }
  if (args.batch > 65535) {  // one grid layer (blockIdx.z) per batch
    return {StatusCode::kNotSupported, "batch = " + str(args.batch) + " exceeds 65535, the most batches one call runs"};
  }
  return {};
}

Status check_types(const GemmArguments& args) {
  if (args.input_type == DataType::kF32) {
    return {StatusCode::kNotSupported,
            "input_type = f32 is not supported; expected f16 or bf16 for A and B (the "
            "accumulation is fp32 either way; convert f32 inputs first)"};
  }
  return {};
}

Status check_config(const GemmArguments& args) {
  if (args.config.empty()) return {};
  std::vector<std::string> names = gemm_config_names();
  std::string list;
  for (const std::string& name : names) {
    if (name == args.config) return {};
    list += (list.empty() ? "" : ", ") + name;
  }
  return invalid_argument("config = \"" + args.config +
                          "\" is not a tile configuration of this library; expected one of " +
                          list + ", or empty for the heuristic");
}

Status check_alignment(const std::string& name, const void* ptr, DataType type) {
  const int bytes = data_type_bytes(type);
  if (reinterpret_cast<std::uintptr_t>(ptr) % bytes != 0) {
    return {StatusCode::kMisaligned, name + " = " + address(ptr) + " is not aligned to " +
                                         str(bytes) + " bytes, the size of one " +
                                         data_type_name(type) +
                                         " element; expected a multiple of " + str(bytes)};
  }
  return {};
}

// The rules of one operand that is read or written, in isolation (step 5).
Status check_matrix(const Matrix& x, int batch) {
  const std::string ptr = x.pointer_name(), ld = x.ld_name(), stride = x.stride_name();
  if (x.ptr == nullptr) {
    return invalid_argument(ptr + " is null but " + x.matrix_name() + " is accessed (" +
                            x.shape_text() + "); expected a device pointer");
  }
  if (Status s = check_alignment(ptr, x.ptr, x.type); !s) return s;
  if (x.ld < x.contiguous()) {
    const char* extent_name = x.row_major() ? x.cols_name : x.rows_name;
    return invalid_argument(ld + " = " + str(x.ld) + " is smaller than " + extent_name + " = " +
                            str(x.contiguous()) + " (" + x.shape_text() + "); expected " + ld +
                            " >= " + str(x.contiguous()));
  }
  if (x.batch_stride < 0) {
    return invalid_argument(stride + " = " + str(x.batch_stride) +
                            " is negative; expected >= 0 (0 repeats one " + x.matrix_name() +
                            " for every batch)");
  }
  if (x.ld >= kMaxIndexSpan) {
    return {StatusCode::kNotSupported, ld + " = " + str(x.ld) +
                                           " does not fit the kernels' 32-bit index arithmetic; " +
                                           "expected " + ld + " < 2^31 = " + str(kMaxIndexSpan)};
  }
  std::optional<std::int64_t> span = x.span();
  if (!span || *span >= kMaxIndexSpan) {
    return {StatusCode::kNotSupported,
            "one " + x.matrix_name() + " spans " +
                (span ? str(*span) : std::string("more than 2^63")) + " elements ((" +
                (x.row_major() ? x.rows_name : x.cols_name) + " - 1) * " + ld + " + " +
                (x.row_major() ? x.cols_name : x.rows_name) + " with " + ld + " = " + str(x.ld) +
                ", " + x.shape_text() + "); the kernels index with 32-bit ints, " +
                "expected fewer than 2^31 = " + str(kMaxIndexSpan) + " (split the problem)"};
  }
  if (!x.range(batch)) {
    return invalid_argument("the " + str(batch) + " batches of " + x.matrix_name() + " from " +
                            ptr + " = " + address(x.ptr) + " with " + stride + " = " +
                            str(x.batch_stride) + " pass the end of the address space; " +
                            "expected a smaller " + stride);
  }
  return {};
}

// Step 6: every batch of D is written by one GEMM only.
Status check_output_batches(const Matrix& d, int batch) {
  const std::int64_t span = *d.span();  // fits: check_matrix passed
  if (batch > 1 && d.batch_stride < span) {
    return invalid_argument(
        "d_batch_stride = " + str(d.batch_stride) + " is smaller than one D's span of " +
        str(span) + " elements (" + d.shape_text() + ", ldd = " + str(d.ld) + "): with batch = " +
        str(batch) + " the batches of D would overlap; expected d_batch_stride >= " + str(span));
  }
  return {};
}

// Step 7. `c` is null when C is not read; `inputs` are the other operands read (A, B).
Status check_aliasing(const Matrix& d, const Matrix* c, const std::vector<Matrix>& inputs,
                      std::optional<ByteRange> bias, int batch) {
  const ByteRange d_range = *d.range(batch);  // fits: check_matrix passed
  if (c != nullptr && c->ptr == d.ptr) {
    if (c->ld != d.ld) {
      return invalid_argument("c and d are the same memory but ldc = " + str(c->ld) +
                              " differs from ldd = " + str(d.ld) +
                              "; expected ldc == ldd for an in-place C, or disjoint C and D");
    }
    if (batch > 1 && c->batch_stride != d.batch_stride) {
      return invalid_argument(
          "c and d are the same memory but c_batch_stride = " + str(c->batch_stride) +
          " differs from d_batch_stride = " + str(d.batch_stride) + " (batch = " + str(batch) +
          "); expected equal strides for an in-place C, or disjoint C and D");
    }
  } else if (c != nullptr && c->range(batch)->overlaps(d_range)) {
    return invalid_argument("C " + c->range(batch)->text() + " and D " + d_range.text() +
                            " overlap without being the same memory (c = " + address(c->ptr) +
                            ", d = " + address(d.ptr) +
                            "); expected c == d with ldc == ldd and c_batch_stride == "
                            "d_batch_stride, or disjoint buffers");
  }
  for (const Matrix& x : inputs) {
    if (x.range(batch)->overlaps(d_range)) {
      return invalid_argument("D " + d_range.text() + " overlaps " + x.matrix_name() + " " +
                              x.range(batch)->text() +
                              "; expected D disjoint from its inputs A, B and bias");
    }
  }
  if (bias && bias->overlaps(d_range)) {
    return invalid_argument("D " + d_range.text() + " overlaps bias " + bias->text() +
                            "; expected D disjoint from its inputs A, B and bias");
  }
  return {};
}

}  // namespace

Status validate(const GemmArguments& args) {
  for (Status (*check)(const GemmArguments&) :
       {check_enumerations, check_sizes, check_types, check_config}) {
    if (Status s = check(args); !s) return s;
  }
  if (args.m == 0 || args.n == 0) return {};  // a no-op: nothing is read or written

  const Matrix d{'d',
                 "M",
                 "N",
                 args.m,
                 args.n,
                 args.d,
                 args.d_layout,
                 args.ldd,
                 args.d_batch_stride,
                 args.output_type};
  std::vector<Matrix> inputs;  // A and B, read when k > 0
  if (args.k > 0) {
    inputs.push_back({'a', "M", "K", args.m, args.k, args.a, args.a_layout, args.lda,
                      args.a_batch_stride, args.input_type});
    inputs.push_back({'b', "K", "N", args.k, args.n, args.b, args.b_layout, args.ldb,
                      args.b_batch_stride, args.input_type});
  }
  std::optional<Matrix> c;  // read when beta != 0 (NaN included)
  if (args.beta != 0.0f) {
    c = Matrix{'c',
               "M",
               "N",
               args.m,
               args.n,
               args.c,
               args.d_layout,
               args.ldc,
               args.c_batch_stride,
               args.output_type};
  }

  for (const Matrix& x : inputs) {
    if (Status s = check_matrix(x, args.batch); !s) return s;
  }
  if (c) {
    if (Status s = check_matrix(*c, args.batch); !s) return s;
  }
  if (Status s = check_matrix(d, args.batch); !s) return s;

  std::optional<ByteRange> bias;  // N values of the output type, shared by every batch
  if (args.bias != nullptr) {
    if (Status s = check_alignment("bias", args.bias, args.output_type); !s) return s;
    bias = byte_range(args.bias, args.n, data_type_bytes(args.output_type));
    if (!bias) {
      return invalid_argument("bias = " + address(args.bias) + " with N = " + str(args.n) +
                              " values passes the end of the address space; expected a valid "
                              "device pointer");
    }
  }

  if (Status s = check_output_batches(d, args.batch); !s) return s;
  return check_aliasing(d, c ? &*c : nullptr, inputs, bias, args.batch);
}

}  // namespace tessel
