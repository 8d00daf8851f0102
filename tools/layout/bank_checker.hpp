// Shared-memory bank conflicts of one warp-wide access, computed through a layout.
//
// The hardware model (seed 004, "cute 之 Swizzle"): shared memory has 32 banks of 4-byte
// words; bank = (byte address / 4) mod 32. A warp's request is served in phases of one
// 128-byte wavefront each: 8 lanes per phase for 16-byte accesses, 16 for 8-byte, 32 for
// 4-byte; ldmatrix serves one 8-lane group (one 8x8 matrix) per phase. A phase costs n
// wavefronts when some bank holds n DISTINCT words requested in it ("n-way"); the same word
// requested twice is a broadcast, not a conflict. The tile's base address is taken to be
// 128-byte aligned.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "runtime_layout.hpp"

namespace tessel::tool {

// Raised for input the checker cannot analyse (wrong rank, element size, tile too small, an
// access that is not a contiguous aligned vector); the message says what was expected, what
// was found and what to change.
class BankCheckError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kWarpSize = 32;
inline constexpr int kBankCount = 32;
inline constexpr int kBankWordBytes = 4;
inline constexpr int kWavefrontBytes = kBankCount * kBankWordBytes;  // 128
inline constexpr int kLdmatrixRows = 8;                              // rows of one 8x8 matrix
inline constexpr int kLdmatrixRowBytes = 16;                         // one lane's address

struct Coord {
  int64_t row = 0, col = 0;
  friend bool operator==(const Coord&, const Coord&) = default;
};

// A shared-memory tile: (row, col) -> element offset, plain or swizzled. Modes 0 and 1 may be
// hierarchical; a coordinate indexes each mode by its flattened size, colexicographically.
struct SmemTile {
  std::variant<rt::Layout, rt::SwizzledLayout> layout;
  int64_t rows = 0, cols = 0;  // sizes of modes 0 and 1
  int elem_bytes = 2;

  int64_t offset(Coord c) const;  // element offset of (row, col); c must lie in the tile
  std::string text() const;       // the layout in CuTe's notation
};

// Checks that `value` is a rank-2 layout (plain or swizzled) and elem_bytes is 1, 2, 4 or 8.
// make_smem_tile(evaluate("(8,64):(64,1)"), 2) -> an 8 x 64 tile of 2-byte elements.
SmemTile make_smem_tile(const rt::Value& value, int elem_bytes);

// One lane's request: `vector_bytes` bytes starting at element `coord`, running along the
// columns (the elements (row, col), (row, col + 1), ...).
struct LaneRequest {
  int lane = 0;
  Coord coord;
};

// A warp-wide access: the lanes that take part (each at most once, ascending) and the width of
// each lane's vector. Phases are consecutive groups of kWavefrontBytes / vector_bytes lanes.
struct WarpAccess {
  std::string description;  // e.g. "ldmatrix.x4: 4 matrices of 8 rows x 16 bytes"
  int vector_bytes = 16;    // 4, 8 or 16
  std::vector<LaneRequest> lanes;
  int lanes_per_phase() const { return kWavefrontBytes / vector_bytes; }
};

// ldmatrix.x{1,2,4}: matrix m is the m-th 8-row x 16-byte block of the region that starts at
// `origin`, blocks in column-major order; lane l gives the address of row l % 8 of matrix
// l / 8. `region` {0, 0} means "to the end of the tile". For a 16 x 16 fp16 region the order
// is the mma A operand's: blocks (0,0) (8,0) (0,8) (8,8); for an (8,64) fp16 tile the four
// blocks lie side by side at columns 0, 8, 16, 24.
WarpAccess ldmatrix_access(const SmemTile& tile, int matrices, Coord origin = {},
                           Coord region = {});

// The lanes laid out row-major over the tile's vectors of `vector_bytes` (from `origin` to
// the right edge): lane l -> (l / V, (l % V) * E) with V vectors per row of E elements. This is
// a cp.async tile copy's write pattern; for a (32,32) fp16 tile and 16-byte vectors it is
// CuTe's thread layout (32,4):(4,1) restricted to one warp.
WarpAccess row_major_access(const SmemTile& tile, int vector_bytes, Coord origin = {});

// A thread layout like make_tiled_copy's: (row, column vector) -> thread id. The lanes of
// warp `warp` (thread ids 32 * warp .. 32 * warp + 31) take part; the vector of coordinate
// (r, v) starts at element (origin.row + r, origin.col + v * E). The layout must be rank 2 and
// one-to-one on the warp's threads.
WarpAccess thread_layout_access(const SmemTile& tile, const rt::Layout& threads, int vector_bytes,
                                Coord origin = {}, int warp = 0);

// Lane i starts its vector at coords[i]; at most 32 coordinates.
WarpAccess explicit_access(const std::vector<Coord>& coords, int vector_bytes);

struct LaneResult {
  int lane = 0;
  Coord coord;
  int64_t offset = 0;        // element offset of the vector's first element
  int64_t byte_address = 0;  // offset * elem_bytes
  std::vector<int> banks;    // the banks its words fall in, in address order
};

struct PhaseResult {
  int index = 0;
  int first_lane = 0, last_lane = 0;  // the phase's lane range (some lanes may be idle)
  std::vector<LaneResult> lanes;
  int n_way = 1;         // max over banks of the distinct words requested in that bank
  int busiest_bank = 0;  // a bank that reaches n_way
  std::vector<int64_t> busiest_words;  // the distinct word addresses (byte / 4) in that bank
  int broadcast_words = 0;             // words requested by more than one lane (each served once)
};

struct BankReport {
  std::vector<PhaseResult> phases;  // only phases with at least one active lane
  int worst_n_way = 1;
  int worst_phase = 0;
};

// Checks every lane's vector (inside the tile, consecutive offsets, aligned to the vector's
// size) and counts the conflicts of each phase. Throws BankCheckError when an access cannot be
// vectorised, naming the lane, its coordinate and the offsets found.
BankReport check_banks(const SmemTile& tile, const WarpAccess& access);

}  // namespace tessel::tool
