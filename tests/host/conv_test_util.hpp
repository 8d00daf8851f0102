// What the conv host tests share: a problem's description for failure messages, random
// integer tensors, and the convolution's definition as loops (problem.hpp's formula), against
// which the iterators and operands are checked with exact arithmetic.
#pragma once

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tessel/conv/problem.hpp"

namespace tessel::conv_test {

std::string describe(const Conv2dProblem& pb) {
  std::ostringstream out;
  out << "N=" << pb.n << " H=" << pb.h << " W=" << pb.w << " C=" << pb.c << " K=" << pb.k
      << " R=" << pb.r << " S=" << pb.s << " pad=" << pb.pad_h << "," << pb.pad_w
      << " stride=" << pb.stride_h << "," << pb.stride_w << " dilation=" << pb.dilation_h << ","
      << pb.dilation_w << " groups=" << pb.groups
      << (pb.mode == ConvMode::kConvolution ? " convolution" : " cross-correlation");
  return out.str();
}

// Random integer tensors for one problem: X (NHWC), W (KRSC) and dY (NPQK).
struct Tensors {
  std::vector<long long> x, f, dy;
};

Tensors random_tensors(const Conv2dProblem& pb, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-4, 4);
  Tensors t;
  t.x.resize(std::size_t(pb.n) * pb.h * pb.w * pb.c);
  t.f.resize(std::size_t(pb.k) * pb.r * pb.s * (pb.c / pb.groups));
  t.dy.resize(std::size_t(pb.n) * pb.p() * pb.q() * pb.k);
  for (auto* v : {&t.x, &t.f, &t.dy}) {
    for (auto& e : *v) e = value(rng);
  }
  return t;
}

// Calls visit(n, p, q, k, r, s, c, h, w) for every product term of the convolution's
// definition whose tap lies inside the image (c within the group, h and w the image position).
template <class Visit>
void for_each_term(const Conv2dProblem& pb, Visit visit) {
  const int cg = pb.c / pb.groups;
  const bool flip = pb.mode == ConvMode::kConvolution;
  for (int n = 0; n < pb.n; ++n) {
    for (int p = 0; p < pb.p(); ++p) {
      for (int q = 0; q < pb.q(); ++q) {
        for (int k = 0; k < pb.k; ++k) {
          for (int r = 0; r < pb.r; ++r) {
            for (int s = 0; s < pb.s; ++s) {
              const int h = p * pb.stride_h - pb.pad_h + (flip ? pb.r - 1 - r : r) * pb.dilation_h;
              const int w = q * pb.stride_w - pb.pad_w + (flip ? pb.s - 1 - s : s) * pb.dilation_w;
              if (h < 0 || h >= pb.h || w < 0 || w >= pb.w) continue;
              for (int c = 0; c < cg; ++c) visit(n, p, q, k, r, s, c, h, w);
            }
          }
        }
      }
    }
  }
}

}  // namespace tessel::conv_test
