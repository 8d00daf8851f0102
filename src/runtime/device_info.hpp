// What the planners need to know about the GPU a call runs on. Planning takes it as an input
// (it calls no CUDA function), so every entry point's planning runs and is tested on machines
// without a GPU: tests/host/plan_fuzz_test.cpp plans random problems for an H100, an A100 and
// made-up devices. current_device() reads it off the current CUDA device for the real calls.
#pragma once

#include "tessel/runtime/status.hpp"

namespace tessel {

struct DeviceInfo {
  int sms = 132;                   // multiprocessors (an H100 SXM has 132)
  int cc_major = 9, cc_minor = 0;  // compute capability
  bool sm90_kernels = true;        // libtessel has sm_90a code and TESSEL_DISABLE_SM90 is unset or "0"
  bool tma_encoder = true;         // the driver's tensor-map encoders were found, TESSEL_DISABLE_TMA unset or "0"
  bool stream_k = true;            // the TMA kernel may run stream-K: TESSEL_DISABLE_STREAM_K unset or "0"
  bool tma_store = true;           // ... and store 16-bit D by the TMA engine: TESSEL_DISABLE_TMA_STORE unset or "0"
  // ... for tiles of at least this many K tiles (src/gemm/gemm_plan.cpp says why 64);
  // TESSEL_STREAM_K_MIN_K_TILES=n sets it (the device tests run stream-K on small problems).
  int stream_k_min_k_tiles = 64;
  // Ungrouped 1x1 convolutions with stride 1 and no padding run as tessel::gemm
  // (conv2d_plan.hpp's conv_as_gemm): TESSEL_DISABLE_CONV_AS_GEMM unset or "0".
  bool conv_as_gemm = true;
  // Groups of 4 to 32 channels (by direction) run as groups of 64 over a block-diagonal filter (conv2d_plan.cpp's
  // packs_groups): TESSEL_DISABLE_PACKED_GROUPS unset or "0".
  bool packed_groups = true;
  // wgrad layers that the TMA kernel would run with at least 512 filters and an im2col copy no
  // larger than X run as tessel::gemm over that copy (conv2d_plan.hpp's WgradPlan::im2col_gemm):
  // TESSEL_DISABLE_WGRAD_IM2COL unset or "0".
  bool wgrad_im2col = true;
  // Shared memory a block may have (opted in): 227 KiB on an H100, 163 on an A100, 99 on
  // compute capability 8.6 and 8.9 (RTX 30xx and 40xx, A10, L4, L40).
  int smem_per_block = 227 * 1024;
  // Whether the wgmma kernels run: only compute capability 9.0 has sm_90a's instructions.
  bool wgmma() const { return sm90_kernels && cc_major == 9 && cc_minor == 0; }
};

// What plan() plans for where there is no GPU: an H100, with this build's kernels
// (sm90_kernels only where libtessel has sm_90a code and TESSEL_DISABLE_SM90 is unset or "0").
DeviceInfo planning_device_without_gpu();

// The current CUDA device. kNoDevice, its message starting with `who`, when there is none or it
// is older than sm_80 (tessel's kernels need cp.async and mma.sync).
Status current_device(const char* who, DeviceInfo* out);

}  // namespace tessel
