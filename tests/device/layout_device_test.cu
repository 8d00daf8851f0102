// The layout algebra in device code: the same expressions evaluated in a kernel and on the
// host give the same offsets; fully static layouts fold to constants in both.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "tessel/layout.hpp"

namespace tessel {
namespace {

// The layouts under test, built the same way on both sides. i indexes their domains.
struct Cases {
  TESSEL_HOST_DEVICE static auto swizzled() {
    return composition(Swizzle<3, 3, 3>{}, make_layout(make_shape(Int<8>{}, Int<64>{}), LayoutRight{}));
  }
  TESSEL_HOST_DEVICE static auto divided() {
    return zipped_divide(make_layout(make_shape(Int<12>{}, Int<8>{})), make_tuple(Int<3>{}, Int<4>{}));
  }
  TESSEL_HOST_DEVICE static auto product() {
    return blocked_product(make_layout(make_shape(Int<2>{}, Int<5>{}), make_stride(Int<5>{}, Int<1>{})),
                           make_layout(make_shape(Int<3>{}, Int<4>{}), make_stride(Int<1>{}, Int<3>{})));
  }
  // Dynamic integers: computed at run time on the device.
  TESSEL_HOST_DEVICE static auto dynamic_composed(int m, int n) {
    auto a = make_layout(make_shape(m, n), make_stride(n, 1));
    return composition(a, make_layout(make_shape(4, 2), make_stride(2, 1)));
  }
  TESSEL_HOST_DEVICE static auto dynamic_complement(int s, int d) {
    return complement(make_layout(make_shape(s, 2), make_stride(d, 4 * d)), 64);
  }
};

static_assert(decltype(size(Cases::swizzled()))::value == 512, "static size folds");

__global__ void evaluate(long long* out, int m, int n) {
  int i = threadIdx.x;  // 512 threads
  out[i] = Cases::swizzled()(i);
  out[512 + i] = i < 96 ? static_cast<long long>(Cases::divided()(i)) : -1;
  out[1024 + i] = i < 120 ? static_cast<long long>(Cases::product()(i)) : -1;
  out[1536 + i] = i < 8 ? static_cast<long long>(Cases::dynamic_composed(m, n)(i)) : -1;
  auto c = Cases::dynamic_complement(2, 1);
  out[2048 + i] = i < size(c) ? static_cast<long long>(c(i)) : -1;
}

TEST(LayoutOnDevice, KernelAndHostAgree) {
  constexpr int kOut = 2560;
  long long* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_out, kOut * sizeof(long long)), cudaSuccess);
  ASSERT_EQ(cudaMemset(d_out, 0xff, kOut * sizeof(long long)), cudaSuccess);  // poison
  evaluate<<<1, 512>>>(d_out, 8, 6);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<long long> got(kOut);
  ASSERT_EQ(cudaMemcpy(got.data(), d_out, kOut * sizeof(long long), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d_out);

  auto c = Cases::dynamic_complement(2, 1);
  for (int i = 0; i < 512; ++i) {
    EXPECT_EQ(got[i], Cases::swizzled()(i)) << i;
    EXPECT_EQ(got[512 + i], i < 96 ? static_cast<long long>(Cases::divided()(i)) : -1) << i;
    EXPECT_EQ(got[1024 + i], i < 120 ? static_cast<long long>(Cases::product()(i)) : -1) << i;
    EXPECT_EQ(got[1536 + i], i < 8 ? static_cast<long long>(Cases::dynamic_composed(8, 6)(i)) : -1) << i;
    EXPECT_EQ(got[2048 + i], i < size(c) ? static_cast<long long>(c(i)) : -1) << i;
  }
  // Spot values worked by hand: index 1 = (1,0) is offset 64, which Swizzle<3,3,3> moves to 72;
  // (8,6):(6,1) o (4,2):(2,1)
  // = (4,2):(12,6) maps index 5 = (1,1) to 18 = A(3).
  EXPECT_EQ(got[1], 72);
  EXPECT_EQ(got[1536 + 5], 18);
}

}  // namespace
}  // namespace tessel
