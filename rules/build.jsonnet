// The rule file's content as JSON; rules/generate writes it as YAML to
// rules/fabric-ladder.rules.yml (a ctest keeps the committed file equal).
local mixin = import 'mixin/mixin.libsonnet';
{ groups: mixin.prometheusRules.groups + mixin.prometheusAlerts.groups }
