// Stream-K: how the persistent TMA kernel (kernel_sm90_tma.hpp) shares `items` output tiles of
// `k_tiles` K tiles each among `blocks` blocks (seed 004's "next step" after split-K).
//
//   data-parallel  the first items - sk_items items, whole: item i to block i % blocks
//   stream-K       the last sk_items items' sk_items * k_tiles iterations (one K tile of one
//                  item each), cut into `blocks` contiguous ranges of equal length (+-1):
//                  block b takes [sk_begin(b), sk_begin(b + 1))
//
// A range may begin or end inside an item: such an item is summed from the partial sums of
// several blocks, its contributors (consecutive blocks). Each contributor writes its partial
// (fp32, the accumulators' register layout) to its slot of the workspace, (block, 0) when the
// segment is the block's first (it begins inside the item) and (block, 1) when it is its last
// (it ends inside the item): a block has at most one of each. The contributor that arrives
// last at the item's counter adds the partials in block order and stores the tile, so the
// result does not depend on the order in which blocks finish, and no block waits for another.
//
// Example: 2 items of 6 K tiles on 4 blocks: iterations 0..11, ranges [0,3) [3,6) [6,9) [9,12);
// item 0 = blocks 0 (slot 1) and 1 (slot 0), item 1 = blocks 2 (slot 1) and 3 (slot 0).
//
// Sliced (splits > 1, for fewer items than SMs with a deep K): every item is cut into `splits`
// equal K slices, block b computing slice b / items of item b % items, with the same fix-up
// (slot 0; contributors b, b + items, ...). Blocks that run at the same time then read the
// same K tiles of neighbouring items, which L2 shares; ranges across item boundaries do not
// (1024x1024x65536 ran at half the speed as stream-K ranges).
#pragma once

#include "tessel/layout/config.hpp"

namespace tessel {

// One piece of a block's work: K tiles [k_begin, k_end) of item `item`; slot -1 when the block
// computes the whole item (it stores the tile itself), else its workspace slot (0 or 1).
struct WorkSegment {
  int item = 0, k_begin = 0, k_end = 0, slot = -1;
};

struct StreamKSchedule {
  int blocks = 1;    // persistent blocks
  int items = 0;     // output tiles, batches included
  int k_tiles = 0;   // K tiles per item
  int sk_items = 0;  // the last sk_items items are stream-K (0: every item data-parallel)
  int splits = 1;    // > 1: sliced (all items stream-K, blocks = items * splits)

  // Ranges: every block's stream-K range holds at least one iteration (so an item's
  // contributors are consecutive blocks). Sliced: one non-empty slice per block.
  TESSEL_HOST_DEVICE bool valid() const {
    if (splits > 1)
      return sk_items == items && items >= 1 && blocks == items * splits && k_tiles >= splits;
    return splits == 1 && blocks >= 1 && items >= 0 && k_tiles >= 0 && sk_items >= 0 &&
           sk_items <= items && (sk_items == 0 || sk_iterations() >= blocks);
  }
  TESSEL_HOST_DEVICE int dp_items() const { return items - sk_items; }
  TESSEL_HOST_DEVICE long long sk_iterations() const { return (long long)sk_items * k_tiles; }
  // The first stream-K iteration of block b (b = blocks: the end).
  TESSEL_HOST_DEVICE long long sk_begin(int b) const { return sk_iterations() * b / blocks; }
  // The block whose range holds stream-K iteration i: the largest b with sk_begin(b) <= i.
  TESSEL_HOST_DEVICE int block_of(long long i) const {
    return int(((i + 1) * blocks - 1) / sk_iterations());
  }

  // The contributors of stream-K item t (0 <= t < sk_items: item dp_items() + t), in the order
  // their partials are added: contributor(t, 0 .. contributors(t) - 1); slot_of(b, t) is where
  // block b's partial lies.
  TESSEL_HOST_DEVICE int first_contributor(int t) const { return block_of((long long)t * k_tiles); }
  TESSEL_HOST_DEVICE int last_contributor(int t) const {
    return block_of((long long)(t + 1) * k_tiles - 1);
  }
  TESSEL_HOST_DEVICE int contributors(int t) const {
    return splits > 1 ? splits : last_contributor(t) - first_contributor(t) + 1;
  }
  TESSEL_HOST_DEVICE int contributor(int t, int j) const {
    return splits > 1 ? t + j * items : first_contributor(t) + j;
  }
  TESSEL_HOST_DEVICE int slot_of(int b, int t) const {
    return splits > 1 || sk_begin(b) > (long long)t * k_tiles ? 0 : 1;
  }
  // Sliced: the first K tile of slice j.
  TESSEL_HOST_DEVICE int slice_begin(int j) const { return int((long long)k_tiles * j / splits); }

  // Walks block b's segments in order: its data-parallel items, then its stream-K range cut
  // at item boundaries.
  //   StreamKSchedule::Cursor c = schedule.start(b);
  //   for (WorkSegment s; schedule.next(c, &s);) ...
  struct Cursor {
    int dp_item;
    long long sk_at, sk_end;
  };
  TESSEL_HOST_DEVICE Cursor start(int b) const {
    if (splits > 1) return {b, 0, 1};  // one segment
    return {b, sk_items > 0 ? sk_begin(b) : 0, sk_items > 0 ? sk_begin(b + 1) : 0};
  }
  TESSEL_HOST_DEVICE bool next(Cursor& c, WorkSegment* s) const {
    if (splits > 1) {
      if (c.sk_at >= c.sk_end) return false;
      c.sk_at = c.sk_end;
      const int slice = c.dp_item / items;
      *s = {c.dp_item % items, slice_begin(slice), slice_begin(slice + 1), 0};
      return true;
    }
    if (c.dp_item < dp_items()) {
      *s = {c.dp_item, 0, k_tiles, -1};
      c.dp_item += blocks;
      return true;
    }
    if (c.sk_at >= c.sk_end) return false;
    const int t = int(c.sk_at / k_tiles);
    const long long item_begin = (long long)t * k_tiles;
    const int k_begin = int(c.sk_at - item_begin);
    const int k_end = c.sk_end - item_begin < k_tiles ? int(c.sk_end - item_begin) : k_tiles;
    *s = {dp_items() + t, k_begin, k_end,
          k_begin == 0 && k_end == k_tiles ? -1
          : k_begin > 0                    ? 0
                                           : 1};
    c.sk_at = item_begin + k_end;
    return true;
  }
};

// What the kernel needs for stream-K: the schedule, and (when sk_items > 0) the workspace:
// partials (blocks * kClusterM, 2, Config::kEpilogueThreads * Config::kAccumulators floats)
// and kClusterM counters per stream-K item, zero at launch (with clusters the schedule's
// blocks are clusters and its items pairs of tiles: kernel_sm90_tma.hpp).
struct StreamKParams {
  StreamKSchedule schedule;
  float* partials = nullptr;
  int* counters = nullptr;
};

}  // namespace tessel
