#include "tools/output_formats.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tools/output_file.h"

namespace randtensor_cli {
namespace {

// --format raw: the buffer byte for byte, padding included.
void WriteRaw(const std::string& path, const Buffer& buffer) {
  OutputFile file(path);
  file.Write(buffer.data(), buffer.size());
  file.Commit();
}

// Calls visit(offset) with the element offset of every element, in logical
// row-major order (last dimension fastest), by counting through the indices.
template <typename Visit>
void ForEachElementOffset(const std::vector<uint32_t>& sizes, const std::vector<uint64_t>& strides,
                          const Visit& visit) {
  std::vector<uint32_t> index(sizes.size(), 0);
  uint64_t offset = 0;
  for (uint64_t e = 0, count = ElementCount(sizes); e < count; ++e) {
    visit(offset);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) {
        offset += strides[d];
        break;
      }
      offset -= uint64_t{sizes[d] - 1} * strides[d];  // back to index 0, carry on
      index[d] = 0;
    }
  }
}

// --format npy: the logical tensor read back through the strides, so the file
// holds the same array whatever --strides and --total-bytes were.
void WriteNpy(const std::string& path, const Buffer& buffer, const std::vector<uint32_t>& sizes,
              const std::vector<uint64_t>& strides, const DtypeInfo& dtype) {
  OutputFile file(path);
  const std::string header = NpyHeader(sizes, dtype.npy);
  file.Write(header.data(), header.size());
  constexpr size_t kChunkBytes = size_t{1} << 20;  // few writes, little memory
  std::vector<uint8_t> chunk;
  chunk.reserve(kChunkBytes);
  ForEachElementOffset(sizes, strides, [&](uint64_t offset) {
    uint64_t value = 0;
    std::memcpy(&value, buffer.data() + offset * dtype.size, static_cast<size_t>(dtype.size));
    for (int shift = 0; shift < 8 * dtype.size; shift += 8) {
      chunk.push_back(static_cast<uint8_t>(value >> shift));  // little-endian on any host
    }
    if (chunk.size() >= kChunkBytes) {
      file.Write(chunk.data(), chunk.size());
      chunk.clear();
    }
  });
  file.Write(chunk.data(), chunk.size());
  file.Commit();
}

// Element strides of the output: --strides, or packed row-major.
std::vector<uint64_t> ElementStrides(const GenerateArgs& args) {
  std::vector<uint64_t> strides(args.sizes.size());
  uint64_t step = 1;
  for (size_t d = args.sizes.size(); d-- > 0;) {
    strides[d] = args.strides.has_value() ? (*args.strides)[d] : step;
    step *= args.sizes[d];  // validated: at most 2^32 - 1 elements
  }
  return strides;
}

}  // namespace

// The .npy header (format version 1.0) for a C-ordered `descr` array of shape
// `sizes`: magic, version, little-endian header length, then the dict padded
// with spaces and ended by a newline so the data starts at a multiple of 64.
std::string NpyHeader(const std::vector<uint32_t>& sizes, const char* descr) {
  std::string shape;
  for (uint32_t size : sizes) shape += std::to_string(size) + ", ";
  // Python's tuple syntax: "(7,)" for one dimension, "(3, 5)" for more.
  shape.resize(shape.size() - (sizes.size() == 1 ? 1 : 2));
  std::string dict =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  constexpr size_t kPreamble = 10;  // magic (6), version (2), header length (2)
  dict.append((64 - (kPreamble + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  const size_t length = dict.size();  // < 65536: eight 10-digit sizes at most
  const char preamble[kPreamble] = {'\x93',
                                    'N',
                                    'U',
                                    'M',
                                    'P',
                                    'Y',
                                    1,
                                    0,
                                    static_cast<char>(length & 0xFF),
                                    static_cast<char>(length >> 8)};
  return std::string(preamble, kPreamble) + dict;
}

void WriteOutput(const GenerateArgs& args, const Buffer& buffer) {
  if (args.format == OutputFormat::kNpy) {
    WriteNpy(*args.out, buffer, args.sizes, ElementStrides(args), *args.dtype);
  } else {
    WriteRaw(*args.out, buffer);
  }
}

std::string FormatState(const randtensor::PhiloxState& state) {
  char line[80];
  std::snprintf(line, sizeof(line), "state: 0x%08x 0x%08x 0x%08x 0x%08x 0x%08x 0x%08x",
                state.words[0], state.words[1], state.words[2], state.words[3], state.words[4],
                state.words[5]);
  return line;
}

}  // namespace randtensor_cli
