// Tensors: pointers tagged by memory space + layouts, tiling and partitioning, algorithms.
#pragma once

#include "layout.hpp"
#include "tensor/algorithm.hpp"
#include "tensor/engine.hpp"
#include "tensor/pointer.hpp"
#include "tensor/tensor.hpp"
#include "tensor/tiling.hpp"
