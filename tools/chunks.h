// Cutting a packed tensor into chunks that are regions of it (SPEC.md section
// 10), so `generate` writes any size through a fixed amount of memory, and
// MPI ranks each take a slab.
//
// A chunk is a box of the global tensor that is also one contiguous range of
// its packed row-major bytes: fixed indices along the dimensions before
// `axis`, a run of indices along `axis`, every index along the dimensions
// after it. Filled as a region (FillOptions::region) into a packed buffer, its
// bytes are exactly the file's bytes at its first element.
//
// The plan sees the tensor as `rows()` rows of `row_elements()` elements: a
// row is one index of the leading `row_dims` dimensions, chosen as few as
// possible such that one row fits the byte budget. Slabs (one per MPI rank)
// are ranges of rows; chunks never cross from one slab into the next.
#ifndef RANDTENSOR_TOOLS_CHUNKS_H_
#define RANDTENSOR_TOOLS_CHUNKS_H_

#include <cstdint>
#include <vector>

namespace randtensor_cli {

struct Chunk {
  std::vector<int64_t> start;  // the region's first index, one per dimension
  std::vector<int64_t> sizes;  // the region's sizes
  uint64_t first_element = 0;  // its first element's row-major index in the tensor
  uint64_t elements = 0;       // how many elements (all contiguous in the file)
  uint64_t rows = 0;           // how many rows of the plan it covers
};

class ChunkPlan {
 public:
  // `sizes`: the global tensor (1 to 8 dimensions, each >= 1, at most 2^63
  // elements: the library has validated them); `budget`: the most bytes one
  // chunk may have, except that a chunk always holds at least one element.
  ChunkPlan(const std::vector<int64_t>& sizes, uint64_t element_bytes, uint64_t budget);

  uint64_t rows() const { return rows_; }
  uint64_t row_elements() const { return row_elements_; }
  // The most elements any chunk holds (the buffer a writer needs).
  uint64_t max_chunk_elements() const { return rows_per_chunk_ * row_elements_; }

  // Rows [first, end) of slab `part` of `parts` (near-equal contiguous
  // ranges, in order; a slab may be empty when parts > rows()).
  void Slab(uint64_t part, uint64_t parts, uint64_t* first, uint64_t* end) const;

  // The chunk that starts at `row` and ends at or before `end_row`. The
  // chunks of rows [first, end), in file order, are those at first,
  // first + chunk.rows, ... while below end.
  Chunk ChunkAt(uint64_t row, uint64_t end_row) const;

  // How many chunks rows [first_row, end_row) are cut into.
  uint64_t CountChunks(uint64_t first_row, uint64_t end_row) const;

 private:
  // Rows in the run along the chunk axis that starts at `row`, capped to the
  // chunk size and to `end_row`.
  uint64_t ChunkRows(uint64_t row, uint64_t end_row) const;

  std::vector<int64_t> sizes_;
  int row_dims_ = 1;              // dimensions [0, row_dims_) index the rows
  uint64_t rows_ = 0;             // product of sizes_[0, row_dims_)
  uint64_t row_elements_ = 0;     // product of sizes_[row_dims_, rank)
  uint64_t rows_per_chunk_ = 1;   // >= 1
};

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_CHUNKS_H_
