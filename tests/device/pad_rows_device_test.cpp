// The staging copy (src/runtime/pad_rows.hpp) on the GPU against a host reference, on random
// copies from the whole space its callers use: 1-400 rows of 1-1100 elements at any 2-byte
// offset (so that every shift of the aligned 16-byte reads occurs), row strides of any parity,
// batches packed, apart or broadcast (stride 0), zero rows and wider rows in the copy, one or
// two copies a launch. Each source is allocated to its last element exactly (memcheck finds
// a read past it), and the copies are poisoned first: every element of dst must be the
// source's element or zero.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/pad_rows.hpp"

namespace tessel {
namespace {

struct Copy {
  long long rows, cols, ld_src, batch_src, rows_dst, ld_dst;
  int batches, offset;  // offset: src's first element past the start of its allocation
  std::vector<std::uint16_t> src;  // from the allocation's start
  void* d_src = nullptr;
  void* d_dst = nullptr;

  std::string describe() const {
    return "rows " + std::to_string(rows) + " cols " + std::to_string(cols) + " ld_src " + std::to_string(ld_src) +
           " batch_src " + std::to_string(batch_src) + " batches " + std::to_string(batches) + " offset " +
           std::to_string(offset) + " rows_dst " + std::to_string(rows_dst) + " ld_dst " + std::to_string(ld_dst);
  }
};

Copy random_copy(std::mt19937& rng) {
  auto pick = [&](long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng); };
  Copy c{};
  c.rows = pick(0, 3) == 0 ? pick(1, 3) : pick(1, 400);
  c.cols = pick(0, 3) == 0 ? pick(1, 9) : pick(1, 1100);
  c.ld_src = c.cols + (pick(0, 1) ? 0 : pick(1, 9));
  c.batches = int(pick(1, 3));
  const long long span = (c.rows - 1) * c.ld_src + c.cols;  // one batch's elements
  const int kind = int(pick(0, 2));
  c.batch_src = c.batches == 1 || kind == 0 ? 0 : kind == 1 ? span : span + pick(1, 15);
  c.offset = int(pick(0, 7));
  c.rows_dst = c.rows + (pick(0, 1) ? 0 : pick(1, 130));
  c.ld_dst = (c.cols + 7) / 8 * 8 + 8 * pick(0, 1);
  c.src.resize(size_t(c.offset + (c.batches - 1) * c.batch_src + span));
  for (auto& x : c.src) x = std::uint16_t(1 + rng() % 0xfffe);  // never 0 or the poison
  return c;
}

void check(Copy const& c) {
  std::vector<std::uint16_t> dst(size_t(c.batches * c.rows_dst * c.ld_dst));
  ASSERT_EQ(cudaMemcpy(dst.data(), c.d_dst, dst.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  for (long long b = 0; b < c.batches; ++b) {
    for (long long r = 0; r < c.rows_dst; ++r) {
      for (long long j = 0; j < c.ld_dst; ++j) {
        const std::uint16_t want =
            r < c.rows && j < c.cols ? c.src[size_t(c.offset + b * c.batch_src + r * c.ld_src + j)] : 0;
        const std::uint16_t got = dst[size_t((b * c.rows_dst + r) * c.ld_dst + j)];
        ASSERT_EQ(got, want) << c.describe() << ": batch " << b << " row " << r << " column " << j;
      }
    }
  }
}

TEST(PadRows, RandomCopiesOneOrTwoALaunch) {
  std::mt19937 rng(20261128);
  for (int i = 0; i < 300; ++i) {
    Copy copies[2] = {random_copy(rng), random_copy(rng)};
    const int count = 1 + int(rng() % 2);
    PadRowsCopy args[2];
    for (int k = 0; k < count; ++k) {
      Copy& c = copies[k];
      ASSERT_EQ(cudaMalloc(&c.d_src, c.src.size() * 2), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(c.d_src, c.src.data(), c.src.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
      const size_t dst_bytes = size_t(c.batches * c.rows_dst * c.ld_dst * 2);
      ASSERT_EQ(cudaMalloc(&c.d_dst, dst_bytes), cudaSuccess);
      ASSERT_EQ(cudaMemset(c.d_dst, 0xff, dst_bytes), cudaSuccess);
      args[k] = {static_cast<std::uint16_t*>(c.d_src) + c.offset, c.ld_src, c.batch_src, c.d_dst, c.ld_dst, c.rows,
                 c.rows_dst, int(c.cols), c.batches};
    }
    ASSERT_EQ(pad_rows(args, count, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (int k = 0; k < count; ++k) {
      check(copies[k]);
      cudaFree(copies[k].d_src), cudaFree(copies[k].d_dst);
    }
    if (HasFailure()) return;
  }
}

TEST(PadRows, RejectsCountsItCannotLaunch) {
  EXPECT_EQ(pad_rows(nullptr, 0, nullptr), cudaErrorInvalidValue);
  PadRowsCopy three[3]{};
  EXPECT_EQ(pad_rows(three, 3, nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace tessel
