// The layout algebra: everything in include/tessel/layout/.
#pragma once

#include "layout/coalesce.hpp"
#include "layout/complement.hpp"
#include "layout/composed_layout.hpp"
#include "layout/composition.hpp"
#include "layout/divide.hpp"
#include "layout/int_tuple.hpp"
#include "layout/integer.hpp"
#include "layout/inverse.hpp"
#include "layout/layout.hpp"
#include "layout/product.hpp"
#include "layout/recast.hpp"
#include "layout/swizzle.hpp"
#include "layout/tuple.hpp"
#if !defined(__CUDA_ARCH__)
#include "layout/print.hpp"
#endif
