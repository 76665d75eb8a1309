#include "tools/cli_args.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace randtensor_cli {
namespace {

enum class NumberError { kNone, kSyntax, kNegative, kOverflow };

int DigitValue(char c, int base) {
  int v = -1;
  if (c >= '0' && c <= '9') v = c - '0';
  if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
  if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
  return v < base ? v : -1;
}

// Hand-written rather than strtoull: strtoull skips spaces, accepts a sign
// (and negates "-1" into 2^64 - 1) and reads "010" as octal; all of those
// would let a typo through as some other number.
NumberError ParseUnsigned(std::string_view text, uint64_t* value) {
  if (!text.empty() && text[0] == '-') return NumberError::kNegative;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return NumberError::kSyntax;
  uint64_t v = 0;
  bool overflow = false;
  for (char c : text) {
    const int digit = DigitValue(c, base);
    if (digit < 0) return NumberError::kSyntax;
    // Keep scanning after an overflow so "99999999999999999999x" is a syntax error.
    if (v > (UINT64_MAX - static_cast<uint64_t>(digit)) / static_cast<uint64_t>(base)) {
      overflow = true;
    }
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit);
  }
  if (overflow) return NumberError::kOverflow;
  *value = v;
  return NumberError::kNone;
}

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string Prefix(std::string_view flag) { return std::string(flag) + ": "; }

}  // namespace

void Fail(int exit_code, std::string message) { throw CliError{exit_code, std::move(message)}; }

uint64_t ParseNumber(std::string_view flag, std::string_view text, uint64_t max) {
  uint64_t value = 0;
  switch (ParseUnsigned(text, &value)) {
    case NumberError::kNone:
      break;
    case NumberError::kSyntax:
      Fail(kExitUsage, Prefix(flag) + Quote(text) + " is not an integer (decimal or 0x-hex)");
    case NumberError::kNegative:
      Fail(kExitUsage, Prefix(flag) + Quote(text) + " is negative");
    case NumberError::kOverflow:
      Fail(kExitUsage, Prefix(flag) + Quote(text) + " does not fit in 64 bits");
  }
  if (value > max) {
    Fail(kExitUsage,
         Prefix(flag) + Quote(text) + " is larger than the maximum " + std::to_string(max));
  }
  return value;
}

std::vector<uint64_t> ParseList(std::string_view flag, std::string_view text) {
  std::vector<uint64_t> values;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    uint64_t value = 0;
    switch (ParseUnsigned(item, &value)) {
      case NumberError::kNone:
        break;
      case NumberError::kSyntax:
        Fail(kExitUsage, Prefix(flag) + Quote(text) + " is not a list of integers");
      case NumberError::kNegative:
        Fail(kExitUsage, Prefix(flag) + Quote(text) + " has a negative value " + Quote(item));
      case NumberError::kOverflow:
        Fail(kExitUsage, Prefix(flag) + Quote(text) +
                             " has a value that does not fit in 64 "
                             "bits: " +
                             Quote(item));
    }
    values.push_back(value);
    if (comma == std::string_view::npos) return values;
    start = comma + 1;
  }
}

std::vector<uint32_t> ParseUint32List(std::string_view flag, std::string_view text) {
  const std::vector<uint64_t> wide = ParseList(flag, text);
  std::vector<uint32_t> values;
  values.reserve(wide.size());
  for (uint64_t v : wide) {
    if (v > UINT32_MAX) {
      Fail(kExitUsage,
           Prefix(flag) + std::to_string(v) + " does not fit in 32 bits (DirectML's UINT)");
    }
    values.push_back(static_cast<uint32_t>(v));
  }
  return values;
}

Options::Options(const std::vector<std::string>& args, const std::set<std::string>& known,
                 const std::set<std::string>& flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      help_ = true;
      continue;
    }
    if (arg.compare(0, 2, "--") != 0) Fail(kExitUsage, "unexpected argument " + Quote(arg));
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    if (flags.count(name) != 0) {
      if (eq != std::string::npos) Fail(kExitUsage, name + " takes no value");
      if (!values_.emplace(name, "").second) Fail(kExitUsage, name + " is given twice");
      continue;
    }
    if (known.count(name) == 0) Fail(kExitUsage, "unknown option " + Quote(name));
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < args.size() && args[i + 1].compare(0, 2, "--") != 0) {
      // A following "--word" is taken as the next option, not as this value:
      // "--out --seed 3" is far more likely a forgotten value than a file name.
      value = args[++i];
    }
    if (value.empty()) Fail(kExitUsage, name + " needs a value");
    if (!values_.emplace(name, value).second) Fail(kExitUsage, name + " is given twice");
  }
}

int64_t ParseInt64(std::string_view flag, std::string_view text) {
  const std::string s(text);
  const bool negative = !s.empty() && s[0] == '-';
  const std::string digits = negative ? s.substr(1) : s;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
    Fail(kExitUsage, Prefix(flag) + Quote(text) + " is not a decimal integer");
  }
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE) Fail(kExitUsage, Prefix(flag) + Quote(text) + " does not fit in 64 bits");
  return static_cast<int64_t>(value);
}

double ParseDouble(std::string_view flag, std::string_view text) {
  const std::string s(text);
  if (s.empty() || s.find_first_not_of("0123456789+-.eE") != std::string::npos) {
    Fail(kExitUsage, Prefix(flag) + Quote(text) + " is not a decimal number");
  }
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) {
    Fail(kExitUsage, Prefix(flag) + Quote(text) + " is not a decimal number");
  }
  if (!std::isfinite(value)) Fail(kExitUsage, Prefix(flag) + Quote(text) + " is not finite");
  return value;
}

}  // namespace randtensor_cli
