// Writes the seed corpus: one small input per API and layout class.
//
//   randtensor_fuzz_make_corpus <dir>     (fuzz/run.sh --make-corpus calls it)
//
// Each seed is a Case written with Encode(), which uses the raw escape of
// every field that has one (fuzz_input.h), and is checked by decoding it back
// with the fuzzer's own Decode(): a seed that would not decode to the case it
// names is an error, so the generator cannot drift from the format.

#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"

namespace rt_fuzz {
namespace {

class Writer {
 public:
  void U8(uint32_t v) { bytes.push_back(static_cast<uint8_t>(v)); }
  void U16(uint32_t v) { U8(v), U8(v >> 8); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) U8(v >> (8 * i));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) U8(static_cast<uint32_t>(v >> (8 * i)));
  }
  void Raw32(uint32_t v) { U8(255), U32(v); }
  void Raw64(uint64_t v) { U8(255), U64(v); }
  std::vector<uint8_t> bytes;
};

// The first tag byte that `ok` accepts (the formulas live in Decode()).
uint8_t Tag(const std::function<bool(uint32_t)>& ok, const char* what) {
  for (uint32_t t = 0; t < 256; ++t) {
    if (ok(t)) return static_cast<uint8_t>(t);
  }
  std::fprintf(stderr, "make_corpus: no tag encodes %s\n", what);
  std::exit(1);
}

std::vector<uint8_t> Encode(const Case& c) {
  Writer w;
  w.U8(c.api);
  w.U8(c.target);
  w.U8(Tag([&](uint32_t t) { return (t < 128 ? 1 + t % 4 : t % 5) == c.threads; }, "threads"));
  w.Raw64(c.task_elements);
  if (c.stores >= 0 && c.stores <= 2) {
    w.U8(c.stores);
  } else {
    w.Raw32(static_cast<uint32_t>(c.stores));
  }
  w.U8(Tag([&](uint32_t t) { return static_cast<int>(t % 3) == c.hook && ((t & 4) != 0) == c.want_info; },
           "hook and info"));
  w.Raw64(c.element_offset);
  for (int i = 0; i < 6; ++i) w.Raw32(c.state[i]);
  w.Raw32(static_cast<uint32_t>(c.dtype));
  if (c.sizes_null) {
    w.U8(248);  // rank 8, sizes null
  } else {
    w.Raw32(static_cast<uint32_t>(c.rank));
  }
  const int n = c.rank < 0 ? 0 : c.rank > kMaxDims ? kMaxDims : static_cast<int>(c.rank);
  for (int d = 0; d < n; ++d) w.Raw64(static_cast<uint64_t>(c.sizes[d]));
  w.U8(c.has_strides ? 1 : 0);
  if (c.has_strides) {
    for (int d = 0; d < n; ++d) w.Raw64(static_cast<uint64_t>(c.strides[d]));
  }
  w.U8(Tag([&](uint32_t t) { return (t < 128 ? 0 : (t % 5) + 1) == static_cast<uint32_t>(c.size_class); },
           "size class"));
  if (c.size_class == kSizeRaw) {
    w.U64(c.size_param);
  } else {
    w.U8(static_cast<uint32_t>(c.size_param));
  }
  w.U8(c.pre);
  w.U8(c.post);
  w.U8(Tag([&](uint32_t t) {
         return ((t & 1) != 0) == c.flush_end &&
                (t < 224 ? 0 : 1 + t % 3) == static_cast<uint32_t>(c.pointer);
       },
       "pointer"));
  w.U8(Tag([&](uint32_t t) {
         const int place = t < 224 ? kStateOwn : kStateInOutput;
         const uint32_t mis = t >= 192 && t < 224 ? 1 + t % 3 : 0;
         return place == c.in_place && mis == c.in_misalign;
       },
       "input state placement"));
  w.U16(c.in_offset);
  w.U8(Tag([&](uint32_t t) {
         const int place = t < 128 ? kStateOwn : static_cast<int>(t % 4);
         const uint32_t mis = t >= 240 ? 1 + t % 3 : 0;
         return place == c.out_place && mis == c.out_misalign;
       },
       "output state placement"));
  w.U16(c.out_offset);
  if (c.api == kDmlExecute) {
    if (c.op_type == 0) w.U8(0); else w.Raw32(static_cast<uint32_t>(c.op_type));
    if (c.out_tensor_type == 1) w.U8(0); else w.Raw32(static_cast<uint32_t>(c.out_tensor_type));
    static const uint32_t kFlags[] = {1, 2, 3, 0x80000000u, 0xFFFFFFFFu};
    w.U8(Tag([&](uint32_t t) {
           return (t == 255) == c.out_desc_null && (t < 200 ? 0 : kFlags[t % 5]) == c.out_flags;
         },
         "flags"));
    if (c.out_align == 0) w.U8(0); else w.Raw32(c.out_align);
    w.U8(Tag([&](uint32_t t) { return (t < 160 ? 0 : static_cast<int>(t % 4)) == c.binding_class; },
             "binding class"));
    w.U8(static_cast<uint32_t>(c.binding_param));
    w.U8(Tag([&](uint32_t t) { return (t < 200 ? 0 : 1 + static_cast<int>(t % 15)) == c.in_desc_mutation; },
             "input state mutation"));
    w.U8(Tag([&](uint32_t t) { return (t < 200 ? 0 : 1 + static_cast<int>(t % 15)) == c.out_desc_mutation; },
             "output state mutation"));
    w.U8(c.mutation_param);
    w.U8(Tag([&](uint32_t t) {
           return (t < 224 || (t & 1)) == c.out_state_desc && (t < 224 || (t & 2)) == c.out_state_bound;
         },
         "output state presence"));
    w.U8(Tag([&](uint32_t t) {
           return (t < 200 ? 0 : static_cast<int>(t % 4)) == c.in_bind_class &&
                  (t < 200 ? 0 : static_cast<int>((t >> 2) % 4)) == c.out_bind_class;
         },
         "state binding classes"));
  }
  if (c.api == kMinBufferBytes || c.api == kDmlCalcSize) w.U8(c.calc_bytes_null ? 255 : 0);
  return w.bytes;
}

struct Seed {
  std::string name;
  Case c;
};

int TargetIndex(const char* name) {
  for (int i = 0; i < kTargetCount; ++i) {
    if (kTargetNames[i] != nullptr && std::string(kTargetNames[i]) == name) return i;
  }
  std::fprintf(stderr, "make_corpus: no target %s\n", name);
  std::exit(1);
}

Case Shape(int api, std::vector<int64_t> sizes, std::vector<int64_t> strides = {}) {
  Case c;
  c.api = api;
  c.dtype = api == kDmlExecute || api == kDmlCalcSize ? 3 : 0;
  c.rank = static_cast<int64_t>(sizes.size());
  for (size_t d = 0; d < sizes.size() && d < kMaxDims; ++d) c.sizes[d] = sizes[d];
  c.has_strides = !strides.empty();
  for (size_t d = 0; d < strides.size() && d < kMaxDims; ++d) c.strides[d] = strides[d];
  return c;
}

std::vector<Seed> Seeds() {
  std::vector<Seed> s;
  // add(name, case) or add(name, case, edit): edit(c) sets the fields that
  // make this seed what its name says.
  auto add = [&](const std::string& name, Case c, const std::function<void(Case&)>& edit = {}) {
    if (edit) edit(c);
    s.push_back({name, c});
  };
  const int64_t kMin = INT64_MIN;

  // --- native Fill: layout classes
  add("native-scalar-rank0", Shape(kNativeFill, {}));
  // SPEC.md 6: N = 10 from the zero state
  add("native-packed-10-known-answer", Shape(kNativeFill, {10}));
  // SPEC.md 6: carry into word 3
  add("native-packed-9-carry", Shape(kNativeFill, {9}), [&](Case& c) {
    const uint32_t st[6] = {0xffffffff, 0xffffffff, 0xffffffff, 0, 0xdeadbeef, 0xcafef00d};
    for (int i = 0; i < 6; ++i) c.state[i] = st[i];
  });
  add("native-packed-5-wrap128", Shape(kNativeFill, {5}), [&](Case& c) {  // SPEC.md 6: 128-bit wrap
    const uint32_t st[6] = {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 1, 2};
    for (int i = 0; i < 6; ++i) c.state[i] = st[i];
  });
  add("native-packed-4d", Shape(kNativeFill, {2, 3, 4, 5}));
  // NCHW stored NHWC
  add("native-nhwc-threads2-tile64",
      Shape(kNativeFill, {1, 16, 8, 8}, {1024, 1, 128, 16}), [&](Case& c) {
    c.threads = 2;
    c.task_elements = 64;
  });
  add("native-padded-rows", Shape(kNativeFill, {7, 13}, {16, 1}));
  add("native-column-major", Shape(kNativeFill, {5, 6}, {1, 5}));
  add("native-scattered", Shape(kNativeFill, {4, 5}, {11, 2}));
  add("native-negative-strides", Shape(kNativeFill, {3, 4}, {-4, -1}));
  add("native-mixed-signs-8d", Shape(kNativeFill, {2, 2, 2, 2, 2, 2, 2, 3},
                                     {-384, 192, -96, 48, -24, 12, -6, 2}));
  add("native-irregular-disjoint", Shape(kNativeFill, {3, 3}, {5, 3}));
  add("native-overlap-irregular", Shape(kNativeFill, {3, 3}, {2, 4}));  // (2,0) and (0,1)
  add("native-overlap-zero-stride", Shape(kNativeFill, {3, 4}, {0, 1}));
  add("native-size1-int64min-stride", Shape(kNativeFill, {1, 6}, {kMin, 1}));
  add("native-int64min-stride", Shape(kNativeFill, {2, 6}, {kMin, 1}));
  add("native-empty", Shape(kNativeFill, {4, 0, 3}));
  add("native-rank9", Shape(kNativeFill, {1, 1, 1, 1, 1, 1, 1, 1, 2}));
  add("native-rank-negative", Shape(kNativeFill, {}), [&](Case& c) { c.rank = -1; });
  add("native-negative-size", Shape(kNativeFill, {3, -2}));
  // far past memory
  add("native-huge-packed", Shape(kNativeFill, {4294967296, 4294967296}), [&](Case& c) {
    c.size_class = kSizeAbsurd;
  });
  add("native-huge-span", Shape(kNativeFill, {3, 1000000}, {INT64_MAX / 2, 1}));
  add("native-sizes-null", Shape(kNativeFill, {8}), [&](Case& c) {
    c.sizes_null = true;
    c.rank = 8;
  });
  // --- native Fill: bindings and options
  add("native-element-offset", Shape(kNativeFill, {37}), [&](Case& c) { c.element_offset = 5; });
  add("native-element-offset-overflow", Shape(kNativeFill, {37}), [&](Case& c) {
    c.element_offset = UINT64_MAX - 10;
  });
  add("native-buffer-too-small", Shape(kNativeFill, {6, 7}), [&](Case& c) {
    c.size_class = kSizeBelow;
  });
  add("native-buffer-absurd-flush-end", Shape(kNativeFill, {6, 7}), [&](Case& c) {
    c.size_class = kSizeAbsurd;
    c.flush_end = true;
  });
  add("native-misaligned-data", Shape(kNativeFill, {6, 7}), [&](Case& c) { c.pre = 2; });
  add("native-null-data", Shape(kNativeFill, {6, 7}), [&](Case& c) { c.pointer = kPtrNull; });
  add("native-wrap-below-zero", Shape(kNativeFill, {3, 4}, {-4, -1}), [&](Case& c) {
    c.pointer = kPtrWrapLow;
  });
  add("native-wrap-past-top", Shape(kNativeFill, {3, 4}), [&](Case& c) {
    c.pointer = kPtrWrapHigh;
  });
  add("native-out-state-in-buffer", Shape(kNativeFill, {16}), [&](Case& c) {
    c.out_place = kStateInOutput;
    c.out_offset = 8;
  });
  add("native-out-state-after-buffer", Shape(kNativeFill, {16}), [&](Case& c) {
    c.out_place = kStateInOutput;
    c.out_offset = 4000;
    c.post = 64;
  });
  add("native-in-state-inside-buffer", Shape(kNativeFill, {16}), [&](Case& c) {
    c.in_place = kStateInOutput;
    c.in_offset = 16;
  });
  add("native-state-in-place", Shape(kNativeFill, {11}), [&](Case& c) {
    c.out_place = kStateSame;
  });
  add("native-no-out-state-info", Shape(kNativeFill, {11}), [&](Case& c) {
    c.out_place = kStateNull;
    c.want_info = true;
  });
  for (const char* t : {"SCALAR", "SSSE3", "SSE4", "AVX2", "AVX3", "NEON", "avx2"}) {
    Case c = Shape(kNativeFill, {3, 5, 7}, {-35, 7, 1});
    c.target = TargetIndex(t);
    c.want_info = true;
    add(std::string("native-target-") + t, c);
  }
  add("native-streaming-threads4", Shape(kNativeFill, {256, 256}), [&](Case& c) {
    c.threads = 4;
    c.task_elements = 4096;
    c.stores = 2;  // streaming
  });
  // NHWC with 32 channels, streaming forced: the transposed writer's
  // whole-cache-line streaming path (64-byte aligned runs).
  add("native-nhwc-streaming", Shape(kNativeFill, {2, 32, 8, 8}, {2048, 1, 256, 32}), [&](Case& c) {
    c.threads = 2;
    c.stores = 2;
  });
  // NHWC, 3 channels
  add("native-nhwc-3-channels-streaming",
      Shape(kNativeFill, {1, 3, 16, 16}, {768, 1, 48, 3}), [&](Case& c) {
    c.stores = 2;
  });
  add("native-transposed-reverse-hook", Shape(kNativeFill, {64, 33}, {1, 64}), [&](Case& c) {
    c.threads = 3;
    c.task_elements = 5;
    c.hook = 1;
  });
  add("native-staged-rows-even-odd-hook", Shape(kNativeFill, {100, 7}, {9, 1}), [&](Case& c) {
    c.threads = 2;
    c.task_elements = 3;
    c.hook = 2;
  });
  add("native-tile-max", Shape(kNativeFill, {50}), [&](Case& c) {
    c.task_elements = UINT64_MAX;
    c.threads = 0;
  });
  add("native-bad-stores", Shape(kNativeFill, {50}), [&](Case& c) { c.stores = 3; });
  add("native-bad-dtype", Shape(kNativeFill, {50}), [&](Case& c) { c.dtype = 1; });

  // --- MinBufferBytes
  add("min-packed", Shape(kMinBufferBytes, {3, 3, 20, 7219}));
  add("min-negative-strides", Shape(kMinBufferBytes, {3, 4}, {-10, 2}));
  add("min-overlap", Shape(kMinBufferBytes, {4, 4}, {2, 3}));  // (3,0) and (0,2)
  add("min-overflow", Shape(kMinBufferBytes, {INT64_MAX}));
  add("min-span-overflow", Shape(kMinBufferBytes, {3, 2}, {INT64_MAX / 2, 1}));
  add("min-bytes-null", Shape(kMinBufferBytes, {2}), [&](Case& c) { c.calc_bytes_null = true; });

  // --- DirectML ExecuteRandomGenerator
  add("dml-packed-10", Shape(kDmlExecute, {1, 1, 1, 10}));
  add("dml-state-in-place", Shape(kDmlExecute, {1, 1, 1, 10}), [&](Case& c) {
    c.out_place = kStateSame;
  });
  add("dml-nhwc", Shape(kDmlExecute, {2, 8, 4, 4}, {128, 1, 32, 8}), [&](Case& c) {
    c.threads = 2;
    c.task_elements = 16;
  });
  add("dml-alignment-256", Shape(kDmlExecute, {5, 7}), [&](Case& c) { c.out_align = 256; });
  add("dml-alignment-broken", Shape(kDmlExecute, {5, 7}), [&](Case& c) {
    c.out_align = 16;
    c.pre = 4;
  });
  add("dml-alignment-field-invalid", Shape(kDmlExecute, {5, 7}), [&](Case& c) { c.out_align = 6; });
  add("dml-dims-0", Shape(kDmlExecute, {}));
  add("dml-dims-9", Shape(kDmlExecute, {1, 1, 1, 1, 1, 1, 1, 1, 3}));
  add("dml-size-0", Shape(kDmlExecute, {3, 0}));
  add("dml-too-many-elements", Shape(kDmlExecute, {65536, 65536}));
  add("dml-huge-stride", Shape(kDmlExecute, {4, 4}, {4294967295u, 1}));
  add("dml-out-state-overlaps-output", Shape(kDmlExecute, {16}), [&](Case& c) {
    c.out_place = kStateInOutput;
    c.out_offset = 0;
  });
  add("dml-state-sizes-wrong", Shape(kDmlExecute, {16}), [&](Case& c) {
    c.in_desc_mutation = 5;
    c.mutation_param = 3 + 4 * 5;  // Sizes[3] = 5
  });
  add("dml-state-total-23", Shape(kDmlExecute, {16}), [&](Case& c) {
    c.in_desc_mutation = 8;
    c.mutation_param = 23;  // TotalTensorSizeInBytes = 23
  });
  add("dml-out-state-strided-ok", Shape(kDmlExecute, {16}), [&](Case& c) {
    c.out_desc_mutation = 7;
    c.mutation_param = 0x5A ^ 1;  // Strides[1] = 0x5B on a size-1 dimension: fine
  });
  add("dml-out-state-unbound", Shape(kDmlExecute, {16}), [&](Case& c) {
    c.out_state_bound = false;
  });
  add("dml-no-out-state", Shape(kDmlExecute, {16}), [&](Case& c) {
    c.out_state_desc = false;
    c.out_state_bound = false;
  });
  add("dml-input-state-misaligned", Shape(kDmlExecute, {16}), [&](Case& c) { c.in_misalign = 2; });
  add("dml-element-offset", Shape(kDmlExecute, {16}), [&](Case& c) { c.element_offset = 4; });
  add("dml-bad-type", Shape(kDmlExecute, {16}), [&](Case& c) { c.op_type = 1; });
  add("dml-binding-too-small", Shape(kDmlExecute, {16}), [&](Case& c) { c.binding_class = 1; });
  add("dml-binding-past-top", Shape(kDmlExecute, {16}), [&](Case& c) {
    c.pointer = kPtrWrapHigh;
    c.size_class = kSizeAbove;
    c.size_param = 16;
  });
  add("dml-float32-output", Shape(kDmlExecute, {16}), [&](Case& c) {
    c.dtype = 1;  // FLOAT32
  });

  // --- DirectML CalcBufferTensorSizeChecked
  add("calc-packed-seed-example", Shape(kDmlCalcSize, {3, 3, 20, 7219}));
  add("calc-strided", Shape(kDmlCalcSize, {2, 3, 4}, {100, 20, 1}));
  add("calc-overlapping-strides", Shape(kDmlCalcSize, {4, 4}, {1, 1}));
  add("calc-float16-rounding", Shape(kDmlCalcSize, {3}), [&](Case& c) {
    c.dtype = 2;  // FLOAT16: 6 bytes, rounded up to 8
  });
  add("calc-uint8-rounding", Shape(kDmlCalcSize, {3}), [&](Case& c) {
    c.dtype = 5;  // UINT8: 3 bytes, rounded up to 4
  });
  add("calc-float64-strided", Shape(kDmlCalcSize, {2, 5}, {7, 1}), [&](Case& c) {
    c.dtype = 9;  // FLOAT64
  });
  add("calc-int8-packed", Shape(kDmlCalcSize, {2, 5}), [&](Case& c) {
    c.dtype = 8;  // INT8
  });
  add("calc-overflow", Shape(kDmlCalcSize, {4294967295u, 4294967295u, 4294967295u}));
  add("calc-dims-0", Shape(kDmlCalcSize, {}));
  add("calc-bytes-null", Shape(kDmlCalcSize, {3}), [&](Case& c) { c.calc_bytes_null = true; });
  add("calc-bad-type", Shape(kDmlCalcSize, {3}), [&](Case& c) { c.dtype = 99; });
  return s;
}

}  // namespace
}  // namespace rt_fuzz

int main(int argc, char** argv) {
  using namespace rt_fuzz;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  mkdir(dir.c_str(), 0755);
  int written = 0;
  for (const Seed& seed : Seeds()) {
    const std::vector<uint8_t> bytes = Encode(seed.c);
    const Case back = Decode(bytes.data(), bytes.size());
    if (Describe(back) != Describe(seed.c)) {
      std::fprintf(stderr, "make_corpus: %s does not decode to itself:\nwanted:\n%sgot:\n%s",
                   seed.name.c_str(), Describe(seed.c).c_str(), Describe(back).c_str());
      return 1;
    }
    const std::string path = dir + "/" + seed.name;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
        std::fclose(f) != 0) {
      std::fprintf(stderr, "make_corpus: cannot write %s\n", path.c_str());
      return 1;
    }
    ++written;
  }
  std::printf("wrote %d seeds to %s\n", written, dir.c_str());
  return 0;
}
