// Selectors and names every fabric-ladder dashboard shares.
local mixin = import '../../rules/mixin/mixin.libsonnet';
{
  mixin:: mixin,
  config:: mixin._config,
  // Raw exporter series carry job and instance.
  sel:: 'job=~"$job", instance=~"$instance"',
  // Recording rules aggregate job away and keep instance.
  rsel:: 'instance=~"$instance"',
  // Alert names of the rule groups a dashboard shows (from the mixin, so a new
  // drift alert appears on the dashboard without editing it).
  alertNames(groups):: std.join('|', [
    r.alert
    for g in mixin.prometheusAlerts.groups
    if std.member(groups, g.name)
    for r in g.rules
  ]),
}
