// Philox4x32Engine: the randtensor stream as a C++ random number engine.
//
// The engine's output is the stream of SPEC.md section 3: its call number e
// (0-based) returns word e mod 4 of Philox4x32-10(C + floor(e / 4), key), the
// same word randtensor::Fill writes to element e. It models the standard's
// random number engine requirements (result_type, min, max, operator(),
// discard, seed, ==, !=) and C++20's std::uniform_random_bit_generator, so it
// works with <random>'s distributions and std::shuffle.
//
// Seeding follows C++26's std::philox4x32 ([rand.eng.philox], P2075), value
// for value: engine(v) has counter 0 and key (v mod 2^32, 0); its first call
// is word 0 of block 0, words run 0, 1, 2, 3 (Random123's order), and the
// counter steps by one per block. That is the state 0, 0, 0, 0, v mod 2^32, 0
// of SPEC.md section 7, and the 10000th call of a default-constructed engine
// (seed 20111115) returns 1955073260, as C++26 requires. Note that a seed of
// 2^32 or more keeps only its low half, as in C++26; PhiloxState::FromSeed
// (the CLI's `--seed`) puts the high half in key word 1 instead: construct
// from `PhiloxState::FromSeed(s)` to get that convention.
//
// Header-only over the public API; generate() calls randtensor::Fill (the
// SIMD kernels), so it needs the library at link time. C++17. Nothing here
// throws (except what a user's seed sequence throws), aborts or prints.
#ifndef RANDTENSOR_ENGINE_H_
#define RANDTENSOR_ENGINE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "randtensor/fill.h"
#include "randtensor/philox.h"

namespace randtensor {

class Philox4x32Engine;

namespace engine_detail {
// A seed sequence: a class type that is neither a state nor the engine (the
// standard's "does not qualify as a seed sequence" rule, simplified), so that
// engine(state) and copies never pick the seed-sequence overloads.
template <class T>
struct IsSeedSeq
    : std::integral_constant<bool, std::is_class<T>::value &&
                                       !std::is_same<std::remove_cv_t<T>, PhiloxState>::value &&
                                       !std::is_same<std::remove_cv_t<T>, Philox4x32Engine>::value> {
};
}  // namespace engine_detail

class Philox4x32Engine {
 public:
  using result_type = uint32_t;

  // C++26 philox_engine's parameters for philox4x32.
  static constexpr size_t word_size = 32;
  static constexpr size_t word_count = 4;
  static constexpr size_t round_count = 10;
  static constexpr uint64_t default_seed = 20111115u;

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return 0xFFFFFFFFu; }

  // Seed `default_seed`, as C++26's default constructor.
  Philox4x32Engine() noexcept : Philox4x32Engine(default_seed) {}

  // C++26 seeding: counter 0, key (value mod 2^32, 0).
  explicit Philox4x32Engine(uint64_t value) noexcept { seed(value); }

  // The stream that `state` starts: the first call returns element 0 of
  // Fill(..., state, ...). (To start at element k, call discard(k).)
  explicit Philox4x32Engine(const PhiloxState& state) noexcept { seed(state); }

  // C++26 seeding from a seed sequence: q.generate fills two 32-bit words,
  // which become key words 0 and 1; counter 0.
  template <class SeedSeq, typename = std::enable_if_t<engine_detail::IsSeedSeq<SeedSeq>::value>>
  explicit Philox4x32Engine(SeedSeq& q) {
    seed(q);
  }

  void seed(uint64_t value = default_seed) noexcept {
    seed(PhiloxState{{0, 0, 0, 0, static_cast<uint32_t>(value), 0}});
  }

  void seed(const PhiloxState& state) noexcept {
    counter_ = state.counter();
    key_ = state.key();
    position_ = 0;
  }

  template <class SeedSeq, typename = std::enable_if_t<engine_detail::IsSeedSeq<SeedSeq>::value>>
  void seed(SeedSeq& q) {
    uint32_t a[2] = {0, 0};
    q.generate(a + 0, a + 2);
    seed(PhiloxState{{0, 0, 0, 0, a[0], a[1]}});
  }

  // C++26's set_counter: c[0] is the most significant counter word and c[3]
  // the least (X_k = c[3 - k] mod 2^32); the next call starts a new block at
  // that counter. Key unchanged.
  template <class T, typename = std::enable_if_t<std::is_integral<T>::value>>
  void set_counter(const std::array<T, 4>& c) noexcept {
    for (int k = 0; k < 4; ++k) counter_.w[k] = static_cast<uint32_t>(c[3 - k]);
    position_ = 0;
  }

  result_type operator()() noexcept {
    if (position_ == 0) block_ = philox::Block(counter_, key_);
    const result_type r = block_.v[position_];
    if (++position_ == 4) {
      position_ = 0;
      counter_ = counter_.Plus(1);
    }
    return r;
  }

  // Advances by z calls in O(1) (at most one Philox block computed). The
  // counter wraps at 2^128 as SPEC.md section 3 says.
  void discard(unsigned long long z) noexcept {
    uint64_t blocks = z / 4;
    unsigned pos = position_ + static_cast<unsigned>(z % 4);
    if (pos >= 4) {
      pos -= 4;
      ++blocks;
    }
    Seek(counter_.Plus(blocks), pos);
  }

  // Writes the next n outputs to first[0..n) with randtensor::Fill (the SIMD
  // kernels; all hardware threads for large n) and leaves the engine where n
  // calls of operator() would, from any position within a block.
  void generate(result_type* first, size_t n) noexcept {
    constexpr uint64_t kChunk = uint64_t{1} << 60;  // within Fill's int64 sizes
    while (n > 0) {
      const uint64_t count = n < kChunk ? n : kChunk;
      const int64_t size = static_cast<int64_t>(count);
      TensorDesc desc;
      desc.dtype = DataType::kUint32;
      desc.rank = 1;
      desc.sizes = &size;
      FillOptions options;
      options.element_offset = position_;  // words of this block already used
      if (!Fill(desc, first, count * sizeof(result_type), state(), nullptr, options).ok()) {
        // Not reachable for a valid buffer; stay exact regardless.
        for (uint64_t i = 0; i < count; ++i) first[i] = (*this)();
      } else {
        const uint64_t end = position_ + count;
        Seek(counter_.Plus(end / 4), static_cast<unsigned>(end % 4));
      }
      first += count;
      n -= static_cast<size_t>(count);
    }
  }

  // The state of the block that holds the next output: the next call returns
  // word position() of Philox(state().counter(), state().key()), that is
  // element position() of Fill(..., state(), ...). At a block boundary
  // (position() == 0) this is the state of the next unused word, and
  // Philox4x32Engine(state()) == *this.
  PhiloxState state() const noexcept {
    return PhiloxState{{counter_.w[0], counter_.w[1], counter_.w[2], counter_.w[3], key_.k[0],
                        key_.k[1]}};
  }

  // How many words of the current block (state()) are already used: 0 to 3.
  unsigned position() const noexcept { return position_; }

  // Equal engines return equal outputs forever (the cached block is a
  // function of the counter and key, so it is not compared).
  friend bool operator==(const Philox4x32Engine& a, const Philox4x32Engine& b) noexcept {
    return a.counter_ == b.counter_ && a.key_.k[0] == b.key_.k[0] &&
           a.key_.k[1] == b.key_.k[1] && a.position_ == b.position_;
  }
  friend bool operator!=(const Philox4x32Engine& a, const Philox4x32Engine& b) noexcept {
    return !(a == b);
  }

 private:
  void Seek(const Counter128& counter, unsigned position) noexcept {
    counter_ = counter;
    position_ = position;
    if (position_ != 0) block_ = philox::Block(counter_, key_);
  }

  Counter128 counter_;    // block that holds the next output
  PhiloxKey key_;
  unsigned position_ = 0;  // next word within that block; 0: block_ not yet computed
  PhiloxBlock block_;      // Philox(counter_, key_) when position_ != 0
};

}  // namespace randtensor

#endif  // RANDTENSOR_ENGINE_H_
