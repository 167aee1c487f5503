# Writes OUTPUT, a C++ header with every number of the rule bundle's _config
# (INPUT: rules/thresholds.json, which rules/generate renders from
# rules/mixin/config.libsonnet), so the ladder page and `fabric_probe ladder`
# judge shapes by the thresholds the alerts use, with no copy to drift and no
# jsonnet at build time. Run as `cmake -DINPUT=... -DOUTPUT=... -P` by the
# custom command in exporter/ladder/CMakeLists.txt: pcieLineRatio becomes
# fabric::ladder::rule_config::kPcieLineRatio, transferWindow ('5m')
# kTransferWindowSeconds (300).
file(READ "${INPUT}" json)
string(JSON count LENGTH "${json}")
math(EXPR last "${count} - 1")
set(constants "")
set(strings "")
set(table "")
foreach(i RANGE ${last})
  string(JSON key MEMBER "${json}" ${i})
  string(JSON type TYPE "${json}" "${key}")
  string(JSON value GET "${json}" "${key}")
  string(SUBSTRING "${key}" 0 1 first)
  string(SUBSTRING "${key}" 1 -1 rest)
  string(TOUPPER "${first}" first)
  # A Prometheus duration of one unit ('5m', '15m', '1h') becomes seconds: transferWindow is
  # kTransferWindowSeconds. Selectors and application lists are the rules' alone.
  if(type STREQUAL "STRING" AND value MATCHES "^([0-9]+)(s|m|h|d)$")
    set(unit_s 1)
    if(CMAKE_MATCH_2 STREQUAL "m")
      set(unit_s 60)
    elseif(CMAKE_MATCH_2 STREQUAL "h")
      set(unit_s 3600)
    elseif(CMAKE_MATCH_2 STREQUAL "d")
      set(unit_s 86400)
    endif()
    math(EXPR value "${CMAKE_MATCH_1} * ${unit_s}")
    set(rest "${rest}Seconds")
    set(key "${key}Seconds")
  elseif(type STREQUAL "STRING" AND key MATCHES "Applications$" AND value MATCHES "^[a-z0-9_|]+$")
    # The application lists the shapes name ('ssh|scp|sftp'), as the rules' regex matches them.
    string(APPEND strings "inline constexpr std::string_view k${first}${rest} = \"${value}\";\n")
    continue()
  elseif(NOT type STREQUAL "NUMBER")
    continue()
  endif()
  string(APPEND constants "inline constexpr double k${first}${rest} = ${value};\n")
  string(APPEND table "    {\"${key}\", k${first}${rest}},\n")
endforeach()
file(WRITE "${OUTPUT}.tmp"
"// GENERATED at build time by exporter/ladder/rule_thresholds.cmake from
// rules/thresholds.json (rules/generate renders the rule mixin's _config there):
// edit rules/mixin/*.libsonnet and run rules/generate, not this file.
#pragma once

#include <string_view>
#include <utility>

namespace fabric::ladder::rule_config {

${constants}
${strings}
// Every number above by its _config key (for the test that compares them with the file).
inline constexpr std::pair<std::string_view, double> kAll[] = {
${table}};

}  // namespace fabric::ladder::rule_config
")
# Rewritten only when it changed, so an unrelated rules/generate rebuilds nothing.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
