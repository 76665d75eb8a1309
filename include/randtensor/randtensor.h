/* randtensor's C API: Philox4x32-10 random bits into any strided tensor.
 *
 * The same library and semantics as the C++ headers (randtensor/fill.h says
 * exactly which value every element gets), for C and for other languages'
 * foreign-function interfaces. Every function returns a randtensor_status;
 * on failure nothing has been written, and randtensor_last_error() returns a
 * message naming the offending field and its value. Nothing aborts, nothing
 * prints.
 *
 *   uint32_t state[6] = {0, 0, 0, 0, 42, 0};     counter words 0-3, key words 0-1
 *   int64_t sizes[2] = {3, 4};
 *   uint32_t out[12];
 *   if (randtensor_fill(out, sizeof out, 0, RANDTENSOR_UINT32, 2, sizes, NULL,
 *                       state, state, NULL) != RANDTENSOR_OK)
 *     fprintf(stderr, "%s\n", randtensor_last_error());
 */
#ifndef RANDTENSOR_RANDTENSOR_H_
#define RANDTENSOR_RANDTENSOR_H_

#include <stdint.h>

#include "randtensor/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RANDTENSOR_VERSION_MAJOR 0
#define RANDTENSOR_VERSION_MINOR 1
#define RANDTENSOR_VERSION_PATCH 0
#define RANDTENSOR_MAX_RANK 8

/* The same values as randtensor::StatusCode. */
typedef enum randtensor_status {
  RANDTENSOR_OK = 0,
  RANDTENSOR_INVALID_ARGUMENT = 1,
  RANDTENSOR_UNSUPPORTED = 2,
  RANDTENSOR_OVERFLOW = 3,
  RANDTENSOR_OVERLAP = 4,
  RANDTENSOR_BUFFER_TOO_SMALL = 5,
  RANDTENSOR_MISALIGNED = 6,
  RANDTENSOR_UNKNOWN_TARGET = 7,
  RANDTENSOR_UNSUPPORTED_TARGET = 8
} randtensor_status;

/* Output element types (randtensor::DataType). */
typedef enum randtensor_dtype {
  RANDTENSOR_UINT32 = 0,
  RANDTENSOR_FLOAT32 = 1,
  RANDTENSOR_FLOAT64 = 2,
  RANDTENSOR_FLOAT16 = 3,
  RANDTENSOR_BFLOAT16 = 4,
  RANDTENSOR_UINT8 = 5,
  RANDTENSOR_BOOL = 6,
  RANDTENSOR_INT32 = 7,
  RANDTENSOR_INT64 = 8
} randtensor_dtype;

/* Distributions (randtensor::DistributionKind; randtensor/distribution.h
 * says which types each fills in this version). */
typedef enum randtensor_distribution_kind {
  RANDTENSOR_BITS = 0,
  RANDTENSOR_UNIFORM = 1,
  RANDTENSOR_NORMAL = 2,
  RANDTENSOR_BERNOULLI = 3,
  RANDTENSOR_INTEGERS = 4,
  RANDTENSOR_EXPONENTIAL = 5,
  RANDTENSOR_CAUCHY = 6,
  RANDTENSOR_LOG_NORMAL = 7,
  RANDTENSOR_GEOMETRIC = 8
} randtensor_distribution_kind;

#if defined(__GNUC__) || defined(__clang__)
#define RANDTENSOR_DEPRECATED(message) __attribute__((deprecated(message)))
#else
#define RANDTENSOR_DEPRECATED(message)
#endif

/* The parameters by name, as randtensor::Distribution's: uniform [low,
 * high), normal (mean, std), bernoulli p, integers [int_low, int_high),
 * exponential lambda, cauchy (median, sigma), log_normal (mean, std),
 * geometric p. All zero: bits. The names in one union share its storage: set those of the
 * kind. a and b are their former names (a = low, mean or p; b = high or
 * std), kept for source compatibility and deprecated; the layout is the
 * one they had, so a positional initializer {kind, a, b, int_low, int_high}
 * still means the same (compilers suggest braces around the unions). */
typedef struct randtensor_distribution {
  randtensor_distribution_kind kind;
  union {
    double low;
    double mean;
    double p;
    double lambda;
    double median;
    double a RANDTENSOR_DEPRECATED("use low, mean or p");
  };
  union {
    double high;
    double std;
    double sigma;
    double b RANDTENSOR_DEPRECATED("use high or std");
  };
  int64_t int_low, int_high;
} randtensor_distribution;

/* How stores reach memory (randtensor::StoreMode). */
typedef enum randtensor_store_mode {
  RANDTENSOR_STORES_AUTO = 0,
  RANDTENSOR_STORES_REGULAR = 1,
  RANDTENSOR_STORES_STREAMING = 2
} randtensor_store_mode;

/* The message of the last call on this thread that failed ("" if none has).
 * Valid until the next failing call on the same thread. */
RANDTENSOR_API const char* randtensor_last_error(void);

/* Stable lower-case name of a status ("invalid_argument", ...). */
RANDTENSOR_API const char* randtensor_status_name(randtensor_status status);

/* "0.1.0" */
RANDTENSOR_API const char* randtensor_version(void);

/* ------------------------------------------------------------- threading */

typedef void (*randtensor_task_fn)(void* task_context, uint32_t index);

/* Must call task(task_context, i) exactly once for every i in [0, count), in
 * any order and on any threads, and return only when all calls returned.
 * max_threads is the caller's cap; the pool may use fewer. */
typedef void (*randtensor_parallel_for_fn)(void* pool_context, uint32_t count,
                                           uint32_t max_threads, randtensor_task_fn task,
                                           void* task_context);

/* Threads a fill uses when its options say 0; 0 restores all hardware threads. */
RANDTENSOR_API void randtensor_set_default_threads(uint32_t threads);
RANDTENSOR_API uint32_t randtensor_default_threads(void);

/* The pool fills use when their options name none; fn NULL restores the
 * library's own pool. */
RANDTENSOR_API void randtensor_set_default_parallel_for(randtensor_parallel_for_fn fn,
                                                        void* pool_context);

/* ------------------------------------------------------------------ fill */

/* Element orders (randtensor::ElementOrder). */
typedef enum randtensor_element_order {
  RANDTENSOR_ORDER_STREAM = 0,
  RANDTENSOR_ORDER_TORCH_CUDA = 1
} randtensor_element_order;

/* Per-call options. All zero (or a NULL pointer) means the defaults. */
typedef struct randtensor_fill_options {
  uint64_t element_offset;       /* first element of the stream to use (not a Philox offset) */
  uint32_t threads;              /* 0: the default; 1: inline */
  randtensor_store_mode stores;  /* RANDTENSOR_STORES_AUTO */
  uint64_t task_elements;        /* 0: automatic */
  randtensor_parallel_for_fn parallel_for;  /* NULL: the default pool */
  void* parallel_for_context;
  randtensor_distribution distribution;     /* zero: bits */
  /* A region of a global tensor (randtensor/region.h): `rank` global sizes
   * and the region's start; the fill's sizes are the region's. NULL
   * global_sizes: the whole tensor. */
  const int64_t* region_global_sizes;
  const int64_t* region_start;
  /* Which element reads which stream words (randtensor/replay.h):
   * RANDTENSOR_ORDER_STREAM (0) or RANDTENSOR_ORDER_TORCH_CUDA, which
   * replays PyTorch's CUDA kernels on a GPU of gpu_sm_count SMs of
   * gpu_threads_per_sm threads (both 0: no limit) for a packed row-major
   * tensor; the state is then the generator's (randtensor_torch_cuda_state). */
  randtensor_element_order order;
  int32_t gpu_sm_count;
  int32_t gpu_threads_per_sm;
} randtensor_fill_options;

/* Report of what a fill did (randtensor::FillInfo). */
typedef struct randtensor_fill_info {
  const char* target; /* the SIMD target whose code ran ("" for an empty tensor) */
  int32_t lanes;
  uint32_t tasks;
  int32_t streaming;
  const char* strategy; /* how the layout was walked (randtensor::FillInfo::strategy) */
} randtensor_fill_info;

/* Fills a tensor in the buffer of `buffer_bytes` bytes that starts at `data`;
 * element (0, ..., 0) lies `byte_offset` bytes in (as DLPack's byte_offset).
 * `rank` (0 to 8) sizes and strides, in elements, signed; strides NULL means
 * packed row-major, and negative strides are a supported layout: they reach
 * before element (0, ..., 0), so byte_offset must leave room for them. Every
 * element must lie inside [data, data + buffer_bytes), or nothing is written.
 * in_state and out_state are six uint32 words (counter words 0-3, least
 * significant first, then key words 0-1); out_state may be NULL or equal to
 * in_state. options and info may be NULL. */
RANDTENSOR_API randtensor_status randtensor_fill(
    void* data, uint64_t buffer_bytes, uint64_t byte_offset, randtensor_dtype dtype,
    int32_t rank, const int64_t* sizes, const int64_t* strides, const uint32_t in_state[6],
    uint32_t out_state[6], const randtensor_fill_options* options);

/* randtensor_fill, also reporting what ran into *info (not written on error). */
RANDTENSOR_API randtensor_status randtensor_fill_ex(
    void* data, uint64_t buffer_bytes, uint64_t byte_offset, randtensor_dtype dtype,
    int32_t rank, const int64_t* sizes, const int64_t* strides, const uint32_t in_state[6],
    uint32_t out_state[6], const randtensor_fill_options* options, randtensor_fill_info* info);

/* PyTorch's CUDA generator state (seed, philox_offset) as six state words,
 * and back: the Philox offset of a state (counter words 2-3 zero). The
 * Philox offset is PyTorch's (torch.cuda's get_offset): 4 * the Philox
 * blocks used, a multiple of 4; options->element_offset counts elements. */
RANDTENSOR_API randtensor_status randtensor_torch_cuda_state(uint64_t seed, uint64_t philox_offset,
                                                             uint32_t state[6]);
RANDTENSOR_API randtensor_status randtensor_torch_cuda_offset(const uint32_t state[6],
                                                              uint64_t* philox_offset);

/* The minimum buffer_bytes for a layout (DirectML's rule, rounded up to 4). */
RANDTENSOR_API randtensor_status randtensor_min_buffer_bytes(randtensor_dtype dtype, int32_t rank,
                                                             const int64_t* sizes,
                                                             const int64_t* strides,
                                                             uint64_t* bytes);

/* --------------------------------------------------------------- targets */

typedef struct randtensor_target_info {
  const char* name; /* Highway's name (randtensor/targets.h): "AVX3", "NEON", ...; static */
  int32_t lanes;    /* 32-bit lanes; 0 for a scalable target (SVE) this CPU cannot run */
  int32_t supported;
  int32_t active;
} randtensor_target_info;

/* Compiled targets, widest first. */
RANDTENSOR_API int32_t randtensor_target_count(void);
RANDTENSOR_API randtensor_status randtensor_get_target(int32_t index,
                                                       randtensor_target_info* info);
/* Fails with the reason when RANDTENSOR_TARGET named a bad target. */
RANDTENSOR_API randtensor_status randtensor_get_active_target(randtensor_target_info* info);
/* Forces a target by name for the whole process ("auto" or NULL: the default). */
RANDTENSOR_API randtensor_status randtensor_set_target(const char* name);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* RANDTENSOR_RANDTENSOR_H_ */
