// Encoding TMA maps (planned as parameters: tma_map.hpp) with the driver's encoders, reached
// through the runtime (libtessel links no libcuda). Used on compute capability 9.0 devices only.
#pragma once

#include <cuda.h>

#include "runtime/tma_map.hpp"

namespace tessel::sm90 {

// Whether the driver offers cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col.
bool tma_encoders_available();

// Encodes p over the tensor at ptr into *map; false when the driver refuses it.
bool encode_tma_map(const TmaMapParams& p, const void* ptr, CUtensorMap* map);

}  // namespace tessel::sm90
