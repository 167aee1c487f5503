// Renders rules/fabric-ladder.rules.yml (run by rules/generate; a ctest
// keeps the committed file equal to this output).
local mixin = import 'mixin/mixin.libsonnet';
std.manifestYamlDoc(
  { groups: mixin.prometheusRules.groups + mixin.prometheusAlerts.groups },
  indent_array_in_object=true,
  quote_keys=false,
)
