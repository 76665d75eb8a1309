#include "tools/chunks.h"

#include <algorithm>

namespace randtensor_cli {

__extension__ typedef unsigned __int128 u128;  // GCC and Clang: products without overflow

ChunkPlan::ChunkPlan(const std::vector<int64_t>& sizes, uint64_t element_bytes, uint64_t budget)
    : sizes_(sizes) {
  const int rank = static_cast<int>(sizes_.size());
  // The fewest leading dimensions whose rows fit the budget: the fewer, the
  // longer each chunk's run, the fewer chunks. A row of the last dimension
  // alone (row_dims_ == rank) is one element and always taken.
  row_dims_ = rank;
  u128 row_bytes = element_bytes;
  for (int d = rank - 1; d >= 1; --d) {
    row_bytes *= static_cast<u128>(sizes_[d]);
    if (row_bytes > budget) break;
    row_dims_ = d;
  }
  rows_ = 1;
  row_elements_ = 1;
  for (int d = 0; d < rank; ++d) (d < row_dims_ ? rows_ : row_elements_) *= sizes_[d];
  rows_per_chunk_ = std::max<uint64_t>(1, budget / (row_elements_ * element_bytes));
}

void ChunkPlan::Slab(uint64_t part, uint64_t parts, uint64_t* first, uint64_t* end) const {
  *first = static_cast<uint64_t>(static_cast<u128>(rows_) * part / parts);
  *end = static_cast<uint64_t>(static_cast<u128>(rows_) * (part + 1) / parts);
}

uint64_t ChunkPlan::ChunkRows(uint64_t row, uint64_t end_row) const {
  // A chunk is a box only while it stays inside one run of the chunk axis
  // (dimension row_dims_ - 1): the index along it must not wrap.
  const uint64_t axis_size = static_cast<uint64_t>(sizes_[row_dims_ - 1]);
  const uint64_t left_in_run = axis_size - row % axis_size;
  return std::min({left_in_run, end_row - row, rows_per_chunk_});
}

Chunk ChunkPlan::ChunkAt(uint64_t row, uint64_t end_row) const {
  const int rank = static_cast<int>(sizes_.size());
  Chunk chunk;
  chunk.rows = ChunkRows(row, end_row);
  chunk.start.assign(rank, 0);
  chunk.sizes = sizes_;
  // The row's index along the leading dimensions, the last of them fastest.
  uint64_t rest = row;
  for (int d = row_dims_ - 1; d >= 0; --d) {
    chunk.start[d] = static_cast<int64_t>(rest % static_cast<uint64_t>(sizes_[d]));
    rest /= static_cast<uint64_t>(sizes_[d]);
    chunk.sizes[d] = 1;
  }
  chunk.sizes[row_dims_ - 1] = static_cast<int64_t>(chunk.rows);
  chunk.first_element = row * row_elements_;
  chunk.elements = chunk.rows * row_elements_;
  return chunk;
}

uint64_t ChunkPlan::CountChunks(uint64_t first_row, uint64_t end_row) const {
  uint64_t count = 0;
  for (uint64_t row = first_row; row < end_row; row += ChunkRows(row, end_row)) ++count;
  return count;
}

}  // namespace randtensor_cli
