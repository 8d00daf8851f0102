// main() of every device test: without a CUDA device each test exits 77, which ctest reports
// as Skipped (SKIP_RETURN_CODE), so a machine without a GPU never passes them silently.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  bool listing = false;  // gtest_discover_tests lists the tests; that needs no GPU
  for (int i = 1; i < argc; ++i) listing |= std::strcmp(argv[i], "--gtest_list_tests") == 0;
  int devices = 0;
  if (!listing && (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)) {
    std::printf("SKIPPED: no CUDA device on this machine\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
