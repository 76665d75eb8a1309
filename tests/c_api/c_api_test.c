/* The C API, from C: values, layouts, errors, targets and threading hooks.
 *
 * Compiled as C11 with -Wpedantic -Werror, and linked once against the
 * shared library (proving that every function used here is exported) and
 * once against the static one. Expected values come from the known-answer
 * file (SPEC.md section 6; ../known_answers.h reads it, the build passes its
 * path) and from the tests' oracle (../oracle.h: Random123's philox4x32_R and
 * 128-bit counters), which is itself checked against the file first; never
 * from randtensor.
 *
 * Output is TAP-like: "not ok" lines for failed checks, a summary, and a
 * nonzero exit status when anything failed. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "known_answers.h"
#include "oracle.h"
#include "randtensor/randtensor.h"

/* ------------------------------------------------------------ harness */

static int g_checks;
static int g_failures;

static int check(int ok, int line, const char* what) {
  ++g_checks;
  if (!ok) {
    ++g_failures;
    printf("not ok - line %d: %s (last error: \"%s\")\n", line, what, randtensor_last_error());
  }
  return ok;
}
#define CHECK(cond) check((cond) != 0, __LINE__, #cond)

static int contains(const char* text, const char* fragment) {
  return text != NULL && strstr(text, fragment) != NULL;
}

/* ------------------------------------------------------------ oracle */

/* SPEC.md section 6, whole-operator cases, in that order: read from the
 * known-answer file by load_known_answers() before any test runs. */
typedef struct known_answer {
  uint32_t state[6];
  uint32_t n;
  uint32_t values[10];
  uint32_t next[6];
} known_answer;

static const char* const kKnownNames[3] = {"zero", "carry", "wrap128"};
static known_answer kKnown[3];

/* Returns 0, printing why, when the file is unreadable or lacks a case. */
static int load_known_answers(void) {
  static rt_known_answers file;
  int k;
  if (!rt_ka_load(RANDTENSOR_TEST_KNOWN_ANSWERS, &file)) {
    printf("not ok - known answers: %s\n", file.error);
    return 0;
  }
  for (k = 0; k < 3; ++k) {
    const rt_ka_record* r = rt_ka_find(&file, RT_KA_FILL, kKnownNames[k]);
    if (r == NULL || r->rank != 1 || r->value_count == 0 || r->count > 10) {
      printf("not ok - known answers: no 1-d fill \"%s\" of at most 10 listed values in %s\n",
             kKnownNames[k], RANDTENSOR_TEST_KNOWN_ANSWERS);
      return 0;
    }
    memcpy(kKnown[k].state, r->in, sizeof(kKnown[k].state));
    kKnown[k].n = (uint32_t)r->count;
    memcpy(kKnown[k].values, r->values, r->count * sizeof(uint32_t));
    memcpy(kKnown[k].next, r->out, sizeof(kKnown[k].next));
  }
  return 1;
}

/* Element e of the stream that starts at `state`: the oracle. */
static uint32_t oracle(const uint32_t state[6], uint64_t e) { return rt_oracle_element(state, e); }

/* The state after `elements` elements: counter + ceil(elements / 4). */
static void advanced(const uint32_t state[6], uint64_t elements, uint32_t out[6]) {
  rt_oracle_advance(state, elements, out);
}

static void test_oracle_matches_spec(void) {
  int k;
  uint32_t e;
  for (k = 0; k < 3; ++k) {
    uint32_t next[6];
    for (e = 0; e < kKnown[k].n; ++e) CHECK(oracle(kKnown[k].state, e) == kKnown[k].values[e]);
    advanced(kKnown[k].state, kKnown[k].n, next);
    CHECK(memcmp(next, kKnown[k].next, sizeof(next)) == 0);
  }
}

/* ------------------------------------------------------------ layouts */

enum { kGuard = 16 }; /* guard words on each side of a span */

static uint32_t guard_word(size_t i) { return 0xA5C3E1F7u ^ (uint32_t)(i * 0x9E3779B1u); }

/* A strided layout; strides NULL: packed row-major. */
typedef struct layout {
  int32_t rank;
  const int64_t* sizes;
  const int64_t* strides;
} layout;

static int64_t stride_of(const layout* l, int d) {
  int64_t s = 1;
  int k;
  if (l->strides != NULL) return l->strides[d];
  for (k = d + 1; k < l->rank; ++k) s *= l->sizes[k];
  return s;
}

static uint64_t count_of(const layout* l) {
  uint64_t n = 1;
  int d;
  for (d = 0; d < l->rank; ++d) n *= (uint64_t)l->sizes[d];
  return n;
}

/* Offset of logical element e (row-major, last dimension fastest). */
static int64_t offset_of(const layout* l, uint64_t e) {
  int64_t off = 0;
  int d;
  for (d = l->rank - 1; d >= 0; --d) {
    off += (int64_t)(e % (uint64_t)l->sizes[d]) * stride_of(l, d);
    e /= (uint64_t)l->sizes[d];
  }
  return off;
}

/* A guarded allocation for a layout's span: words[origin] is element 0. */
typedef struct span_buffer {
  uint32_t* words;
  size_t count;
  int64_t origin;
  uint64_t span_bytes;
} span_buffer;

static span_buffer span_buffer_new(const layout* l) {
  span_buffer b;
  int64_t low = 0, high = 0;
  size_t i;
  int d;
  for (d = 0; d < l->rank; ++d) {
    const int64_t extent = (l->sizes[d] - 1) * stride_of(l, d);
    *(extent < 0 ? &low : &high) += extent;
  }
  b.span_bytes = (uint64_t)(high - low + 1) * 4;
  b.count = (size_t)(high - low + 1) + 2 * kGuard;
  b.origin = kGuard - low;
  b.words = malloc(b.count * sizeof(uint32_t));
  for (i = 0; i < b.count; ++i) b.words[i] = guard_word(i);
  return b;
}

/* Every element holds oracle(state, offset + e), every other word its guard. */
static int span_buffer_matches(const span_buffer* b, const layout* l, const uint32_t state[6],
                               uint64_t offset) {
  const uint64_t n = count_of(l);
  uint32_t* expected = malloc(b->count * sizeof(uint32_t));
  uint64_t e;
  size_t i;
  int same;
  for (i = 0; i < b->count; ++i) expected[i] = guard_word(i);
  for (e = 0; e < n; ++e) expected[b->origin + offset_of(l, e)] = oracle(state, offset + e);
  same = memcmp(expected, b->words, b->count * sizeof(uint32_t)) == 0;
  free(expected);
  return same;
}

/* Fills `l` (options may be NULL) and checks every word and the output state
 * against the oracle. Returns the fill's info. */
static randtensor_fill_info check_layout(int line, const layout* l, const uint32_t state[6],
                                         const randtensor_fill_options* options) {
  span_buffer b = span_buffer_new(l);
  const uint64_t offset = options != NULL ? options->element_offset : 0;
  uint32_t out[6] = {7, 7, 7, 7, 7, 7}, want[6];
  randtensor_fill_info info = {"unset", -1, 0, -1, "unset"};
  /* The buffer starts at the span (kGuard words in); element 0 lies
   * (origin - kGuard) words further, after what negative strides reach. */
  const randtensor_status status = randtensor_fill_ex(
      b.words + kGuard, b.span_bytes, (uint64_t)(b.origin - kGuard) * 4, RANDTENSOR_UINT32,
      l->rank, l->sizes, l->strides, state, out, options, &info);
  check(status == RANDTENSOR_OK, line, "fill succeeds");
  check(span_buffer_matches(&b, l, state, offset), line, "values and guards match the oracle");
  advanced(state, offset + count_of(l), want);
  check(memcmp(out, want, sizeof(out)) == 0, line, "out_state advanced by ceil(N / 4)");
  free(b.words);
  return info;
}

/* ------------------------------------------------------------ values */

static void test_version(void) {
  char want[32];
  snprintf(want, sizeof(want), "%d.%d.%d", RANDTENSOR_VERSION_MAJOR, RANDTENSOR_VERSION_MINOR,
           RANDTENSOR_VERSION_PATCH);
  CHECK(strcmp(randtensor_version(), want) == 0);
  /* The header's macros must follow the CMake project version. */
  CHECK(strcmp(randtensor_version(), RANDTENSOR_TEST_PROJECT_VERSION) == 0);
}

static void test_status_names(void) {
  CHECK(strcmp(randtensor_status_name(RANDTENSOR_OK), "ok") == 0);
  CHECK(strcmp(randtensor_status_name(RANDTENSOR_INVALID_ARGUMENT), "invalid_argument") == 0);
  CHECK(strcmp(randtensor_status_name(RANDTENSOR_BUFFER_TOO_SMALL), "buffer_too_small") == 0);
  CHECK(strcmp(randtensor_status_name(RANDTENSOR_UNSUPPORTED_TARGET), "unsupported_target") ==
        0);
  CHECK(randtensor_status_name((randtensor_status)99) != NULL);
}

static void test_known_answers(void) {
  int k, in_place;
  for (k = 0; k < 3; ++k) {
    const known_answer* ka = &kKnown[k];
    const int64_t sizes[1] = {ka->n};
    /* Separate out_state, then out_state == in_state (the intended use). */
    for (in_place = 0; in_place < 2; ++in_place) {
      uint32_t in[6], out[6] = {9, 9, 9, 9, 9, 9}, values[12] = {0};
      uint32_t* out_state = in_place ? in : out;
      memcpy(in, ka->state, sizeof(in));
      CHECK(randtensor_fill(values, ka->n * 4, 0, RANDTENSOR_UINT32, 1, sizes, NULL, in,
                            out_state, NULL) == RANDTENSOR_OK);
      CHECK(memcmp(values, ka->values, ka->n * 4) == 0);
      CHECK(values[ka->n] == 0); /* nothing past the buffer */
      CHECK(memcmp(out_state, ka->next, sizeof(out)) == 0);
      CHECK(in_place || memcmp(in, ka->state, sizeof(in)) == 0); /* else read only */
    }
  }
}

/* The first known answer seen through strided views. */
static void test_strided_known_answer(void) {
  const uint32_t* v = kKnown[0].values;
  const int64_t sizes[1] = {10}, reversed[1] = {-1}, every_other[1] = {2};
  const int64_t sizes2[2] = {2, 5}, flipped_rows[2] = {-5, 1};
  uint32_t buf[19], state[6] = {0};
  int i;
  /* A reversed 10-element view: data addresses element 0, the highest word. */
  /* Element 0 is the buffer's last word: 36 bytes in. */
  CHECK(randtensor_fill(buf, 40, 36, RANDTENSOR_UINT32, 1, sizes, reversed, state, NULL, NULL) ==
        RANDTENSOR_OK);
  for (i = 0; i < 10; ++i) CHECK(buf[9 - i] == v[i]);
  /* Every other word; the gaps are padding and stay untouched. */
  memset(buf, 0xEE, sizeof(buf));
  CHECK(randtensor_fill(buf, sizeof(buf), 0, RANDTENSOR_UINT32, 1, sizes, every_other, state,
                        NULL, NULL) == RANDTENSOR_OK);
  for (i = 0; i < 19; ++i) CHECK(buf[i] == (i % 2 == 0 ? v[i / 2] : 0xEEEEEEEEu));
  /* Rows in reverse order: row r, column c lands at word 5 - 5r + c. */
  CHECK(randtensor_fill(buf, 40, 20, RANDTENSOR_UINT32, 2, sizes2, flipped_rows, state, NULL,
                        NULL) == RANDTENSOR_OK);
  for (i = 0; i < 10; ++i) CHECK(buf[5 - 5 * (i / 5) + i % 5] == v[i]);
}

static void test_layouts(void) {
  static const uint32_t state[6] = {0xfffffffd, 0xffffffff, 7, 0, 0x12345678, 0x9abcdef0};
  static const int64_t s3[3] = {3, 4, 5}, padded[3] = {-40, 9, 1}, nhwc[3] = {1, 15, 3};
  static const int64_t s2[2] = {37, 29}, transposed[2] = {1, -37};
  const layout packed3 = {3, s3, NULL}, padded3 = {3, s3, padded}, nhwc3 = {3, s3, nhwc};
  const layout trans2 = {2, s2, transposed}, scalar = {0, NULL, NULL};
  check_layout(__LINE__, &packed3, state, NULL);
  check_layout(__LINE__, &padded3, state, NULL);
  check_layout(__LINE__, &nhwc3, state, NULL);
  check_layout(__LINE__, &trans2, state, NULL);
  check_layout(__LINE__, &scalar, state, NULL); /* rank 0: one element */
}

static void test_element_offset(void) {
  const uint32_t* v = kKnown[0].values;
  const int64_t sizes[1] = {7};
  uint32_t buf[7], state[6] = {0};
  randtensor_fill_options options;
  int i;
  memset(&options, 0, sizeof(options));
  options.element_offset = 3; /* elements 3..9 of the first known answer */
  CHECK(randtensor_fill(buf, sizeof(buf), 0, RANDTENSOR_UINT32, 1, sizes, NULL, state, state,
                        &options) == RANDTENSOR_OK);
  for (i = 0; i < 7; ++i) CHECK(buf[i] == v[3 + i]);
  CHECK(state[0] == 3); /* ceil((3 + 7) / 4): the counter moves past the offset too */
  {
    const int64_t s2[2] = {5, 11}, st2[2] = {-1, 5};
    const layout l = {2, s2, st2};
    options.element_offset = 0xFFFFFFFFFFull; /* counter carries into word 1 */
    check_layout(__LINE__, &l, kKnown[1].state, &options);
  }
}

static void test_empty_tensor(void) {
  const int64_t sizes[2] = {4, 0};
  uint32_t state[6] = {5, 0, 0, 0, 1, 2}, want[6];
  randtensor_fill_info info = {"unset", -1, 9, -1, "unset"};
  randtensor_fill_options options;
  memset(&options, 0, sizeof(options));
  CHECK(randtensor_fill_ex(NULL, 0, 0, RANDTENSOR_UINT32, 2, sizes, NULL, state, state, NULL,
                           &info) == RANDTENSOR_OK);
  CHECK(state[0] == 5); /* no elements: the counter stays */
  CHECK(info.target != NULL && strcmp(info.target, "") == 0 && info.tasks == 0);
  options.element_offset = 5; /* still a no-op that advances past the offset */
  advanced(state, 5, want);
  CHECK(randtensor_fill(NULL, 0, 0, RANDTENSOR_UINT32, 2, sizes, NULL, state, state, &options) ==
        RANDTENSOR_OK);
  CHECK(memcmp(state, want, sizeof(want)) == 0);
}

static void test_min_buffer_bytes(void) {
  const int64_t sizes[2] = {3, 10}, strides[2] = {-1, 4};
  uint64_t bytes = 0;
  CHECK(randtensor_min_buffer_bytes(RANDTENSOR_UINT32, 2, sizes, NULL, &bytes) ==
        RANDTENSOR_OK);
  CHECK(bytes == 120);
  CHECK(randtensor_min_buffer_bytes(RANDTENSOR_UINT32, 2, sizes, strides, &bytes) ==
        RANDTENSOR_OK);
  CHECK(bytes == (2 * 1 + 9 * 4 + 1) * 4); /* |stride| counts, as SPEC.md section 4 says */
  CHECK(randtensor_min_buffer_bytes(RANDTENSOR_UINT32, 2, sizes, NULL, NULL) ==
        RANDTENSOR_INVALID_ARGUMENT);
  CHECK(contains(randtensor_last_error(), "bytes"));
}

/* ------------------------------------------------------------ errors */

/* One fill call, valid as set up by bad_call_init, with guards around the
 * buffer and sentinels in out_state and info; each error case breaks one
 * thing and bad_call_rejects checks the rejection. */
typedef struct bad_call {
  uint32_t words[10 + 2 * kGuard];
  void* data;
  uint64_t buffer_bytes;
  uint64_t byte_offset;
  randtensor_dtype dtype;
  int32_t rank;
  int64_t sizes[9];
  const int64_t* strides;
  uint32_t state_in_words[6];
  const uint32_t* in_state;
  uint32_t out_state[6];
  randtensor_fill_options options;
  randtensor_fill_info info;
} bad_call;

static const uint32_t kSentinelState[6] = {0xDEAD0000, 1, 2, 3, 4, 5};

static void bad_call_init(bad_call* c) {
  size_t i;
  int d;
  memset(c, 0, sizeof(*c));
  for (i = 0; i < sizeof(c->words) / 4; ++i) c->words[i] = guard_word(i);
  c->data = c->words + kGuard;
  c->buffer_bytes = 40;
  c->dtype = RANDTENSOR_UINT32;
  c->rank = 1;
  for (d = 0; d < 9; ++d) c->sizes[d] = 1;
  c->sizes[0] = 10;
  c->in_state = c->state_in_words;
  memcpy(c->out_state, kSentinelState, sizeof(c->out_state));
  c->info.target = "sentinel";
  c->info.lanes = -7;
}

static int bad_call_untouched(const bad_call* c) {
  size_t i;
  for (i = 0; i < sizeof(c->words) / 4; ++i) {
    if (c->words[i] != guard_word(i)) return 0;
  }
  return memcmp(c->out_state, kSentinelState, sizeof(kSentinelState)) == 0 &&
         strcmp(c->info.target, "sentinel") == 0 && c->info.lanes == -7;
}

static randtensor_status bad_call_run(bad_call* c) {
  return randtensor_fill_ex(c->data, c->buffer_bytes, c->byte_offset, c->dtype, c->rank, c->sizes,
                            c->strides, c->in_state, c->out_state, &c->options, &c->info);
}

static void bad_call_rejects(int line, bad_call* c, randtensor_status code,
                             const char* fragment) {
  const randtensor_status got = bad_call_run(c);
  if (!check(got == code, line, "the expected status")) {
    printf("#   got %s, expected %s\n", randtensor_status_name(got), randtensor_status_name(code));
  }
  check(contains(randtensor_last_error(), fragment), line, "the message names the field");
  check(bad_call_untouched(c), line, "buffer, out_state and info untouched");
}

static void test_bad_calls(void) {
  static const int64_t overlapping[2] = {1, 1}, zero[1] = {0}, backwards[1] = {-1};
  bad_call c;
  bad_call_init(&c);
  CHECK(bad_call_run(&c) == RANDTENSOR_OK); /* the baseline is valid */
  CHECK(memcmp(c.words + kGuard, kKnown[0].values, 40) == 0);
  bad_call_init(&c), c.data = NULL;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_INVALID_ARGUMENT, "data is null");
  bad_call_init(&c), c.in_state = NULL;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_INVALID_ARGUMENT, "in_state is null");
  bad_call_init(&c), c.dtype = (randtensor_dtype)99;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_UNSUPPORTED, "dtype = 99");
  bad_call_init(&c), c.rank = 9;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_UNSUPPORTED, "rank = 9");
  bad_call_init(&c), c.rank = -1;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_UNSUPPORTED, "rank = -1");
  bad_call_init(&c), c.sizes[0] = -3;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_INVALID_ARGUMENT, "sizes[0] = -3");
  bad_call_init(&c), c.data = (char*)c.data + 2;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_MISALIGNED, "data");
  bad_call_init(&c), c.buffer_bytes = 39;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_BUFFER_TOO_SMALL, "buffer_bytes = 39");
  bad_call_init(&c), c.rank = 2, c.sizes[0] = 2, c.sizes[1] = 3, c.strides = overlapping;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_OVERLAP, "strides");
  bad_call_init(&c), c.strides = zero;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_OVERLAP, "strides[0] = 0");
  bad_call_init(&c), c.options.stores = (randtensor_store_mode)7;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_INVALID_ARGUMENT, "stores = 7");
  bad_call_init(&c), c.options.element_offset = UINT64_MAX;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_OVERFLOW, "element_offset");
  /* The buffer's start passed with a negative stride and no byte_offset:
   * the elements would lie below the buffer (once written there). */
  bad_call_init(&c), c.strides = backwards;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_BUFFER_TOO_SMALL, "byte_offset = 0");
  bad_call_init(&c), c.strides = backwards, c.byte_offset = 32; /* one element short */
  bad_call_rejects(__LINE__, &c, RANDTENSOR_BUFFER_TOO_SMALL, "byte_offset = 32");
  bad_call_init(&c), c.byte_offset = 4; /* packed, shifted: the last element past the end */
  bad_call_rejects(__LINE__, &c, RANDTENSOR_BUFFER_TOO_SMALL, "buffer_bytes = 40");
  bad_call_init(&c), c.byte_offset = 2;
  bad_call_rejects(__LINE__, &c, RANDTENSOR_MISALIGNED, "byte_offset = 2");
  /* ... and with the right byte_offset it is accepted, last word first. */
  bad_call_init(&c), c.strides = backwards, c.byte_offset = 36;
  CHECK(bad_call_run(&c) == RANDTENSOR_OK);
  CHECK(c.words[kGuard + 9] == kKnown[0].values[0] && c.words[kGuard] == kKnown[0].values[9]);
}

/* out_state inside the output buffer: the caller's own pointer must reach
 * the overlap check (not a copy of it). */
/* Distributions through the C options: uniform(0, 1) float32 and bernoulli
 * uint8 from the zero state, the first values of the reference model's cases
 * u_f32_01_s0_k0 and b_u8_s0_k0 (tests/data/distributions.txt, written by
 * tests/reference/make_distribution_cases.py); a bad p is refused by name. */
static void test_distributions(void) {
  static const uint32_t kUniformBits[4] = {0x3ecc4fd2, 0x3f6169c6, 0x3f3c57ac, 0x3f1b00dc};
  const int64_t sizes[1] = {4};
  uint32_t state[6] = {0, 0, 0, 0, 0, 0};
  float out[4];
  uint8_t bytes[8];
  int i;
  randtensor_fill_options options;
  memset(&options, 0, sizeof(options));
  options.distribution.kind = RANDTENSOR_UNIFORM;
  options.distribution.low = 0.0;
  options.distribution.high = 1.0;
  CHECK(randtensor_fill(out, sizeof(out), 0, RANDTENSOR_FLOAT32, 1, sizes, NULL, state, state,
                        &options) == RANDTENSOR_OK);
  for (i = 0; i < 4; ++i) {
    uint32_t bits;
    memcpy(&bits, &out[i], 4);
    CHECK(bits == kUniformBits[i]);
  }
  CHECK(state[0] == 1); /* one word per element: ceil(4 / 4) blocks */
  memset(state, 0, sizeof(state));
  memset(bytes, 0xEE, sizeof(bytes));
  options.distribution.kind = RANDTENSOR_BERNOULLI;
  options.distribution.p = 0.3;
  CHECK(randtensor_fill(bytes, 4, 0, RANDTENSOR_UINT8, 1, sizes, NULL, state, NULL, &options) ==
        RANDTENSOR_OK);
  CHECK(bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 0 && bytes[3] == 0);
  CHECK(bytes[4] == 0xEE); /* nothing past the four elements */
  options.distribution.p = 1.5;
  memset(bytes, 0xEE, sizeof(bytes));
  CHECK(randtensor_fill(bytes, 4, 0, RANDTENSOR_UINT8, 1, sizes, NULL, state, NULL, &options) ==
        RANDTENSOR_INVALID_ARGUMENT);
  CHECK(contains(randtensor_last_error(), "distribution.p = 1.5"));
  CHECK(bytes[0] == 0xEE);
}

/* The layout of randtensor_distribution before its parameters had names:
 * the named unions must keep it (the ABI), and a and b must still compile. */
typedef struct {
  randtensor_distribution_kind kind;
  double a, b;
  int64_t int_low, int_high;
} former_distribution;

/* Fills 64 float32 values of `d` from seed 5; returns the fill's status. */
static randtensor_status fill_distribution(const randtensor_distribution* d, float out[64]) {
  const int64_t sizes[1] = {64};
  const uint32_t state[6] = {0, 0, 0, 0, 5, 0};
  randtensor_fill_options options;
  memset(&options, 0, sizeof(options));
  options.distribution = *d;
  return randtensor_fill(out, 64 * sizeof(float), 0, RANDTENSOR_FLOAT32, 1, sizes, NULL, state,
                         NULL, &options);
}

/* Parameters by name reach the library: normal(mean 1e6, std 1) lies within
 * 10 of 1e6 and normal(0, std 1e-3) within 0.01 of 0 (SPEC.md section 8:
 * z * std + mean with |z| < 10 from 32-bit words), uniform [low, high) =
 * [-3, -2) inside it. The deprecated a / b, and a positional initializer
 * as code written for them has it, fill the very same values. */
static void test_distribution_parameter_names(void) {
  float named[64], former[64];
  int i, inside = 1;
  randtensor_distribution d;
  CHECK(sizeof(randtensor_distribution) == sizeof(former_distribution));
  CHECK(offsetof(randtensor_distribution, low) == offsetof(former_distribution, a));
  CHECK(offsetof(randtensor_distribution, mean) == offsetof(former_distribution, a));
  CHECK(offsetof(randtensor_distribution, p) == offsetof(former_distribution, a));
  CHECK(offsetof(randtensor_distribution, high) == offsetof(former_distribution, b));
  CHECK(offsetof(randtensor_distribution, std) == offsetof(former_distribution, b));
  CHECK(offsetof(randtensor_distribution, int_low) == offsetof(former_distribution, int_low));
  CHECK(offsetof(randtensor_distribution, lambda) == offsetof(former_distribution, a));
  CHECK(offsetof(randtensor_distribution, median) == offsetof(former_distribution, a));
  CHECK(offsetof(randtensor_distribution, sigma) == offsetof(former_distribution, b));

  memset(&d, 0, sizeof(d));
  d.kind = RANDTENSOR_NORMAL;
  d.mean = 1e6;
  d.std = 1.0;
  CHECK(fill_distribution(&d, named) == RANDTENSOR_OK);
  for (i = 0; i < 64; ++i) inside &= named[i] > 1e6f - 10 && named[i] < 1e6f + 10;
  CHECK(inside);
  d.mean = 0.0;
  d.std = 1e-3;
  CHECK(fill_distribution(&d, named) == RANDTENSOR_OK);
  inside = 1;
  for (i = 0; i < 64; ++i) inside &= named[i] > -0.01f && named[i] < 0.01f;
  CHECK(inside);
  {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    randtensor_distribution old;
    memset(&old, 0, sizeof(old));
    old.kind = RANDTENSOR_NORMAL;
    old.a = 0.0;
    old.b = 1e-3;
#pragma GCC diagnostic pop
    CHECK(fill_distribution(&old, former) == RANDTENSOR_OK);
    CHECK(memcmp(named, former, sizeof(named)) == 0);
  }
  {
    /* As code written for a and b has it; the unions now ask for braces
     * (-Wmissing-braces), which it lacks. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-braces"
    const randtensor_distribution positional = {RANDTENSOR_UNIFORM, -3.0, -2.0, 0, 0};
#pragma GCC diagnostic pop
    memset(&d, 0, sizeof(d));
    d.kind = RANDTENSOR_UNIFORM;
    d.low = -3.0;
    d.high = -2.0;
    CHECK(fill_distribution(&d, named) == RANDTENSOR_OK);
    inside = 1;
    for (i = 0; i < 64; ++i) inside &= named[i] >= -3.0f && named[i] < -2.0f;
    CHECK(inside);
    CHECK(fill_distribution(&positional, former) == RANDTENSOR_OK);
    CHECK(memcmp(named, former, sizeof(named)) == 0);
  }
  {
    /* docs/SPEC.md section 8.1 by name: geometric(p = 1/4) of seed 5, the
     * reference model's first values (tests/reference/distributions.py);
     * exponential(lambda = 4) and cauchy(median 100, sigma 1e-3) in range;
     * lambda = 0 refused by name. */
    static const float kGeometric[4] = {1.0f, 10.0f, 1.0f, 1.0f};
    memset(&d, 0, sizeof(d));
    d.kind = RANDTENSOR_GEOMETRIC;
    d.p = 0.25;
    CHECK(fill_distribution(&d, named) == RANDTENSOR_OK);
    CHECK(memcmp(named, kGeometric, sizeof(kGeometric)) == 0);
    d.kind = RANDTENSOR_EXPONENTIAL;
    d.lambda = 4.0;
    CHECK(fill_distribution(&d, named) == RANDTENSOR_OK);
    inside = 1;
    for (i = 0; i < 64; ++i) inside &= named[i] > 0.0f && named[i] < 6.0f;  /* -log(2^-33) / 4 */
    CHECK(inside);
    d.kind = RANDTENSOR_CAUCHY;
    d.median = 100.0;
    d.sigma = 1e-3;
    CHECK(fill_distribution(&d, named) == RANDTENSOR_OK);
    inside = 1;
    for (i = 0; i < 64; ++i) inside &= named[i] > 99.9f && named[i] < 100.1f;  /* these: |tan| < 63 */
    CHECK(inside);
    d.kind = RANDTENSOR_LOG_NORMAL;
    d.mean = 0.0;
    d.std = 1e-3;
    CHECK(fill_distribution(&d, named) == RANDTENSOR_OK);
    inside = 1;
    for (i = 0; i < 64; ++i) inside &= named[i] > 0.99f && named[i] < 1.01f;
    CHECK(inside);
    d.kind = RANDTENSOR_EXPONENTIAL;
    d.lambda = 0.0;
    CHECK(fill_distribution(&d, named) == RANDTENSOR_INVALID_ARGUMENT);
    CHECK(contains(randtensor_last_error(), "distribution.lambda = 0"));
  }
}

/* A region of a global tensor through the C options equals that slice of
 * the global fill, and reports the global fill's state. */
static void test_region(void) {
  const int64_t global[2] = {4, 6}, start[2] = {1, 2}, sizes[2] = {2, 3};
  uint32_t whole[24], part[6], state[6] = {0, 0, 0, 0, 7, 0}, s1[6], s2[6];
  int r, c;
  randtensor_fill_options options;
  memset(&options, 0, sizeof(options));
  CHECK(randtensor_fill(whole, sizeof(whole), 0, RANDTENSOR_UINT32, 2, global, NULL, state, s1,
                        NULL) == RANDTENSOR_OK);
  options.region_global_sizes = global;
  options.region_start = start;
  CHECK(randtensor_fill(part, sizeof(part), 0, RANDTENSOR_UINT32, 2, sizes, NULL, state, s2,
                        &options) == RANDTENSOR_OK);
  for (r = 0; r < 2; ++r) {
    for (c = 0; c < 3; ++c) CHECK(part[r * 3 + c] == whole[(1 + r) * 6 + 2 + c]);
  }
  CHECK(memcmp(s1, s2, sizeof(s1)) == 0);
  options.region_start = NULL;
  CHECK(randtensor_fill(part, sizeof(part), 0, RANDTENSOR_UINT32, 2, sizes, NULL, state, s2,
                        &options) == RANDTENSOR_INVALID_ARGUMENT);
  CHECK(contains(randtensor_last_error(), "region.start"));
}

static void test_state_out_overlapping_buffer(void) {
  bad_call c;
  bad_call_init(&c);
  CHECK(randtensor_fill(c.data, c.buffer_bytes, 0, RANDTENSOR_UINT32, 1, c.sizes, NULL,
                        c.in_state, c.words + kGuard + 2, NULL) == RANDTENSOR_OVERLAP);
  CHECK(contains(randtensor_last_error(), "overlaps"));
  CHECK(bad_call_untouched(&c));
}

/* ------------------------------------------------------------ last error */

typedef struct thread_report {
  char before[256];
  char after[256];
} thread_report;

static void* failing_thread(void* arg) {
  thread_report* r = arg;
  snprintf(r->before, sizeof(r->before), "%s", randtensor_last_error());
  randtensor_set_target("NOT_A_TARGET_IN_THREAD");
  snprintf(r->after, sizeof(r->after), "%s", randtensor_last_error());
  return NULL;
}

static void test_last_error_is_per_thread(void) {
  const int64_t sizes[1] = {4};
  uint32_t buf[4], state[6] = {0};
  char mine[256];
  pthread_t thread;
  thread_report report;
  CHECK(randtensor_fill(buf, sizeof(buf), 0, RANDTENSOR_UINT32, 9, sizes, NULL, state, NULL,
                        NULL) == RANDTENSOR_UNSUPPORTED);
  snprintf(mine, sizeof(mine), "%s", randtensor_last_error());
  CHECK(contains(mine, "rank = 9"));
  /* A successful call leaves the message alone. */
  CHECK(randtensor_fill(buf, sizeof(buf), 0, RANDTENSOR_UINT32, 1, sizes, NULL, state, NULL,
                        NULL) == RANDTENSOR_OK);
  CHECK(strcmp(randtensor_last_error(), mine) == 0);
  /* Another thread starts with "" and its failure stays its own. */
  CHECK(pthread_create(&thread, NULL, failing_thread, &report) == 0);
  CHECK(pthread_join(thread, NULL) == 0);
  CHECK(strcmp(report.before, "") == 0);
  CHECK(contains(report.after, "NOT_A_TARGET_IN_THREAD"));
  CHECK(strcmp(randtensor_last_error(), mine) == 0);
}

/* ------------------------------------------------------------ targets */

static int active_index(void) {
  randtensor_target_info t;
  int32_t i;
  for (i = 0; i < randtensor_target_count(); ++i) {
    if (randtensor_get_target(i, &t) == RANDTENSOR_OK && t.active) return i;
  }
  return -1;
}

/* Forced target `t`: fills report it and produce the same values. */
static void check_forced_target(const randtensor_target_info* t) {
  static const int64_t sizes[2] = {37, 29}, strides[2] = {-31, 1};
  const layout strided = {2, sizes, strides};
  const int64_t n10[1] = {10};
  const layout ten = {1, n10, NULL};
  randtensor_target_info active;
  randtensor_fill_info info;
  CHECK(randtensor_set_target(t->name) == RANDTENSOR_OK);
  CHECK(randtensor_get_active_target(&active) == RANDTENSOR_OK);
  CHECK(strcmp(active.name, t->name) == 0 && active.active);
  info = check_layout(__LINE__, &ten, kKnown[0].state, NULL);
  CHECK(strcmp(info.target, t->name) == 0 && info.lanes == t->lanes);
  info = check_layout(__LINE__, &strided, kKnown[1].state, NULL);
  CHECK(strcmp(info.target, t->name) == 0 && info.lanes == t->lanes);
}

static void test_targets(void) {
  const int32_t count = randtensor_target_count();
  const int widest = active_index();
  randtensor_target_info t;
  int32_t i;
  CHECK(count >= 1);
  CHECK(widest >= 0);
  for (i = 0; i < count; ++i) {
    CHECK(randtensor_get_target(i, &t) == RANDTENSOR_OK);
    /* A scalable target (SVE) the CPU cannot run has no known length: 0. */
    CHECK(t.name != NULL && t.name[0] != '\0' && (t.lanes >= 1 || (!t.supported && t.lanes == 0)));
    if (t.supported) {
      check_forced_target(&t);
    } else {
      CHECK(randtensor_set_target(t.name) == RANDTENSOR_UNSUPPORTED_TARGET);
      CHECK(contains(randtensor_last_error(), t.name));
    }
  }
  CHECK(randtensor_set_target("NEON9000") == RANDTENSOR_UNKNOWN_TARGET);
  CHECK(contains(randtensor_last_error(), "NEON9000"));
  CHECK(randtensor_get_target(count, &t) == RANDTENSOR_INVALID_ARGUMENT);
  CHECK(contains(randtensor_last_error(), "index"));
  CHECK(randtensor_get_target(0, NULL) == RANDTENSOR_INVALID_ARGUMENT);
  CHECK(randtensor_get_active_target(NULL) == RANDTENSOR_INVALID_ARGUMENT);
  CHECK(contains(randtensor_last_error(), "info is null"));
  CHECK(randtensor_set_target(NULL) == RANDTENSOR_OK);
  CHECK(active_index() == widest);
  CHECK(randtensor_set_target("auto") == RANDTENSOR_OK);
  CHECK(active_index() == widest);
}

/* ------------------------------------------------------------ threading */

typedef struct hook_stats {
  int calls;
  uint32_t tasks;
  uint32_t max_threads;
} hook_stats;

/* A "pool" that runs every task on the calling thread, last index first
 * (any order is allowed), and counts what it was given. */
static void counting_parallel_for(void* pool_context, uint32_t count, uint32_t max_threads,
                                  randtensor_task_fn task, void* task_context) {
  hook_stats* stats = pool_context;
  uint32_t i;
  ++stats->calls;
  stats->max_threads = max_threads;
  for (i = count; i-- > 0;) {
    task(task_context, i);
    ++stats->tasks;
  }
}

static void test_threading_hooks(void) {
  static const int64_t sizes[2] = {100, 200};
  const layout big = {2, sizes, NULL};
  const uint32_t hardware = randtensor_default_threads();
  hook_stats global = {0, 0, 0}, local = {0, 0, 0};
  randtensor_fill_options options;
  randtensor_fill_info info;
  memset(&options, 0, sizeof(options));
  options.task_elements = 1024; /* many tasks for 20000 elements */
  CHECK(hardware >= 1);
  randtensor_set_default_threads(3);
  CHECK(randtensor_default_threads() == 3);
  randtensor_set_default_parallel_for(counting_parallel_for, &global);
  info = check_layout(__LINE__, &big, kKnown[1].state, &options);
  CHECK(global.calls == 1 && info.tasks > 1 && global.tasks == info.tasks);
  CHECK(global.max_threads == 3); /* options.threads 0: the default */
  /* A per-call hook takes precedence over the default. */
  options.parallel_for = counting_parallel_for;
  options.parallel_for_context = &local;
  options.threads = 2;
  info = check_layout(__LINE__, &big, kKnown[2].state, &options);
  CHECK(local.calls == 1 && local.tasks == info.tasks && local.max_threads == 2);
  CHECK(global.calls == 1);
  /* Restored: the library's own pool again. */
  randtensor_set_default_parallel_for(NULL, NULL);
  options.parallel_for = NULL;
  options.threads = 0;
  check_layout(__LINE__, &big, kKnown[0].state, &options);
  CHECK(global.calls == 1 && local.calls == 1);
  randtensor_set_default_threads(0);
  CHECK(randtensor_default_threads() == hardware);
}

/* PyTorch's CUDA order (randtensor/replay.h): on a GPU of 1 SM of 512
 * threads (G = 512 for 700 elements), element e is word (e mod 2048) / 512
 * of the block at counter offset / 4 + e / 2048 + (e mod 512) * 2^64. */
static void test_torch_cuda_order(void) {
  enum { kN = 2100 };
  static uint32_t out[kN];
  uint32_t state[6], next[6], thread_state[6];
  uint64_t e, offset = 0;
  randtensor_fill_options options;
  int64_t n = kN;
  CHECK(randtensor_torch_cuda_state(42, 40, state) == RANDTENSOR_OK);
  CHECK(state[0] == 10 && state[1] == 0 && state[4] == 42 && state[5] == 0);
  CHECK(randtensor_torch_cuda_state(42, 41, state) == RANDTENSOR_INVALID_ARGUMENT);
  CHECK(contains(randtensor_last_error(), "offset = 41"));
  CHECK(randtensor_torch_cuda_state(42, 40, state) == RANDTENSOR_OK);
  memset(&options, 0, sizeof options);
  options.order = RANDTENSOR_ORDER_TORCH_CUDA;
  options.gpu_sm_count = 1;
  options.gpu_threads_per_sm = 512;
  CHECK(randtensor_fill(out, sizeof out, 0, RANDTENSOR_UINT32, 1, &n, NULL, state, next,
                        &options) == RANDTENSOR_OK);
  for (e = 0; e < kN; ++e) {
    memcpy(thread_state, state, sizeof thread_state);
    thread_state[2] = (uint32_t)(e % 512);  /* subsequence: counter words 2-3 */
    if (out[e] != oracle(thread_state, 4 * (e / 2048) + (e % 2048) / 512)) break;
  }
  CHECK(e == kN);
  /* ceil(2100 / 2048) = 2 blocks per thread: offset 40 + 8. */
  CHECK(randtensor_torch_cuda_offset(next, &offset) == RANDTENSOR_OK && offset == 48);
  options.gpu_threads_per_sm = 100;
  CHECK(randtensor_fill(out, sizeof out, 0, RANDTENSOR_UINT32, 1, &n, NULL, state, next,
                        &options) == RANDTENSOR_INVALID_ARGUMENT);
  CHECK(contains(randtensor_last_error(), "gpu.threads_per_sm = 100"));
}

int main(void) {
  if (!load_known_answers()) return 1;
  test_torch_cuda_order();
  test_oracle_matches_spec();
  test_version();
  test_status_names();
  test_known_answers();
  test_strided_known_answer();
  test_layouts();
  test_element_offset();
  test_empty_tensor();
  test_min_buffer_bytes();
  test_bad_calls();
  test_distributions();
  test_distribution_parameter_names();
  test_region();
  test_state_out_overlapping_buffer();
  test_last_error_is_per_thread();
  test_targets();
  test_threading_hooks();
  printf("%s - %d checks, %d failed\n", g_failures == 0 ? "ok" : "not ok", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
