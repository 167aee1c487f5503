// FlagSet: command-line flags in the Prometheus exporter style
// (--web.listen-address=ADDR or --web.listen-address ADDR, --flag / --no-flag
// for booleans), with a generated, complete --help.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

class FlagSet {
 public:
  void AddString(std::string name, std::string placeholder, std::string help,
                 std::string default_value);
  void AddBool(std::string name, std::string help, bool default_value);

  // Parses argv[first..]; positional arguments are collected, not rejected.
  // Errors name the offending flag and say what to do.
  Status Parse(int argc, const char* const* argv, int first = 1);

  std::string GetString(std::string_view name) const;
  bool GetBool(std::string_view name) const;
  // True when the flag was given on the command line (so it overrides the
  // config file); false when it only has its default.
  bool IsSet(std::string_view name) const;
  const std::vector<std::string>& positional() const { return positional_; }

  // One entry per flag, in the order they were added.
  std::string Usage() const;

 private:
  struct Flag {
    std::string name;
    std::string placeholder;
    std::string help;
    std::string default_value;
    bool is_bool = false;
    std::optional<std::string> value;
  };
  Flag* Find(std::string_view name);
  const Flag& Get(std::string_view name) const;

  std::vector<Flag> flags_;
  std::vector<std::string> positional_;
};

}  // namespace fabric
