#include "tools/packed_output.h"

#include <algorithm>
#include <cstring>
#include <future>

#include "tools/buffer.h"
#include "tools/cli_args.h"
#include "tools/output_file.h"
#include "tools/progress.h"

namespace randtensor_cli {
namespace {

void SwapToLittleEndian(uint8_t* data, uint64_t elements, int size) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  for (uint64_t e = 0; e < elements; ++e) std::reverse(data + e * size, data + (e + 1) * size);
#else
  (void)data, (void)elements, (void)size;  // the host's order already
#endif
}

}  // namespace

uint64_t PackedJob::elements() const {
  uint64_t n = 1;
  for (int64_t s : sizes) n *= static_cast<uint64_t>(s);  // validated by the library
  return n;
}

randtensor::Status FillChunk(const PackedJob& job, const Chunk& chunk, void* data,
                             uint64_t capacity, randtensor::FillInfo* info) {
  const randtensor::Region region = {static_cast<int32_t>(job.sizes.size()), job.sizes.data(),
                                     chunk.start.data()};
  randtensor::TensorDesc desc;
  desc.dtype = job.dtype;
  desc.rank = region.rank;
  desc.sizes = chunk.sizes.data();
  randtensor::FillOptions options = job.options;
  options.region = &region;
  options.info = info;
  const randtensor::Status status =
      randtensor::Fill(desc, data, capacity, job.state, nullptr, options);
  if (status.ok() && job.little_endian) {
    SwapToLittleEndian(static_cast<uint8_t*>(data), chunk.elements, job.element_bytes);
  }
  return status;
}

void CheckPackedJob(const PackedJob& job, randtensor::PhiloxState* state_out,
                    randtensor::FillInfo* info) {
  const std::vector<int64_t> ones(job.sizes.size(), 1), zeros(job.sizes.size(), 0);
  const randtensor::Region region = {static_cast<int32_t>(job.sizes.size()), job.sizes.data(),
                                     zeros.data()};
  randtensor::TensorDesc desc;
  desc.dtype = job.dtype;
  desc.rank = region.rank;
  desc.sizes = ones.data();
  randtensor::FillOptions options = job.options;
  options.region = &region;
  options.info = info;
  uint64_t element[1];  // the largest element type is 8 bytes
  const randtensor::Status status =
      randtensor::Fill(desc, element, sizeof element, job.state, state_out, options);
  if (!status.ok()) Fail(kExitUsage, status.message());
}

void WritePacked(const PackedJob& job, OutputFile* out) {
  const ChunkPlan plan(job.sizes, static_cast<uint64_t>(job.element_bytes), job.chunk_bytes);
  // Rounded up to 4 bytes: the library's minimum buffer for a packed tensor.
  const uint64_t capacity = (plan.max_chunk_elements() * job.element_bytes + 3) / 4 * 4;
  const bool overlap = out != nullptr && capacity >= kOverlapBytes && plan.rows() > 1;
  Buffer first(capacity);
  std::unique_ptr<Buffer> second;
  if (overlap) second = std::make_unique<Buffer>(capacity);
  Progress progress(job.file_bytes(), !job.quiet);
  // Declared after the buffers, so an error that unwinds waits for the
  // write in flight before its buffer is freed.
  std::future<void> writing;

  if (out != nullptr) out->Write(job.header.data(), job.header.size());
  uint64_t done = job.header.size();
  int which = 0;
  for (uint64_t row = 0; row < plan.rows();) {
    const Chunk chunk = plan.ChunkAt(row, plan.rows());
    row += chunk.rows;
    uint8_t* data = (which == 0 ? first : *second).data();
    const randtensor::Status status = FillChunk(job, chunk, data, capacity, nullptr);
    // CheckPackedJob accepted the same fill: this is not the user's mistake.
    if (!status.ok()) Fail(kExitFailure, status.message());
    const size_t bytes = static_cast<size_t>(chunk.elements * job.element_bytes);
    if (out != nullptr) {
      if (writing.valid()) writing.get();  // rethrows the write's error
      if (overlap) {
        writing = std::async(std::launch::async, [out, data, bytes] { out->Write(data, bytes); });
        which ^= 1;
      } else {
        out->Write(data, bytes);
      }
    }
    done += bytes;
    progress.Update(done);
  }
  if (writing.valid()) writing.get();
  if (out != nullptr && job.tail_bytes != 0) {
    const std::vector<uint8_t> tail(static_cast<size_t>(job.tail_bytes), job.pad_byte);
    out->Write(tail.data(), tail.size());
  }
}

}  // namespace randtensor_cli
