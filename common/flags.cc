#include "common/flags.h"

#include <stdexcept>

namespace fabric {

void FlagSet::AddString(std::string name, std::string placeholder, std::string help,
                        std::string default_value) {
  flags_.push_back({std::move(name), std::move(placeholder), std::move(help),
                    std::move(default_value), false, std::nullopt});
}

void FlagSet::AddBool(std::string name, std::string help, bool default_value) {
  flags_.push_back(
      {std::move(name), "", std::move(help), default_value ? "true" : "false", true, std::nullopt});
}

FlagSet::Flag* FlagSet::Find(std::string_view name) {
  for (auto& flag : flags_) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

const FlagSet::Flag& FlagSet::Get(std::string_view name) const {
  for (const auto& flag : flags_) {
    if (flag.name == name) return flag;
  }
  throw std::logic_error("flag --" + std::string(name) + " was never defined");
}

Status FlagSet::Parse(int argc, const char* const* argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) positional_.emplace_back(argv[i]);
      break;
    }
    if (arg.size() < 3 || arg.substr(0, 2) != "--") {
      positional_.emplace_back(arg);
      continue;
    }
    arg.remove_prefix(2);
    std::optional<std::string_view> inline_value;
    if (auto eq = arg.find('='); eq != std::string_view::npos) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    Flag* flag = Find(arg);
    if (flag == nullptr && arg.substr(0, 3) == "no-") {
      Flag* negated = Find(arg.substr(3));
      if (negated != nullptr && negated->is_bool) {
        if (inline_value) {
          return MakeError("flag --" + std::string(arg) + " takes no value");
        }
        negated->value = "false";
        continue;
      }
    }
    if (flag == nullptr) {
      return MakeError("unknown flag --" + std::string(arg) + " (see --help for the list)");
    }
    if (flag->is_bool) {
      if (!inline_value) {
        flag->value = "true";
      } else if (*inline_value == "true" || *inline_value == "false") {
        flag->value = std::string(*inline_value);
      } else {
        return MakeError("flag --" + flag->name + " expects true or false, got \"" +
                         std::string(*inline_value) + "\"");
      }
      continue;
    }
    if (inline_value) {
      flag->value = std::string(*inline_value);
    } else if (i + 1 < argc) {
      flag->value = argv[++i];
    } else {
      return MakeError("flag --" + flag->name + " needs a value (" + flag->placeholder + ")");
    }
  }
  return OkStatus();
}

std::string FlagSet::GetString(std::string_view name) const {
  const Flag& flag = Get(name);
  return flag.value.value_or(flag.default_value);
}

bool FlagSet::GetBool(std::string_view name) const { return GetString(name) == "true"; }

bool FlagSet::IsSet(std::string_view name) const { return Get(name).value.has_value(); }

std::string FlagSet::Usage() const {
  std::string out;
  for (const auto& flag : flags_) {
    std::string left = "  --";
    // Only flags that default to on need their negation spelled out.
    if (!flag.is_bool) {
      left += flag.name + "=" + flag.placeholder;
    } else {
      left += (flag.default_value == "true" ? "[no-]" : "") + flag.name;
    }
    out += left;
    out += left.size() < 34 ? std::string(34 - left.size(), ' ') : "\n" + std::string(34, ' ');
    out += flag.help;
    if (!flag.default_value.empty() && flag.default_value != "false") {
      out += " (default: " + flag.default_value + ")";
    }
    out += '\n';
  }
  return out;
}

}  // namespace fabric
