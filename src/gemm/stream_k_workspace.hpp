// Stream-K's workspace (tessel/gemm/stream_k.hpp), for tessel::gemm and conv2d's wgrad: the
// stream-K items' counters, zeroed on the stream, then two fp32 tiles per block for the
// partials. With clusters of cluster_m blocks the schedule's items and blocks are pairs of
// tiles and clusters: one counter and two tiles per block of each.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "runtime/stream_buffer.hpp"
#include "tessel/gemm/stream_k.hpp"
#include "tessel/runtime/status.hpp"

namespace tessel {

inline Status stream_k_workspace(StreamKSchedule const& schedule, int tile_m, int tile_n, int cluster_m,
                                 const char* who, cudaStream_t stream, StreamBuffer* buffer, StreamKParams* sk) {
  sk->schedule = schedule;
  const std::size_t counter_bytes = (std::size_t(schedule.sk_items) * cluster_m * sizeof(int) + 255) / 256 * 256;
  const std::size_t partial_bytes = std::size_t(schedule.blocks) * cluster_m * 2 * tile_m * tile_n * sizeof(float);
  if (Status s = buffer->allocate(counter_bytes + partial_bytes, who, "the stream-K workspace"); !s) return s;
  sk->counters = buffer->get<int>();
  sk->partials = reinterpret_cast<float*>(buffer->get<char>() + counter_bytes);
  if (cudaError_t e = cudaMemsetAsync(sk->counters, 0, counter_bytes, stream); e != cudaSuccess) {
    cudaGetLastError();
    return {StatusCode::kCudaError, std::string(who) + ": zeroing the stream-K counters failed: " + cudaGetErrorString(e)};
  }
  return {};
}

}  // namespace tessel
