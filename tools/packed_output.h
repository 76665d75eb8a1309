// `generate` for packed outputs (no --strides, no --total-bytes): the tensor
// is filled and written chunk by chunk, each chunk a region of the global
// tensor (SPEC.md section 10), so memory stays bounded whatever the size and
// the bytes are exactly those of one whole fill. The same job runs in one
// process (WritePacked) or on the ranks of an MPI job (mpi_output.h).
#ifndef RANDTENSOR_TOOLS_PACKED_OUTPUT_H_
#define RANDTENSOR_TOOLS_PACKED_OUTPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "randtensor/fill.h"
#include "tools/chunks.h"

namespace randtensor_cli {

class OutputFile;

// The default memory budget of one chunk buffer (--chunk-bytes); a writer
// holds two, one filling while the other is written. Two of 16 MiB stay in a
// 32 MiB L3 between the fill and the kernel's copy into the page cache:
// 2 GiB to a file took 1.1 s here, 3.3 s with 64 MiB (streamed, then read
// back from memory) and 1.8 s with 4 MiB (benchmarks/mpi_write.sh's machine).
inline constexpr uint64_t kDefaultChunkBytes = uint64_t{16} << 20;
// Chunks at least this large are filled on one thread while another writes
// the last; below it a thread per chunk would cost more than it hides.
inline constexpr uint64_t kOverlapBytes = uint64_t{256} << 10;
// The most --chunk-bytes may ask for: MPI-IO counts bytes in an int.
inline constexpr uint64_t kMaxChunkBytes = uint64_t{1} << 30;

// One packed output, in the library's terms.
struct PackedJob {
  randtensor::DataType dtype = randtensor::DataType::kUint32;
  int element_bytes = 4;
  std::vector<int64_t> sizes;        // the global tensor
  randtensor::PhiloxState state;     // the input state
  randtensor::FillOptions options;   // offset, distribution, threads (no region)
  std::string header;                // bytes before the elements (.npy), or none
  uint64_t tail_bytes = 0;           // bytes after them (raw: padding to a multiple of 4)
  uint8_t pad_byte = 0;              // the value of those bytes
  bool little_endian = false;        // .npy: elements stored little-endian on any host
  uint64_t chunk_bytes = kDefaultChunkBytes;
  bool quiet = false;                // no progress on a terminal

  uint64_t elements() const;
  uint64_t file_bytes() const { return header.size() + elements() * element_bytes + tail_bytes; }
};

// Fills `chunk` of the job's tensor into the packed buffer `data` of
// `capacity` bytes (at least the chunk's bytes rounded up to 4), converted
// to little-endian when the job says so. `info` may be nullptr.
randtensor::Status FillChunk(const PackedJob& job, const Chunk& chunk, void* data,
                             uint64_t capacity, randtensor::FillInfo* info);

// The job's output state and FillInfo from a fill of one element: the
// library's own validation of everything the chunks will ask (distribution,
// type, offset), before any file exists. Fails (status 2) with its message.
void CheckPackedJob(const PackedJob& job, randtensor::PhiloxState* state_out,
                    randtensor::FillInfo* info);

// Fills the whole job in this process and writes it to `out` (nullptr: fill
// only), overlapping the filling of one chunk with the writing of the last.
void WritePacked(const PackedJob& job, OutputFile* out);

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_PACKED_OUTPUT_H_
