// Problems and helpers the conv2d host tests of tessel-prof share.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "conv_problem.hpp"

namespace tessel::prof::test {

// 2x9x10x16 -> 32 3x3, pad 1, stride 2, groups 2: P = 5, Q = 5, C/G = 8, K/G = 16.
inline ConvProblem grouped(ConvPass pass) {
  ConvProblem p;
  p.pass = pass;
  p.shape = {.n = 2,
             .h = 9,
             .w = 10,
             .c = 16,
             .k = 32,
             .r = 3,
             .s = 3,
             .pad_h = 1,
             .pad_w = 1,
             .stride_h = 2,
             .stride_w = 2,
             .groups = 2};
  return p;
}

// ResNet-50's stem at batch n: 224x224x3 -> 64 7x7, pad 3, stride 2.
inline ConvProblem stem(int n) {
  ConvProblem p;
  p.shape = {.n = n,
             .h = 224,
             .w = 224,
             .c = 3,
             .k = 64,
             .r = 7,
             .s = 7,
             .pad_h = 3,
             .pad_w = 3,
             .stride_h = 2,
             .stride_w = 2};
  return p;
}

inline std::size_t count_of(const std::string& text, char c) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), c));
}

}  // namespace tessel::prof::test
