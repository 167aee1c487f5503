// The mixin's _config as JSON: every selector, threshold and `for:` the rule bundle uses.
// rules/generate writes it to rules/thresholds.json (a ctest keeps the committed file equal);
// the ladder page and `fabric_probe ladder` compile its numbers in at build time
// (exporter/ladder/rule_thresholds.cmake), so they judge by the bundle's thresholds, not a copy.
(import 'mixin/mixin.libsonnet')._config
