// randtensor.Philox4x32: randtensor's stream as a NumPy bit generator, so that
// every numpy.random.Generator distribution runs on it.
//
// numpy.random.Generator needs only two attributes of its bit generator
// (checked with Debian's NumPy 1.24 and with 2.5): `capsule`, a PyCapsule
// named "BitGenerator" that points to a bitgen_t, and `lock`, which it holds
// around every call through the bitgen_t. So this is a plain pybind11 class,
// not a subclass of numpy.random.BitGenerator: that Cython type's own
// methods (ctypes, cffi, random_raw) read a bitgen_t of its own that no
// subclass can fill. The price: default_rng() refuses it, and NumPy 2 cannot
// pickle a Generator over it (the bit generator itself pickles).
//
// Output (docs/numpy.md): the stream of SPEC.md section 3, word j = word j % 4
// of Philox4x32-10(C + j / 4, key), consumed in order:
//   next_uint32  one word
//   next_uint64  two consecutive words, the first in the low half: w[j] | w[j+1] << 32
//                (the stream read as little-endian uint64)
//   next_double  (next_uint64 >> 11) * 2^-53, NumPy's rule for every generator
//   next_raw     one word, zero-extended: what random_raw returns, element for element
// random_raw(n) returns uint32 words, exactly randtensor.generate(n, state, offset).
//
// The position is kept as (next_, len_, pos_): buffer_[0, len_) holds the
// whole blocks just before block next_, and pos_ of them are used. Buffered
// words are a pure function of (counter, key), so the state that users see is
// only the position: the block of the next word and the words of it used.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "arrays.h"
#include "randtensor/fill.h"
#include "randtensor/philox.h"
#include "randtensor/status.h"
#include "randtensor/targets.h"

namespace py = pybind11;
using namespace pybind11::literals;

// Keeps the refill out of the per-value hot paths (no stack frame there).
// BITGEN_HOT starts each hot path on a 64-byte boundary, so that its few
// instructions never straddle two fetch lines: NextUint32 (31 bytes) where
// the linker happened to put it, across a line, cost about one cycle per
// value on Zen 4 (2.22 against 1.95 ns per float32 value; docs/numpy.md).
#if defined(__GNUC__)
#define BITGEN_COLD __attribute__((noinline, cold))
#define BITGEN_HOT __attribute__((aligned(64)))
#else
#define BITGEN_COLD
#define BITGEN_HOT
#endif

namespace {

using randtensor::Counter128;
using randtensor::PhiloxState;

// numpy/random/bitgen.h, field for field (NumPy's C API for bit generators).
struct bitgen_t {
  void* state;
  uint64_t (*next_uint64)(void* st);
  uint32_t (*next_uint32)(void* st);
  double (*next_double)(void* st);
  uint64_t (*next_raw)(void* st);
};

constexpr char kName[] = "Philox4x32";
// Words per refill: 16 KiB, large enough that Fill's per-call planning is a
// few percent of the refill, small enough to stay in L1 next to NumPy's output.
constexpr uint32_t kBufferWords = 4096;
static_assert(kBufferWords % 4 == 0, "the buffer holds whole blocks");
// random_raw requests this large go straight to the caller's array (and to
// every thread); smaller ones through the buffer, so small calls stay cheap.
constexpr uint64_t kDirectWords = kBufferWords;

Counter128 Add(const Counter128& a, const Counter128& b) {  // mod 2^128
  Counter128 r;
  uint64_t carry = 0;
  for (int i = 0; i < 4; ++i) {
    const uint64_t sum = uint64_t{a.w[i]} + b.w[i] + carry;
    r.w[i] = static_cast<uint32_t>(sum);
    carry = sum >> 32;
  }
  return r;
}

Counter128 Minus(const Counter128& a, uint32_t n) {  // mod 2^128
  Counter128 r = a;
  uint64_t borrow = n;
  for (int i = 0; i < 4 && borrow != 0; ++i) {
    const uint32_t before = r.w[i];
    r.w[i] = static_cast<uint32_t>(before - borrow);
    borrow = before < borrow ? 1 : 0;
  }
  return r;
}

// ---------------------------------------------------------------------------
// Argument checks: errors name the argument and its value, as in __init__.py.

std::string Text(py::handle h) { return py::str(h).cast<std::string>(); }
std::string TypeName(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }

py::int_ Integer(const std::string& name, py::handle value, const char* what = "an integer") {
  PyObject* index = PyNumber_Index(value.ptr());  // ints and NumPy integers, not floats
  if (index == nullptr) {
    PyErr_Clear();
    throw py::type_error(name + " must be " + what + ", not " + TypeName(value));
  }
  return py::reinterpret_steal<py::int_>(index);
}

uint64_t Unsigned(const std::string& name, py::handle value, int bits,
                  const char* what = "an integer") {
  const py::int_ number = Integer(name, value, what);
  const py::int_ limit = py::int_(1) << py::int_(bits);
  if (number < py::int_(0) || number >= limit) {
    throw py::value_error(name + " = " + Text(number) + " is outside 0.." +
                          Text(limit - py::int_(1)));
  }
  return number.cast<uint64_t>();
}

std::vector<uint32_t> Words(const std::string& name, py::handle words, size_t count) {
  if (py::isinstance<py::str>(words) || py::isinstance<py::bytes>(words) ||
      !py::hasattr(words, "__len__") || !py::hasattr(words, "__getitem__")) {
    throw py::type_error(name + " must be a sequence of " + std::to_string(count) +
                         " uint32 words, not " + TypeName(words));
  }
  const auto sequence = py::reinterpret_borrow<py::sequence>(words);
  if (sequence.size() != count) {
    throw py::value_error(name + " has " + std::to_string(sequence.size()) + " words; it needs " +
                          std::to_string(count));
  }
  std::vector<uint32_t> out(count);
  for (size_t i = 0; i < count; ++i) {
    out[i] = static_cast<uint32_t>(
        Unsigned(name + "[" + std::to_string(i) + "]", sequence[i], 32));
  }
  return out;
}

py::object Entry(const py::dict& dict, const std::string& dict_name, const char* key) {
  if (!dict.contains(key)) throw py::value_error(dict_name + "['" + key + "'] is missing");
  return dict[key];
}

// The array shape a `size` argument asks for (an int or a sequence of ints).
std::vector<py::ssize_t> Shape(py::handle size) {
  std::vector<py::ssize_t> shape;
  const std::string repr = py::repr(size);
  if (PyIndex_Check(size.ptr())) {
    shape.push_back(0);
  } else if (py::isinstance<py::sequence>(size) && !py::isinstance<py::str>(size)) {
    shape.resize(py::len(size));
  } else {
    throw py::type_error("size must be None, an integer or a tuple of integers, not " +
                         TypeName(size));
  }
  const auto items = PyIndex_Check(size.ptr())
                         ? py::make_tuple(size)
                         : py::tuple(py::reinterpret_borrow<py::object>(size));
  uint64_t total = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    const py::int_ n = Integer("size", items[d], "an integer or a tuple of integers");
    if (n < py::int_(0) || n > py::int_(int64_t{1} << 48)) {
      throw py::value_error("size = " + repr + " has a dimension outside 0..2**48");
    }
    shape[d] = n.cast<py::ssize_t>();
    total *= static_cast<uint64_t>(shape[d]);
    if (total > (uint64_t{1} << 48)) throw py::value_error("size = " + repr + " is too large");
  }
  return shape;
}

// Holds a threading.Lock for a scope: acquire() waits with the GIL released.
class Locked {
 public:
  explicit Locked(const py::object& lock) : lock_(lock) { lock_.attr("acquire")(); }
  ~Locked() {
    PyObject* r = PyObject_CallMethod(lock_.ptr(), "release", nullptr);  // a held lock releases
    if (r == nullptr) PyErr_Clear();
    Py_XDECREF(r);
  }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

 private:
  py::object lock_;
};

// ---------------------------------------------------------------------------

class Philox4x32 {
 public:
  Philox4x32() : lock_(py::module_::import("threading").attr("Lock")()) {
    bitgen_ = {this, &NextUint64, &NextUint32, &NextDouble, &NextRaw};
  }

  // Philox4x32(seed=None, state=None)
  static std::unique_ptr<Philox4x32> Create(const py::object& seed, const py::object& state) {
    randtensor::TargetInfo target;  // a broken RANDTENSOR_TARGET: fail here, not mid-draw
    const randtensor::Status status = randtensor::GetActiveTarget(&target);
    if (!status.ok()) throw std::runtime_error(status.message());
    auto g = std::make_unique<Philox4x32>();
    if (!seed.is_none() && !state.is_none()) throw py::value_error("give state or seed, not both");
    if (!state.is_none()) {
      const std::vector<uint32_t> w = Words("state", state, 6);
      g->key_ = {{w[4], w[5]}};
      g->SetPosition(Counter128{{w[0], w[1], w[2], w[3]}}, 0);
      return g;
    }
    const py::module_ random = py::module_::import("numpy.random");
    const py::object seed_sequence_type =
        py::module_::import("numpy.random.bit_generator").attr("ISeedSequence");
    py::object seed_seq = seed;
    if (seed.is_none()) seed_seq = random.attr("SeedSequence")();  // fresh OS entropy
    if (py::isinstance(seed_seq, seed_sequence_type)) {
      // As NumPy's own generators: two uint32 words of the sequence's pool.
      const auto words = seed_seq.attr("generate_state")(2, py::dtype::of<uint32_t>());
      g->key_ = {{words[py::int_(0)].cast<uint32_t>(), words[py::int_(1)].cast<uint32_t>()}};
      g->seed_seq_ = seed_seq;
    } else {
      const uint64_t n = Unsigned("seed", seed, 64,
                                  "an integer, None or a numpy.random.SeedSequence");
      g->key_ = {{static_cast<uint32_t>(n), static_cast<uint32_t>(n >> 32)}};
    }
    g->SetPosition(Counter128{}, 0);
    return g;
  }

  // -------------------------------------------------------------------------
  // Python API

  py::object Capsule(py::object self) {
    // The capsule holds a reference to the generator: the bitgen_t points
    // into it, and whoever holds the capsule may outlive everyone else.
    PyObject* capsule = PyCapsule_New(&bitgen_, "BitGenerator", [](PyObject* c) {
      Py_XDECREF(static_cast<PyObject*>(PyCapsule_GetContext(c)));
    });
    if (capsule == nullptr) throw py::error_already_set();
    PyCapsule_SetContext(capsule, self.release().ptr());
    return py::reinterpret_steal<py::object>(capsule);
  }

  py::dict GetState() {
    const Locked locked(lock_);
    return StateDict();
  }

  void SetState(const py::object& state) {
    if (!py::isinstance<py::dict>(state)) {
      throw py::type_error("state must be a dict (as the state property returns), not " +
                           TypeName(state));
    }
    const auto dict = py::reinterpret_borrow<py::dict>(state);
    const py::object name = Entry(dict, "state", "bit_generator");
    if (!py::isinstance<py::str>(name) || name.cast<std::string>() != kName) {
      throw py::value_error("state['bit_generator'] = " + std::string(py::repr(name)) +
                            " is not '" + kName + "'");
    }
    const py::object inner = Entry(dict, "state", "state");
    if (!py::isinstance<py::dict>(inner)) {
      throw py::type_error("state['state'] must be a dict, not " + TypeName(inner));
    }
    const auto words = py::reinterpret_borrow<py::dict>(inner);
    const auto counter = Words("state['state']['counter']", Entry(words, "state['state']",
                                                                  "counter"), 4);
    const auto key = Words("state['state']['key']", Entry(words, "state['state']", "key"), 2);
    const uint64_t offset = Unsigned("state['offset']", Entry(dict, "state", "offset"), 2);
    const Locked locked(lock_);  // everything checked: now change it
    key_ = {{key[0], key[1]}};
    SetPosition(Counter128{{counter[0], counter[1], counter[2], counter[3]}},
                static_cast<uint32_t>(offset));
  }

  py::object RandomRaw(const py::object& size, bool output) {
    const std::vector<py::ssize_t> shape =
        size.is_none() ? std::vector<py::ssize_t>{} : Shape(size);
    uint64_t n = 1;
    for (const py::ssize_t s : shape) n *= static_cast<uint64_t>(s);
    const Locked locked(lock_);
    if (!output) {
      Advance(Counter128{{static_cast<uint32_t>(n >> 2), static_cast<uint32_t>(n >> 34), 0, 0}},
              static_cast<uint32_t>(n & 3));
      return py::none();
    }
    if (size.is_none()) return py::int_(Next());
    py::array_t<uint32_t> out = randtensor_python::NewArray<uint32_t>(shape);
    randtensor::Status status;
    {
      py::gil_scoped_release release;  // NumPy's lock still keeps other users out
      status = Bulk(out.mutable_data(), n);
    }
    if (!status.ok()) throw std::runtime_error(status.message());
    return std::move(out);
  }

  // advance(delta): as if delta words were drawn; mod 2^130 (the stream's
  // period), so a negative delta goes back.
  void AdvanceBy(const py::object& delta) {
    const py::int_ d = Integer("delta", delta);
    const py::int_ period = py::int_(1) << py::int_(130);
    // Python's % of a positive modulus is never negative.
    PyObject* remainder = PyNumber_Remainder(d.ptr(), period.ptr());
    if (remainder == nullptr) throw py::error_already_set();
    const auto r = py::reinterpret_steal<py::int_>(remainder);
    const py::int_ mask32(0xFFFFFFFFu);
    Counter128 blocks;
    for (int i = 0; i < 4; ++i) {
      blocks.w[i] = ((r >> py::int_(2 + 32 * i)) & mask32).cast<uint32_t>();
    }
    const Locked locked(lock_);
    Advance(blocks, (r & py::int_(3)).cast<uint32_t>());
  }

  // jumped(jumps): a new generator 2^64 * jumps blocks (2^66 words) ahead:
  // counter words 2-3, cuRAND's subsequence, go up by `jumps`.
  std::unique_ptr<Philox4x32> Jumped(const py::object& jumps) {
    const uint64_t j = Unsigned("jumps", jumps, 64);
    auto g = std::make_unique<Philox4x32>();
    const Locked locked(lock_);
    g->key_ = key_;
    g->seed_seq_ = seed_seq_;
    uint32_t offset;
    const Counter128 block = Position(&offset);
    g->SetPosition(Add(block, Counter128{{0, 0, static_cast<uint32_t>(j),
                                          static_cast<uint32_t>(j >> 32)}}),
                   offset);
    return g;
  }

  // Pickling: (the class, (seed,), state dict), seed being the SeedSequence
  // the key came from, or 0 (no entropy drawn): the state dict then sets
  // everything. NumPy 1.24's Generator.__reduce__ reuses these three parts
  // (it calls class(args[0]), then sets bit_generator.state), so a Generator
  // over this pickles too. (pybind11's py::pickle cannot serve: without a
  // __reduce__ of our own, a protocol 0 __reduce__, which that Generator
  // calls, aborts the process.)
  py::tuple Reduce(const py::object& self) {
    return py::make_tuple(py::type::handle_of(self),
                          py::make_tuple(seed_seq_.is_none() ? py::object(py::int_(0)) : seed_seq_),
                          GetState());
  }

  const py::object& lock() const { return lock_; }
  const py::object& seed_seq() const { return seed_seq_; }

 private:
  // ---- the C interface NumPy calls (with or without the GIL, lock held) ----
  // NumPy's loops call these once per value through a pointer: each hot path
  // is a few instructions with no stack frame, in one 64-byte line
  // (BITGEN_HOT), and the refill a tail call.
  BITGEN_HOT static uint32_t NextUint32(void* st) {
    auto* g = static_cast<Philox4x32*>(st);
    if (g->pos_ != g->len_) return g->buffer_[g->pos_++];
    return g->RefillThenNext();
  }
  BITGEN_HOT static uint64_t NextUint64(void* st) {
    auto* g = static_cast<Philox4x32*>(st);
    if (g->len_ - g->pos_ >= 2) return g->TakePair();
    return g->NextUint64Slow();
  }
  BITGEN_HOT static double NextDouble(void* st) {
    auto* g = static_cast<Philox4x32*>(st);
    if (g->len_ - g->pos_ >= 2) return ToDouble(g->TakePair());
    return ToDouble(g->NextUint64Slow());
  }
  static double ToDouble(uint64_t bits) {  // NumPy's rule: 53 bits, [0, 1)
    return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
  }
  BITGEN_HOT static uint64_t NextRaw(void* st) { return NextUint32(st); }

  uint32_t Next() { return NextUint32(this); }
  BITGEN_COLD uint32_t RefillThenNext() {
    Refill();
    return buffer_[pos_++];
  }
  uint64_t TakePair() {  // two buffered words, the first in the low half
    uint64_t pair;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    std::memcpy(&pair, buffer_ + pos_, 8);  // one load
#else
    pair = buffer_[pos_] | uint64_t{buffer_[pos_ + 1]} << 32;
#endif
    pos_ += 2;
    return pair;
  }
  BITGEN_COLD uint64_t NextUint64Slow() {  // the pair straddles a refill
    const uint64_t lo = Next();
    return lo | uint64_t{Next()} << 32;
  }

  // Words of `count` whole blocks from `counter` into `out`: the kernels, or,
  // should they fail, the scalar reference they equal (a C callback cannot
  // raise; Create() has already refused a broken target).
  randtensor::Status Generate(const Counter128& counter, uint32_t* out, uint64_t count,
                              uint32_t threads) const {
    const int64_t sizes[1] = {static_cast<int64_t>(count)};
    randtensor::TensorDesc desc;
    desc.rank = 1;
    desc.sizes = sizes;
    randtensor::FillOptions options;
    options.threads = threads;
    const PhiloxState state{{counter.w[0], counter.w[1], counter.w[2], counter.w[3], key_.k[0],
                             key_.k[1]}};
    return randtensor::Fill(desc, out, count * 4, state, nullptr, options);
  }

  void Refill() {  // called with the buffer used up: next_ is the next word's block
    if (!Generate(next_, buffer_, kBufferWords, 1).ok()) {
      for (uint32_t b = 0; b < kBufferWords / 4; ++b) {
        const auto block = randtensor::philox::Block(next_.Plus(b), key_);
        std::memcpy(buffer_ + 4 * b, block.v, sizeof block.v);
      }
    }
    next_ = next_.Plus(kBufferWords / 4);
    len_ = kBufferWords;
    pos_ = 0;
  }

  // n words into out; state unchanged when it fails.
  randtensor::Status Bulk(uint32_t* out, uint64_t n) {
    const uint64_t from_buffer = std::min<uint64_t>(n, len_ - pos_);
    std::memcpy(out, buffer_ + pos_, from_buffer * 4);
    const uint64_t rest = n - from_buffer;
    if (rest < kDirectWords) {
      pos_ += static_cast<uint32_t>(from_buffer);
      if (rest > 0) {
        Refill();
        std::memcpy(out + from_buffer, buffer_, rest * 4);
        pos_ = static_cast<uint32_t>(rest);
      }
      return randtensor::Status();
    }
    const randtensor::Status status = Generate(next_, out + from_buffer, rest, 0);
    if (!status.ok()) return status;
    // Now at block next_ + rest / 4, word rest % 4.
    SetPosition(next_.Plus(rest / 4), static_cast<uint32_t>(rest % 4));
    return status;
  }

  // The next word's block, and how many of its words are used (0-3).
  Counter128 Position(uint32_t* offset) const {
    const uint32_t remaining = len_ - pos_;
    const uint32_t blocks_back = (remaining + 3) / 4;
    *offset = 4 * blocks_back - remaining;
    return Minus(next_, blocks_back);
  }

  // Start at word `offset` of `block`. A partial block is buffered alone, from
  // the scalar reference (which every kernel equals), so that a jump costs
  // one block, not a refill.
  void SetPosition(const Counter128& block, uint32_t offset) {
    if (offset == 0) {
      next_ = block;
      len_ = pos_ = 0;
      return;
    }
    const auto words = randtensor::philox::Block(block, key_);
    std::memcpy(buffer_, words.v, sizeof words.v);
    next_ = block.Plus(1);
    len_ = 4;
    pos_ = offset;
  }

  void Advance(const Counter128& blocks, uint32_t words) {
    uint32_t offset;
    const Counter128 block = Position(&offset);
    offset += words;
    SetPosition(Add(block, blocks).Plus(offset / 4), offset % 4);
  }

  py::dict StateDict() const {
    uint32_t offset;
    const Counter128 block = Position(&offset);
    py::array_t<uint32_t> counter = randtensor_python::NewArray<uint32_t>(4);
    py::array_t<uint32_t> key = randtensor_python::NewArray<uint32_t>(2);
    std::copy(block.w, block.w + 4, counter.mutable_data());
    std::copy(key_.k, key_.k + 2, key.mutable_data());
    return py::dict("bit_generator"_a = kName,
                    "state"_a = py::dict("counter"_a = counter, "key"_a = key),
                    "offset"_a = offset);
  }

  alignas(64) uint32_t buffer_[kBufferWords];
  Counter128 next_;
  uint32_t len_ = 0;  // a multiple of 4
  uint32_t pos_ = 0;  // <= len_
  randtensor::PhiloxKey key_;
  bitgen_t bitgen_;
  py::object lock_;
  py::object seed_seq_ = py::none();
};

}  // namespace

void RegisterBitGenerator(py::module_& m) {
  py::class_<Philox4x32> cls(m, kName, R"doc(
randtensor's stream as a NumPy bit generator: numpy.random.Generator(Philox4x32(...))
runs every NumPy distribution on it. See docs/numpy.md.

seed: an integer 0 .. 2**64 - 1 (key = (seed mod 2**32, seed >> 32), counter 0,
    as randtensor.fill's seed=), a numpy.random.SeedSequence (key = its
    generate_state(2, uint32)), or None (a fresh SeedSequence: OS entropy).
state: six uint32 words instead (counter words 0-3, key words 0-1), as fill's state=.

Outputs: next_uint32 is the next stream word; next_uint64 the next two, the first
in the low half; next_double (next_uint64 >> 11) * 2**-53; random_raw the words.)doc");
  cls.def(py::init(&Philox4x32::Create), "seed"_a = py::none(), "state"_a = py::none())
      .def_property_readonly("capsule", [](py::object self) {
        return self.cast<Philox4x32&>().Capsule(self);
      })
      .def_property_readonly("lock", &Philox4x32::lock)
      .def_property_readonly("seed_seq", &Philox4x32::seed_seq,
                             "The SeedSequence the key came from, or None.")
      .def_property("state", &Philox4x32::GetState, &Philox4x32::SetState,
                    "{'bit_generator': 'Philox4x32', 'state': {'counter': 4 uint32 words, "
                    "'key': 2 uint32 words}, 'offset': words of block `counter` already used "
                    "(0-3)}; fill(a, state=counter + key, offset=offset) continues the stream.")
      .def("random_raw", &Philox4x32::RandomRaw, "size"_a = py::none(), "output"_a = true,
           "The next stream words: an int (size=None) or a uint32 array of shape `size`, "
           "equal to randtensor.generate(size, state=counter + key, offset=offset). "
           "output=False skips them in O(1).")
      .def("advance", [](py::object self, const py::object& delta) {
             self.cast<Philox4x32&>().AdvanceBy(delta);
             return self;
           }, "delta"_a,
           "Skips delta words (mod 2**130; negative goes back) in O(1); returns self.")
      .def("jumped", &Philox4x32::Jumped, "jumps"_a = 1,
           "A new generator 2**66 * jumps words ahead (counter words 2-3, cuRAND's "
           "subsequence, + jumps); this one is unchanged.")
      .def("__reduce__", [](py::object self) { return self.cast<Philox4x32&>().Reduce(self); })
      .def("__getstate__", &Philox4x32::GetState)
      .def("_set_pickled_state", &Philox4x32::SetState, "state"_a);
  // pybind11 runs a method it registers as "__setstate__" only on instances
  // not yet constructed (py::pickle's protocol); pickle calls it on the one
  // __reduce__'s class(seed) built, so it is this method under a second name.
  cls.attr("__setstate__") = cls.attr("_set_pickled_state");

}
