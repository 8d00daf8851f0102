// The sm80 PTX wrappers: cp.async (global -> shared), ldmatrix (shared -> registers) and
// mma.sync (registers -> accumulators), the three steps of seed 004's mainloop.
#pragma once

#include "sm80/cp_async.hpp"
#include "sm80/ldmatrix.hpp"
#include "sm80/mma.hpp"
