#include "randtensor/status.h"

#include <cstdarg>
#include <cstdio>

namespace randtensor {

const char* StatusCodeName(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kOverflow: return "overflow";
    case StatusCode::kOverlap: return "overlap";
    case StatusCode::kBufferTooSmall: return "buffer_too_small";
    case StatusCode::kMisaligned: return "misaligned";
    case StatusCode::kUnknownTarget: return "unknown_target";
    case StatusCode::kUnsupportedTarget: return "unsupported_target";
  }
  return "unknown_status";
}

void Status::CopyMessage(const Status& other) noexcept {
  int i = 0;
  for (; i < kMaxMessage - 1 && other.message_[i] != '\0'; ++i) message_[i] = other.message_[i];
  message_[i] = '\0';
}

Status Status::Error(StatusCode code, const char* format, ...) noexcept {
  Status s;
  s.code_ = code;
  va_list args;
  va_start(args, format);
  std::vsnprintf(s.message_, sizeof(s.message_), format, args);
  va_end(args);
  return s;
}

}  // namespace randtensor
