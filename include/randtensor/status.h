// Status: how every randtensor call reports failure.
//
// The library never throws across its API, never aborts and never prints: each
// call returns a Status with a code a program can branch on and a message a
// person can read, naming the offending field and its value, for example
// "OutputTensor.Strides[1] = 0 on a dimension of size 3: two elements would
// share an address". A failed call has written nothing.
#ifndef RANDTENSOR_STATUS_H_
#define RANDTENSOR_STATUS_H_

#include <cstdint>

#include "randtensor/export.h"

namespace randtensor {

enum class StatusCode : int32_t {
  kOk = 0,
  kInvalidArgument = 1,    // a field is out of its valid range or missing
  kUnsupported = 2,        // valid in principle, not supported (type, generator, dims)
  kOverflow = 3,           // sizes, strides or offsets overflow 64-bit arithmetic
  kOverlap = 4,            // two elements share an address, or output meets the state
  kBufferTooSmall = 5,     // a buffer or size field is below the layout's minimum
  kMisaligned = 6,         // a pointer or alignment field breaks the alignment rules
  kUnknownTarget = 7,      // a SIMD target name that was not compiled in
  kUnsupportedTarget = 8,  // a compiled SIMD target this CPU cannot run
};

// Stable lower-case name of a code ("invalid_argument", ...).
RANDTENSOR_API const char* StatusCodeName(StatusCode code) noexcept;

// [[nodiscard]]: a call whose Status is dropped is a compile warning; check it,
// or cast to void with a comment saying why the result does not matter. (It is
// on a declaration of its own: GCC accepts no standard attribute next to the
// __attribute__ that RANDTENSOR_API expands to.)
class [[nodiscard]] Status;

class RANDTENSOR_API Status {
 public:
  static constexpr int kMaxMessage = 240;

  Status() noexcept { message_[0] = '\0'; }  // OK
  // Copies only the used part of the message: an OK status (the common
  // case, on every call's path) costs two stores, inline.
  Status(const Status& other) noexcept { *this = other; }
  Status& operator=(const Status& other) noexcept {
    code_ = other.code_;
    if (other.message_[0] == '\0') {
      message_[0] = '\0';
    } else {
      CopyMessage(other);
    }
    return *this;
  }

  // printf-style message; truncated (never overflowing) at kMaxMessage - 1 bytes.
  static Status Error(StatusCode code, const char* format, ...) noexcept
#if defined(__GNUC__)
      __attribute__((format(printf, 2, 3)))
#endif
      ;

  bool ok() const noexcept { return code_ == StatusCode::kOk; }
  StatusCode code() const noexcept { return code_; }
  // "" when OK; otherwise the reason, naming the field and its value.
  const char* message() const noexcept { return message_; }

 private:
  void CopyMessage(const Status& other) noexcept;

  StatusCode code_ = StatusCode::kOk;
  char message_[kMaxMessage];
};

}  // namespace randtensor

#endif  // RANDTENSOR_STATUS_H_
