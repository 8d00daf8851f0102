// CuTe's layout algebra over run-time values (include/cute/layout.hpp, int_tuple.hpp,
// swizzle_layout.hpp), written for layouts whose nesting is only known at run time.
//
// Every value is treated the way CuTe treats a *static* value: shape-1 modes are dropped by
// coalesce, stride-0 right operands short-cut composition, and the divisibility conditions that
// CuTe checks with static_assert are checked here and raise AlgebraError naming the rule, e.g.
//   composition: stride divisibility violated: stride 3 of the right layout does not divide
//   shape 2 of the left layout's mode 0 (nor is it divisible by it)
// so for fully static inputs the printed results equal CuTe's (and the compile-time algebra's).
//
// All arithmetic is overflow-checked; shapes must be positive.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime_layout.hpp"

namespace tessel::rt {

// ---- int-tuple helpers (runtime_int_tuple.cpp) -------------------------------------------

IntTree make_tuple(std::vector<IntTree> children);
int64_t product(const IntTree& t);                   // product((2,(3,4))) = 24
std::vector<int64_t> leaves(const IntTree& t);       // colexicographic order: (2,(3,4)) -> 2,3,4
IntTree flatten(const IntTree& t);                   // (2,(3,4)) -> (2,3,4); a leaf stays a leaf
bool congruent(const IntTree& a, const IntTree& b);  // same tree structure
// CuTe's compatible(a, b): every coordinate of shape a is also one of shape b; a leaf of a
// may be refined by a subtree of b of the same size. compatible(24, (4,6)) holds,
// compatible((4,6), 24) does not.
bool compatible(const IntTree& a, const IntTree& b);
// Exclusive prefix products, congruent to shape: (2,(3,4)) -> (1,(2,6)); start at `init`.
IntTree prefix_product(const IntTree& shape, int64_t init = 1);
// Compact strides; a shape-1 mode gets stride 0 (CuTe's compact_major on static shapes):
// compact_col_major((4,1,2)) = (1,0,4), compact_row_major((2,3,4)) = (12,4,1).
IntTree compact_col_major(const IntTree& shape, int64_t init = 1);
IntTree compact_row_major(const IntTree& shape, int64_t init = 1);
// CuTe's shape_div: a / b when b divides a, else 1 (with signs) when a divides b; otherwise
// AlgebraError ("shape_div: 6 and 4 do not divide each other"). Tuples fold left to right.
int64_t shape_div(int64_t a, int64_t b);
IntTree shape_div(const IntTree& a, const IntTree& b);
int64_t ceil_div(int64_t a, int64_t b);                // (a + b - 1) / b for a >= 0, b > 0
IntTree ceil_div(const IntTree& a, const IntTree& b);  // folds like shape_div
IntTree append(const IntTree& t, const IntTree& x);    // 4 -> (4,x); (a,b) -> (a,b,x)
IntTree prepend(const IntTree& t, const IntTree& x);   // 4 -> (x,4); (a,b) -> (x,a,b)
// Colexicographic index <-> natural coordinate of a shape; the last mode takes the rest.
IntTree idx2crd(int64_t index, const IntTree& shape);  // idx2crd(5, (2,3)) = (1,2)
int64_t crd2idx(const IntTree& coord, const IntTree& shape, const IntTree& stride);
// `_` in a slicing coordinate: a leaf carrying kUnderscore.
constexpr int64_t kUnderscore = INT64_MIN;
inline IntTree underscore() { return IntTree(kUnderscore); }
// CuTe's slice: keeps the modes of t where coord has `_`, flattening one level per tuple in
// coord; slice((_,(_,_)), (a,(b,c))) = (a,b,c); a single kept mode is unwrapped.
IntTree slice(const IntTree& coord, const IntTree& t);
// Throws AlgebraError unless every leaf is > 0: "<what>: shape 0 is not positive".
void check_shape(const IntTree& shape, const char* what);

// ---- layouts (runtime_algebra.cpp) ---------------------------------------------------------

Layout make_layout(const IntTree& shape);        // compact column-major: (4,2) -> (4,2):(1,4)
                                                 // (shape-1 modes get stride 0: 1 -> 1:0)
Layout make_layout_right(const IntTree& shape);  // compact row-major:    (4,2) -> (4,2):(2,1)
// Each argument becomes one mode: make_layout({4:1, 2:4}) = (4,2):(1,4); make_layout({L}) = (L).
Layout make_layout(const std::vector<Layout>& modes);
Layout flatten(const Layout& l);
Layout append(const Layout& l, const Layout& x);  // CuTe's append on shape and stride
Layout slice(const IntTree& coord, const Layout& l);
int64_t size(const Layout& l);
int64_t cosize(const Layout& l);
int64_t size(const Tiler& t);  // product of the modes' sizes
// Checks the Layout invariant (congruent shape and stride, positive shapes).
void validate(const Layout& l, const char* what);

// ---- coalesce and filter (runtime_algebra.cpp) ----------------------------------------------

// Merges modes where s0*d0 == d1, drops shape-1 modes, flattens: (2,(1,6)):(1,(6,2)) -> 12:1.
// Everything merged gives an integral mode; all shape-1 gives 1:0.
Layout coalesce(const Layout& l);
// By mode, following a profile: coalesce(((2,4),(3,2)):((1,2),(8,24)), (1,1)) = (8,6):(1,8).
// Modes past the profile's rank are kept as they are.
Layout coalesce(const Layout& l, const IntTree& profile);
// Like coalesce, but keeps the function outside the domain too (CuTe's detail::coalesce_x):
// (4,1):(1,8) -> (4,2):(1,8). Used by composition.
Layout coalesce_extended(const Layout& l);
// Drops stride-0 and shape-1 modes, then coalesces: (4,2,3):(0,1,2) -> (2,3):(1,2).
Layout filter(const Layout& l);
Layout filter(const Layout& l, const IntTree& profile);

// ---- composition (runtime_composition.cpp) -------------------------------------------------

// (A o B)(i) = A(B(i)); distributes over B's modes, so the result is congruent to B:
// composition((6,2):(8,2), (4,3):(3,1)) = ((2,2),3):((24,2),8).
Layout composition(const Layout& a, const Layout& b);
// By mode: mode i of A composed with B's entry i; A's modes past B's rank are dropped.
Layout composition(const Layout& a, const Tiler& b);
SwizzledLayout composition(const Swizzle& s, const Layout& b);  // Sw o 0 o B
SwizzledLayout composition(const SwizzledLayout& a, const Layout& b);
SwizzledLayout composition(const SwizzledLayout& a, const Tiler& b);

// ---- complement and inverses (runtime_complement.cpp) --------------------------------------

// The layout that fills the gaps of A up to cotarget, ordered after A: complement(4:2, 24) =
// (2,3):(1,8). cotarget is an integer or a shape (folded like ceil_div). Needs non-negative,
// ordered-divisible strides (sorted, each d_{i+1} divisible by s_i*d_i).
Layout complement(const Layout& a, const IntTree& cotarget);
Layout complement(const Layout& a);  // cotarget = cosize(A)
// R with A(R(i)) == i for i < size(R), as large as the contiguous image allows:
// right_inverse((4,2):(2,1)) = (2,4):(4,1); right_inverse(4:2) = 1:0.
Layout right_inverse(const Layout& a);
// L with L(A(i)) == i for i < size(A); needs an injective A: left_inverse(4:2) = (2,4):(4,1).
Layout left_inverse(const Layout& a);

// ---- divide and product (runtime_divide.cpp, runtime_product.cpp) --------------------------

// A o (B, complement(B, size(A))): ((4,2,3):(2,1,8)) / (4:2) = ((2,2),(2,3)):((4,1),(2,8)).
Layout logical_divide(const Layout& a, const Layout& b);
Layout logical_divide(const Layout& a, const Tiler& b);  // by mode, extra modes kept
Layout zipped_divide(const Layout& a, const Layout& b);  // ((tile),(rest))
Layout zipped_divide(const Layout& a, const Tiler& b);
Layout tiled_divide(const Layout& a, const Layout& b);  // ((tile),rest0,rest1,...)
Layout tiled_divide(const Layout& a, const Tiler& b);
Layout flat_divide(const Layout& a, const Layout& b);  // (tile0,tile1,...,rest0,rest1,...)
Layout flat_divide(const Layout& a, const Tiler& b);
// (A, complement(A, size(A)*cosize(B)) o B): logical_product(2:1, 3:1) = (2,3):(1,2).
Layout logical_product(const Layout& a, const Layout& b);
Layout logical_product(const Layout& a, const Tiler& b);
Layout zipped_product(const Layout& a, const Layout& b);
Layout zipped_product(const Layout& a, const Tiler& b);
Layout tiled_product(const Layout& a, const Layout& b);
Layout tiled_product(const Layout& a, const Tiler& b);
Layout flat_product(const Layout& a, const Layout& b);
Layout flat_product(const Layout& a, const Tiler& b);
// Rank-sensitive: mode i of the result is (A_i, tile_i) (blocked) or (tile_i, A_i) (raked),
// each coalesced: blocked_product((2,5):(5,1), (3,4):(1,3)) = (6,(5,4)):(5,(1,30)).
Layout blocked_product(const Layout& a, const Layout& b);
Layout raked_product(const Layout& a, const Layout& b);
// Repeats A (blocked, column-major) until it has the target shape; each target mode must be a
// multiple of A's: tile_to_shape((2,2):(1,2), (4,6)) = ((2,2),(2,3)):((1,4),(2,8)).
Layout tile_to_shape(const Layout& a, const IntTree& target);

// Reinterprets offsets for elements N times wider (upcast) or narrower (downcast):
// upcast((8,4):(4,1), 2) = (8,2):(2,1); downcast((8,2):(2,1), 2) = (8,4):(4,1).
Layout upcast(const Layout& a, int64_t n);
Layout downcast(const Layout& a, int64_t n);

}  // namespace tessel::rt
