// The dashboards, one JSON file each: dashboards/generate writes them with
// `jsonnet -m` (a ctest keeps the committed files equal to this).
{
  'fabric-fleet.json': import 'src/fleet.libsonnet',
  'fabric-ladder.json': import 'src/ladder.libsonnet',
  'fabric-node.json': import 'src/node.libsonnet',
  'fabric-probes.json': import 'src/probes.libsonnet',
  'fabric-transfers.json': import 'src/transfers.libsonnet',
}
