/* The test suite's one oracle: what every output word and state must be.
 *
 * Independent of randtensor: nothing here includes or copies the library's
 * code. Philox4x32-10 is Random123's philox4x32_R(10, ctr, key) (the C
 * interface of librandom123-dev, which C and C++ share), and the 128-bit
 * counter arithmetic is the compiler's unsigned __int128 (GCC and Clang), not
 * the library's word-by-word carries. SPEC.md sections 1-3:
 *
 *   element(e)    = word e mod 4 of Philox(C + floor(e / 4) mod 2^128, key)
 *   advance(n)    = state with counter C + ceil(n / 4) mod 2^128, key kept
 *
 * Plain C11 that also compiles as C++17, with no test framework: the C API
 * test (c_api/c_api_test.c), the C++ tests (through test_util.h) and the fuzz
 * model (fuzz/model.h) all use these functions. States are the six uint32
 * words of SPEC.md section 2 (counter words 0-3 least significant first, key
 * words 4-5). Element indices and counts are 128-bit, so that an element
 * offset plus a count past 2^64 is still exact. */
#ifndef RANDTENSOR_TESTS_ORACLE_H_
#define RANDTENSOR_TESTS_ORACLE_H_

#include <Random123/philox.h>
#include <stdint.h>

__extension__ typedef unsigned __int128 rt_oracle_u128;

/* The 128-bit counter of four words, word 0 least significant. */
static inline rt_oracle_u128 rt_oracle_counter(const uint32_t words[4]) {
  return ((rt_oracle_u128)words[3] << 96) | ((rt_oracle_u128)words[2] << 64) |
         ((rt_oracle_u128)words[1] << 32) | (rt_oracle_u128)words[0];
}

/* The four words of a 128-bit counter, word 0 least significant. */
static inline void rt_oracle_counter_words(rt_oracle_u128 counter, uint32_t words[4]) {
  words[0] = (uint32_t)counter;
  words[1] = (uint32_t)(counter >> 32);
  words[2] = (uint32_t)(counter >> 64);
  words[3] = (uint32_t)(counter >> 96);
}

/* philox4x32_R(10, ctr, key): one block of four words. */
static inline void rt_oracle_block(const uint32_t ctr[4], uint32_t k0, uint32_t k1,
                                   uint32_t out[4]) {
  philox4x32_ctr_t c;
  philox4x32_key_t k;
  philox4x32_ctr_t r;
  int i;
  for (i = 0; i < 4; ++i) c.v[i] = ctr[i];
  k.v[0] = k0;
  k.v[1] = k1;
  r = philox4x32_R(10, c, k);
  for (i = 0; i < 4; ++i) out[i] = r.v[i];
}

/* `state` with its counter plus `blocks` (mod 2^128), key copied. `out` may
 * be `state`. */
static inline void rt_oracle_plus_blocks(const uint32_t state[6], rt_oracle_u128 blocks,
                                         uint32_t out[6]) {
  const uint32_t k0 = state[4], k1 = state[5];
  rt_oracle_counter_words(rt_oracle_counter(state) + blocks, out);
  out[4] = k0;
  out[5] = k1;
}

/* The output state after `elements` stream elements: C + ceil(elements / 4)
 * (mod 2^128), key copied. `out` may be `state`. */
static inline void rt_oracle_advance(const uint32_t state[6], rt_oracle_u128 elements,
                                     uint32_t out[6]) {
  rt_oracle_plus_blocks(state, elements / 4 + (elements % 4 != 0 ? 1 : 0), out);
}

/* The block holding stream element `e`: Philox(C + floor(e / 4), key). */
static inline void rt_oracle_block_of(const uint32_t state[6], rt_oracle_u128 e,
                                      uint32_t out[4]) {
  uint32_t ctr[4];
  rt_oracle_counter_words(rt_oracle_counter(state) + e / 4, ctr);
  rt_oracle_block(ctr, state[4], state[5], out);
}

/* Element `e` of the stream that `state` starts (SPEC.md section 3). */
static inline uint32_t rt_oracle_element(const uint32_t state[6], rt_oracle_u128 e) {
  uint32_t block[4];
  rt_oracle_block_of(state, e, block);
  return block[(int)(e % 4)];
}

/* Elements of one stream read mostly in order: a cursor keeps the last block
 * it computed, so that each block's four words cost one Philox call. Start
 * with rt_oracle_cursor_start; any order is correct, in order is fast. */
typedef struct {
  uint32_t state[6];
  rt_oracle_u128 block; /* the block `words` holds: e / 4 of an element e */
  uint32_t words[4];
} rt_oracle_cursor;

static inline rt_oracle_cursor rt_oracle_cursor_start(const uint32_t state[6]) {
  rt_oracle_cursor c;
  int i;
  for (i = 0; i < 6; ++i) c.state[i] = state[i];
  c.block = ~(rt_oracle_u128)0; /* no element's block (e / 4 < 2^126) */
  return c;
}

/* rt_oracle_element(c->state, e). */
static inline uint32_t rt_oracle_cursor_element(rt_oracle_cursor* c, rt_oracle_u128 e) {
  if (e / 4 != c->block) {
    rt_oracle_block_of(c->state, e, c->words);
    c->block = e / 4;
  }
  return c->words[(int)(e % 4)];
}

#endif /* RANDTENSOR_TESTS_ORACLE_H_ */
