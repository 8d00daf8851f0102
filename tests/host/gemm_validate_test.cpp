// validate(): every rule of the GEMM contract (gemm.hpp), one behaviour per test. The problems
// use made-up device addresses: validate() is host-only and never dereferences a pointer.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include "tessel/runtime/gemm.hpp"

namespace tessel {
namespace {

constexpr std::int64_t k2To31 = std::int64_t{1} << 31;

// Made-up, well separated device addresses (D highest, so that huge D spans stay disjoint).
constexpr std::uintptr_t kAddressA = 0x1000'0000, kAddressB = 0x2000'0000, kAddressC = 0x3000'0000,
                         kAddressBias = 0x4000'0000, kAddressD = 0x100'0000'0000;

void* address(std::uintptr_t a) { return reinterpret_cast<void*>(a); }

// A valid problem: M x N x K = 64 x 32 x 16, A row-major (lda = K), B column-major (ldb = K),
// D row-major f32 (ldd = N), beta = 0 (C not read), no bias.
GemmArguments valid_args() {
  GemmArguments args;
  args.m = 64, args.n = 32, args.k = 16;
  args.a = address(kAddressA), args.lda = 16;
  args.b = address(kAddressB), args.ldb = 16;
  args.d = address(kAddressD), args.ldd = 32;
  return args;
}

// The same with C read (beta = 1) from its own buffer, ldc = N.
GemmArguments valid_args_with_c() {
  GemmArguments args = valid_args();
  args.beta = 1.0f, args.c = address(kAddressC), args.ldc = 32;
  return args;
}

// `s` failed with `code` and its message contains each of `parts`.
::testing::AssertionResult fails_with(const Status& s, StatusCode code,
                                      std::initializer_list<std::string_view> parts) {
  if (s.code() != code) {
    return ::testing::AssertionFailure()
           << "code " << status_code_name(s.code()) << ", expected " << status_code_name(code)
           << " (message: \"" << s.message() << "\")";
  }
  for (std::string_view part : parts) {
    if (s.message().find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << s.message() << "\" lacks \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult passes(const Status& s) {
  if (s.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << status_code_name(s.code()) << ": " << s.message();
}

// ---- valid problems -----------------------------------------------------------------------

TEST(GemmValidate, ValidProblemPasses) { EXPECT_TRUE(passes(validate(valid_args()))); }

TEST(GemmValidate, EveryLayoutCombinationWithExactLeadingDimensionsPasses) {
  for (MatrixLayout a : {MatrixLayout::kRowMajor, MatrixLayout::kColumnMajor}) {
    for (MatrixLayout b : {MatrixLayout::kRowMajor, MatrixLayout::kColumnMajor}) {
      for (MatrixLayout d : {MatrixLayout::kRowMajor, MatrixLayout::kColumnMajor}) {
        GemmArguments args = valid_args_with_c();
        args.a_layout = a, args.lda = a == MatrixLayout::kRowMajor ? args.k : args.m;
        args.b_layout = b, args.ldb = b == MatrixLayout::kRowMajor ? args.n : args.k;
        args.d_layout = d, args.ldd = d == MatrixLayout::kRowMajor ? args.n : args.m;
        args.ldc = args.ldd;
        EXPECT_TRUE(passes(validate(args))) << int(a) << int(b) << int(d);
      }
    }
  }
}

TEST(GemmValidate, EveryOutputTypeAndBothInputTypesPass) {
  for (DataType in : {DataType::kF16, DataType::kBF16}) {
    for (DataType out : {DataType::kF16, DataType::kBF16, DataType::kF32}) {
      GemmArguments args = valid_args();
      args.input_type = in, args.output_type = out;
      EXPECT_TRUE(passes(validate(args))) << data_type_name(in) << " -> " << data_type_name(out);
    }
  }
}

TEST(GemmValidate, NanAndInfAlphaAndBetaAreAccepted) {
  const float kNan = std::numeric_limits<float>::quiet_NaN();
  const float kInf = std::numeric_limits<float>::infinity();
  for (float value : {kNan, kInf, -kInf}) {
    GemmArguments args = valid_args_with_c();
    args.alpha = value, args.beta = value;
    EXPECT_TRUE(passes(validate(args))) << value;
  }
}

TEST(GemmValidate, EveryShippedConfigNamePasses) {
  for (const std::string& name : gemm_config_names()) {
    GemmArguments args = valid_args();
    args.config = name;
    EXPECT_TRUE(passes(validate(args))) << name;
  }
}

TEST(GemmValidate, ElementAlignedPointersNeedNoWiderAlignment) {
  GemmArguments args = valid_args();  // f16 inputs, f32 output
  args.a = address(kAddressA + 2), args.b = address(kAddressB + 6), args.d = address(kAddressD + 4);
  EXPECT_TRUE(passes(validate(args)));
}

// ---- enumerations, sizes, types, config ---------------------------------------------------

TEST(GemmValidate, EnumerationGarbageIsAnInvalidArgumentNamingTheField) {
  struct Field {
    const char* name;
    void (*set)(GemmArguments&, int);
  };
  const Field fields[] = {
      {"input_type", [](GemmArguments& a, int v) { a.input_type = DataType(v); }},
      {"output_type", [](GemmArguments& a, int v) { a.output_type = DataType(v); }},
      {"a_layout", [](GemmArguments& a, int v) { a.a_layout = MatrixLayout(v); }},
      {"b_layout", [](GemmArguments& a, int v) { a.b_layout = MatrixLayout(v); }},
      {"d_layout", [](GemmArguments& a, int v) { a.d_layout = MatrixLayout(v); }},
      {"activation", [](GemmArguments& a, int v) { a.activation = Activation(v); }},
  };
  for (const Field& field : fields) {
    for (int garbage : {-1, 3, 1000, INT_MIN}) {
      GemmArguments args = valid_args();
      field.set(args, garbage);
      const std::string found = std::string(field.name) + " = " + std::to_string(garbage);
      EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {found, "expected"}));
    }
  }
  GemmArguments args = valid_args();
  args.a_layout = MatrixLayout(2);  // one past the last layout
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"a_layout = 2"}));
}

TEST(GemmValidate, NegativeSizeIsAnInvalidArgument) {
  for (const char* name : {"m", "n", "k"}) {
    GemmArguments args = valid_args();
    int& size = *name == 'm' ? args.m : *name == 'n' ? args.n : args.k;
    size = -3;
    EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                           {std::string(name) + " = -3", ">= 0"}));
  }
}

TEST(GemmValidate, BatchBelowOneIsAnInvalidArgument) {
  for (int batch : {0, -1}) {
    GemmArguments args = valid_args();
    args.batch = batch;
    EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                           {"batch = " + std::to_string(batch), ">= 1"}));
  }
}

TEST(GemmValidate, MoreThan65535BatchesAreNotSupported) {
  GemmArguments args = valid_args();
  args.batch = 65536;
  args.d_batch_stride = args.m * args.ldd;  // batches of D apart (valid_args is row-major D)
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kNotSupported, {"batch = 65536", "65535"}));
}

TEST(GemmValidate, F32InputsAreNotSupported) {
  GemmArguments args = valid_args();
  args.input_type = DataType::kF32;
  EXPECT_TRUE(
      fails_with(validate(args), StatusCode::kNotSupported, {"input_type = f32", "f16 or bf16"}));
}

TEST(GemmValidate, UnknownConfigIsAnInvalidArgumentListingTheValidNames) {
  GemmArguments args = valid_args();
  args.config = "256x256x256_s9";
  Status s = validate(args);
  EXPECT_TRUE(fails_with(s, StatusCode::kInvalidArgument, {"config = \"256x256x256_s9\""}));
  for (const std::string& name : gemm_config_names()) {
    EXPECT_TRUE(fails_with(s, StatusCode::kInvalidArgument, {name}));
  }
}

// ---- zero-sized problems ------------------------------------------------------------------

TEST(GemmValidate, EmptyMOrNIsANoOpThatAcceptsNullPointersAndAnyLeadingDimension) {
  for (auto [m, n] : {std::pair{0, 32}, std::pair{64, 0}, std::pair{0, 0}}) {
    GemmArguments args;  // every pointer null, every leading dimension 0
    args.m = m, args.n = n, args.k = 16, args.batch = 3;
    args.beta = 1.0f, args.lda = -1, args.d_batch_stride = -1;
    EXPECT_TRUE(passes(validate(args))) << m << " x " << n;
  }
}

TEST(GemmValidate, EmptyProblemStillChecksEnumerationsSizesAndTypes) {
  GemmArguments args;
  args.m = 0;
  args.activation = Activation(9);
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"activation = 9"}));
  args = GemmArguments{};
  args.k = -1;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"k = -1"}));
  args = GemmArguments{};
  args.input_type = DataType::kF32;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kNotSupported, {"input_type = f32"}));
}

TEST(GemmValidate, EmptyKReadsNeitherANorB) {
  GemmArguments args = valid_args();
  args.k = 0, args.a = nullptr, args.lda = 0, args.b = nullptr, args.ldb = -4;
  EXPECT_TRUE(passes(validate(args)));
}

TEST(GemmValidate, EmptyKStillWritesD) {
  GemmArguments args = valid_args();
  args.k = 0, args.d = nullptr;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"d is null"}));
}

// ---- null pointers ------------------------------------------------------------------------

TEST(GemmValidate, NullAIsAnInvalidArgument) {
  GemmArguments args = valid_args();
  args.a = nullptr;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"a is null"}));
}

TEST(GemmValidate, NullBIsAnInvalidArgument) {
  GemmArguments args = valid_args();
  args.b = nullptr;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"b is null"}));
}

TEST(GemmValidate, NullDIsAnInvalidArgument) {
  GemmArguments args = valid_args();
  args.d = nullptr;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"d is null"}));
}

TEST(GemmValidate, NullCIsAnInvalidArgumentWhenBetaIsNonZero) {
  GemmArguments args = valid_args_with_c();
  args.c = nullptr;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"c is null"}));
}

TEST(GemmValidate, NullCIsValidWhenBetaIsZero) {
  GemmArguments args = valid_args();
  args.beta = 0.0f, args.c = nullptr, args.ldc = 0, args.c_batch_stride = -1;
  EXPECT_TRUE(passes(validate(args)));
}

TEST(GemmValidate, NanBetaReadsC) {
  GemmArguments args = valid_args();
  args.beta = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"c is null"}));
}

TEST(GemmValidate, NullBiasMeansNoBias) {
  GemmArguments args = valid_args();
  args.bias = nullptr;
  EXPECT_TRUE(passes(validate(args)));
  args.bias = address(kAddressBias);
  EXPECT_TRUE(passes(validate(args)));
}

// ---- leading dimensions -------------------------------------------------------------------

TEST(GemmValidate, LdaBelowKIsAnInvalidArgumentForRowMajorA) {
  GemmArguments args = valid_args();
  args.lda = 7;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"lda = 7 is smaller than K = 16", "A is row-major, M x K = 64 x 16"}));
}

TEST(GemmValidate, LdaBelowMIsAnInvalidArgumentForColumnMajorA) {
  GemmArguments args = valid_args();
  args.a_layout = MatrixLayout::kColumnMajor, args.lda = 63;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"lda = 63 is smaller than M = 64", "column-major"}));
}

TEST(GemmValidate, LdbBelowNIsAnInvalidArgumentForRowMajorB) {
  GemmArguments args = valid_args();
  args.b_layout = MatrixLayout::kRowMajor, args.ldb = 31;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"ldb = 31 is smaller than N = 32", "K x N = 16 x 32"}));
}

TEST(GemmValidate, LdbBelowKIsAnInvalidArgumentForColumnMajorB) {
  GemmArguments args = valid_args();
  args.ldb = 0;
  EXPECT_TRUE(
      fails_with(validate(args), StatusCode::kInvalidArgument, {"ldb = 0 is smaller than K = 16"}));
}

TEST(GemmValidate, LddBelowNIsAnInvalidArgumentForRowMajorD) {
  GemmArguments args = valid_args();
  args.ldd = -32;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"ldd = -32 is smaller than N = 32"}));
}

TEST(GemmValidate, LddBelowMIsAnInvalidArgumentForColumnMajorD) {
  GemmArguments args = valid_args();
  args.d_layout = MatrixLayout::kColumnMajor, args.ldd = 32;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"ldd = 32 is smaller than M = 64"}));
}

TEST(GemmValidate, LdcBelowTheExtentIsAnInvalidArgumentWhenCIsRead) {
  GemmArguments args = valid_args_with_c();
  args.ldc = 16;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"ldc = 16 is smaller than N = 32", "C is row-major"}));
}

// ---- batch strides ------------------------------------------------------------------------

TEST(GemmValidate, NegativeBatchStrideIsAnInvalidArgument) {
  for (const char* name :
       {"a_batch_stride", "b_batch_stride", "c_batch_stride", "d_batch_stride"}) {
    GemmArguments args = valid_args_with_c();
    std::int64_t& stride = name[0] == 'a'   ? args.a_batch_stride
                           : name[0] == 'b' ? args.b_batch_stride
                           : name[0] == 'c' ? args.c_batch_stride
                                            : args.d_batch_stride;
    stride = -1;
    EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                           {std::string(name) + " = -1 is negative"}));
  }
}

TEST(GemmValidate, ZeroInputBatchStrideRepeatsOneMatrix) {
  GemmArguments args = valid_args_with_c();
  args.batch = 4, args.d_batch_stride = 64 * 32;  // A, B and C: stride 0
  EXPECT_TRUE(passes(validate(args)));
}

TEST(GemmValidate, OverlappingBatchesOfDAreAnInvalidArgument) {
  GemmArguments args = valid_args();
  args.batch = 2, args.ldd = 40, args.d_batch_stride = 63 * 40 + 32 - 1;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"d_batch_stride = 2551", "span of 2552", "batch = 2"}));
}

TEST(GemmValidate, BatchStrideOfDEqualToOneSpanPasses) {
  GemmArguments args = valid_args();
  args.batch = 2, args.ldd = 40, args.d_batch_stride = 63 * 40 + 32;  // (M-1)*ldd + N
  EXPECT_TRUE(passes(validate(args)));
}

TEST(GemmValidate, ZeroBatchStrideOfDPassesForOneBatch) {
  GemmArguments args = valid_args();
  args.batch = 1, args.d_batch_stride = 0;
  EXPECT_TRUE(passes(validate(args)));
}

// ---- aliasing -----------------------------------------------------------------------------

TEST(GemmValidate, InPlaceCPasses) {
  GemmArguments args = valid_args_with_c();
  args.batch = 3, args.d_batch_stride = args.c_batch_stride = 64 * 32;
  args.c = args.d;
  EXPECT_TRUE(passes(validate(args)));
}

TEST(GemmValidate, InPlaceCWithAnotherLdcIsAnInvalidArgument) {
  GemmArguments args = valid_args_with_c();
  args.c = args.d, args.ldc = 48;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"same memory", "ldc = 48", "ldd = 32"}));
}

TEST(GemmValidate, InPlaceCWithAnotherBatchStrideIsAnInvalidArgument) {
  GemmArguments args = valid_args_with_c();
  args.c = args.d, args.batch = 2, args.d_batch_stride = 64 * 32, args.c_batch_stride = 0;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"c_batch_stride = 0", "d_batch_stride = 2048"}));
}

TEST(GemmValidate, InPlaceCIgnoresBatchStridesForOneBatch) {
  GemmArguments args = valid_args_with_c();
  args.c = args.d, args.c_batch_stride = 7, args.d_batch_stride = 0;
  EXPECT_TRUE(passes(validate(args)));
}

TEST(GemmValidate, PartiallyOverlappingCAndDAreAnInvalidArgument) {
  GemmArguments args = valid_args_with_c();
  args.c = address(kAddressD + 4);  // one f32 element into D
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"overlap without being the same memory"}));
}

TEST(GemmValidate, CRightAfterDPasses) {
  GemmArguments args = valid_args_with_c();
  args.c = address(kAddressD + 64 * 32 * 4);  // one past D's last byte
  EXPECT_TRUE(passes(validate(args)));
}

TEST(GemmValidate, OverlapCountsEveryBatch) {
  GemmArguments args = valid_args_with_c();
  args.batch = 2, args.d_batch_stride = 2 * 64 * 32;  // a gap of one D between the batches
  args.c = address(kAddressD + 64 * 32 * 4);          // in the gap: inside D's byte range
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"C [", "and D ["}));
}

TEST(GemmValidate, DOverlappingAIsAnInvalidArgument) {
  GemmArguments args = valid_args();
  args.d = address(kAddressA + 64 * 16 * 2 - 4);  // D's first element is A's last two
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"overlaps A"}));
}

TEST(GemmValidate, DOverlappingBIsAnInvalidArgument) {
  GemmArguments args = valid_args();
  args.b = address(kAddressD + 1024);
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"overlaps B"}));
}

TEST(GemmValidate, DOverlappingBiasIsAnInvalidArgument) {
  GemmArguments args = valid_args();
  args.bias = address(kAddressD + 64);
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"overlaps bias"}));
}

TEST(GemmValidate, DOverlappingAIsValidWhenKIsZero) {
  GemmArguments args = valid_args();
  args.k = 0, args.a = args.d;
  EXPECT_TRUE(passes(validate(args)));
}

TEST(GemmValidate, InputsMayShareMemory) {
  GemmArguments args = valid_args_with_c();
  args.b = args.a, args.c = args.a;
  EXPECT_TRUE(passes(validate(args)));
}

// ---- alignment ----------------------------------------------------------------------------

TEST(GemmValidate, MisalignedAIsReportedAsMisaligned) {
  GemmArguments args = valid_args();
  args.a = address(kAddressA + 1);
  EXPECT_TRUE(
      fails_with(validate(args), StatusCode::kMisaligned, {"a = 0x10000001", "2 bytes", "f16"}));
}

TEST(GemmValidate, MisalignedBIsReportedAsMisaligned) {
  GemmArguments args = valid_args();
  args.b = address(kAddressB + 3);
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kMisaligned, {"b = 0x20000003"}));
}

TEST(GemmValidate, MisalignedCIsReportedAsMisaligned) {
  GemmArguments args = valid_args_with_c();
  args.c = address(kAddressC + 2);  // f32 C
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kMisaligned, {"c = 0x30000002", "4 bytes"}));
}

TEST(GemmValidate, MisalignedDIsReportedAsMisaligned) {
  GemmArguments args = valid_args();
  args.output_type = DataType::kBF16, args.d = address(kAddressD + 1);
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kMisaligned, {"d = 0x", "bf16"}));
}

TEST(GemmValidate, MisalignedBiasIsReportedAsMisaligned) {
  GemmArguments args = valid_args();
  args.bias = address(kAddressBias + 2);
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kMisaligned, {"bias = 0x40000002"}));
}

// ---- 32-bit indexing and overflow ---------------------------------------------------------

TEST(GemmValidate, MatrixSpanJustBelow2To31Passes) {
  GemmArguments args = valid_args();
  args.m = 2, args.n = 1, args.ldd = k2To31 - 2;  // span (M-1)*ldd + N = 2^31 - 1
  EXPECT_TRUE(passes(validate(args)));
}

TEST(GemmValidate, MatrixSpanOf2To31IsNotSupported) {
  GemmArguments args = valid_args();
  args.m = 2, args.n = 1, args.ldd = k2To31 - 1;  // span 2^31
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kNotSupported,
                         {"one D spans 2147483648 elements", "ldd = 2147483647", "32-bit"}));
}

TEST(GemmValidate, LeadingDimensionOf2To31IsNotSupportedEvenForOneRow) {
  GemmArguments args = valid_args();
  args.m = 1, args.ldd = k2To31;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kNotSupported, {"ldd = 2147483648", "2^31"}));
}

TEST(GemmValidate, MatrixSpanFarPast2To31IsNotSupported) {
  GemmArguments args = valid_args();
  args.m = args.n = 1 << 30, args.k = 0;                              // only D is accessed
  args.d_layout = MatrixLayout::kColumnMajor, args.ldd = k2To31 - 1;  // span about 2^61
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kNotSupported,
                         {"one D spans 2305843007066210305 elements"}));
}

TEST(GemmValidate, HugeSizesAndLeadingDimensionsCannotOverflowTheCheck) {
  GemmArguments args = valid_args();
  args.m = args.n = 1 << 30, args.lda = std::int64_t{1} << 40;
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kNotSupported, {"lda = 1099511627776"}));

  args = valid_args();
  args.m = args.n = args.k = INT_MAX;
  args.lda = args.ldb = args.ldd = std::numeric_limits<std::int64_t>::max();
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kNotSupported, {"lda", "32-bit"}));
}

TEST(GemmValidate, BatchesPastTheEndOfTheAddressSpaceAreAnInvalidArgument) {
  GemmArguments args = valid_args();
  args.batch = 65535, args.a_batch_stride = std::int64_t{1} << 50;  // about 2^66 elements
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument,
                         {"a_batch_stride = 1125899906842624", "address space"}));

  args = valid_args();
  args.batch = 4, args.d_batch_stride = std::int64_t{1} << 61;  // 2^63 elements of 4 bytes
  EXPECT_TRUE(fails_with(validate(args), StatusCode::kInvalidArgument, {"d_batch_stride"}));
}

}  // namespace
}  // namespace tessel
