// Argument parsing for the randtensor command-line tool: strict numbers, lists
// of numbers, and one command's --name VALUE options.
//
// Scripts depend on the tool, so parsing is strict: a number is the whole
// argument, decimal or 0x-hex, never signed, never with spaces or trailing
// junk, never silently wrapped. Every rejection is a CliError whose message
// names the flag and the text it got.
#ifndef RANDTENSOR_TOOLS_CLI_ARGS_H_
#define RANDTENSOR_TOOLS_CLI_ARGS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace randtensor_cli {

// Exit statuses of the tool.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the arguments were fine; the system was not
inline constexpr int kExitUsage = 2;    // bad argument or invalid descriptor

// Thrown to end the program: main() prints "randtensor: <message>" on one line
// of stderr and exits with `exit_code`. Nothing has been printed on stdout yet.
struct CliError {
  int exit_code;
  std::string message;
};

[[noreturn]] void Fail(int exit_code, std::string message);

// The value of `text` as an unsigned integer no larger than `max`. `flag`
// names the option in the error ("--seed").
uint64_t ParseNumber(std::string_view flag, std::string_view text, uint64_t max);

// A comma-separated list of unsigned 64-bit integers ("3,5,0x10"), at least
// one, no empty items.
std::vector<uint64_t> ParseList(std::string_view flag, std::string_view text);

// ParseList, each value also required to fit in 32 bits (DirectML's UINT).
std::vector<uint32_t> ParseUint32List(std::string_view flag, std::string_view text);

// A signed decimal integer ("-5", "1000"), the whole argument, in int64.
int64_t ParseInt64(std::string_view flag, std::string_view text);

// A decimal floating-point number ("0.5", "-3.7", "1e-30"), the whole
// argument; infinities and NaN are refused here (distributions need finite
// parameters).
double ParseDouble(std::string_view flag, std::string_view text);

// The options of one command. Every option in `known` takes a value, given as
// "--name VALUE" or "--name=VALUE", at most once; every one in `flags` takes
// none ("--quiet"), at most once; "-h" / "--help" anywhere asks for usage.
// Anything else (an unknown option, a missing or empty value, a value given
// to a flag, a repeated option, a stray word) is a usage error.
class Options {
 public:
  Options(const std::vector<std::string>& args, const std::set<std::string>& known,
          const std::set<std::string>& flags = {});

  bool help() const { return help_; }
  // Whether option or flag `name` was given.
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  // The value of option `name`; Has(name) must be true.
  const std::string& Get(const std::string& name) const { return values_.at(name); }

 private:
  std::map<std::string, std::string> values_;
  bool help_ = false;
};

}  // namespace randtensor_cli

#endif  // RANDTENSOR_TOOLS_CLI_ARGS_H_
