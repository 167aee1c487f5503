// A small Grafana dashboard builder for the fabric-ladder dashboards (no
// grafonnet in Debian). Only what these dashboards use: panels are flowed
// left to right into the 24-column grid, each gets an id, refIds are A, B, ...
//
// Hidden fields (`::`) never reach the JSON; the dashboards tests read them
// through jsonnet:
//   target.noDataOnFixtures:: 'why'  this query returns no series on the test
//                                     fleet (tests/dashboards), with the reason.
//   target.fleet:: true               the query compares against the whole job,
//                                     so it does not select $instance.
local ds = { type: 'prometheus', uid: '${datasource}' };

local withRefIds(targets) = [
  targets[i] { refId: std.char(std.codepoint('A') + i) }
  for i in std.range(0, std.length(targets) - 1)
];

// Positions panels: rows span the width, others fill rows of 24 columns.
local layout(panels) =
  local step(state, p) =
    local w = if p.type == 'row' then 24 else p.w;
    local h = if p.type == 'row' then 1 else p.h;
    local wrap = state.x + w > 24 || p.type == 'row';
    local x = if wrap then 0 else state.x;
    local y = if wrap then state.y + state.rowH else state.y;
    {
      x: if p.type == 'row' then 0 else x + w,
      y: if p.type == 'row' then y + 1 else y,
      rowH: if p.type == 'row' then 0 else std.max(if wrap then 0 else state.rowH, h),
      out: state.out + [p { id: std.length(state.out) + 1, gridPos: { x: x, y: y, w: w, h: h } }],
    };
  std.foldl(step, panels, { x: 0, y: 0, rowH: 0, out: [] }).out;

{
  datasource:: ds,

  // A PromQL query. legend: Grafana legend format; instant: one value per
  // series (tables, bar gauges, stats); table: one row per series.
  target(expr, legend='__auto', instant=false, table=false):: {
    datasource: ds,
    expr: std.stripChars(expr, '\n '),
    legendFormat: legend,
    range: !instant,
    instant: instant,
    [if table then 'format']: 'table',
  },

  row(title):: {
    type: 'row',
    title: title,
    collapsed: false,
    panels: [],
  },

  local panel(type, title, description, targets, unit, w, h) = {
    type: type,
    title: title,
    description: description,
    datasource: ds,
    targets: withRefIds(targets),
    fieldConfig: { defaults: { unit: unit }, overrides: [] },
    options: {},
    w:: w,
    h:: h,
  },

  // Thresholds: steps as [[value or null, color], ...].
  thresholds(steps):: {
    fieldConfig+: { defaults+: { thresholds: {
      mode: 'absolute',
      steps: [{ value: s[0], color: s[1] } for s in steps],
    } } },
  },

  minMax(min, max):: { fieldConfig+: { defaults+: { min: min, max: max } } },

  // Colours every series of query refId in one colour (the binding layer).
  highlight(refId, color):: { fieldConfig+: { overrides+: [{
    matcher: { id: 'byFrameRefID', options: refId },
    properties: [{ id: 'color', value: { mode: 'fixed', fixedColor: color } }],
  }] } },

  // A field (table column) in another unit than the panel's.
  fieldUnit(name, unit):: { fieldConfig+: { overrides+: [{
    matcher: { id: 'byName', options: name },
    properties: [{ id: 'unit', value: unit }],
  }] } },

  // Value mappings, e.g. { '0': ['ok', 'green'], '1': ['flagged', 'red'] }.
  mappings(m):: { fieldConfig+: { defaults+: { mappings: [{
    local keys = std.objectFields(m),
    type: 'value',
    options: {
      [keys[i]]: { text: m[keys[i]][0], color: m[keys[i]][1], index: i }
      for i in std.range(0, std.length(keys) - 1)
    },
  }] } } },

  timeseries(title, description, targets, unit, w=12, h=8)::
    panel('timeseries', title, description, targets, unit, w, h) {
      options: {
        legend: { displayMode: 'table', placement: 'bottom', calcs: ['lastNotNull', 'max'] },
        tooltip: { mode: 'multi', sort: 'desc' },
      },
    },

  barGauge(title, description, targets, unit, w=12, h=8)::
    panel('bargauge', title, description, targets, unit, w, h) {
      options: {
        orientation: 'horizontal',
        displayMode: 'gradient',
        showUnfilled: true,
        reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      },
    },

  stat(title, description, targets, unit, w=6, h=4)::
    panel('stat', title, description, targets, unit, w, h) {
      options: {
        colorMode: 'background',
        graphMode: 'none',
        textMode: 'value_and_name',
        reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      },
    },

  // A table of instant queries; transformations is a list of Grafana
  // transformations (merge, organize, groupingToMatrix, ...).
  table(title, description, targets, unit, transformations=[], w=24, h=8)::
    panel('table', title, description, targets, unit, w, h) {
      options: { showHeader: true, cellHeight: 'sm' },
      fieldConfig+: { defaults+: { custom: { cellOptions: { type: 'color-text' } } } },
      transformations: transformations,
    },

  // Hides label columns and renames the rest: organize({ Time: null, 'Value #A': 'current' }).
  organize(renames):: {
    id: 'organize',
    options: {
      excludeByName: { [k]: true for k in std.objectFields(renames) if renames[k] == null },
      renameByName: { [k]: renames[k] for k in std.objectFields(renames) if renames[k] != null },
    },
  },

  // One table row per label set out of several instant queries (Value #A,
  // Value #B, ...). __name__ and job go first: recording rules and functions
  // drop them, and a column only some frames have would split the rows.
  joinTables(renames):: [
    { id: 'organize', options: { excludeByName: { Time: true, __name__: true, job: true } } },
    { id: 'merge', options: {} },
    $.organize(renames),
  ],

  // A multi-value query variable with "All" (matching any value: `.+`).
  queryVariable(name, label, query):: {
    name: name,
    label: label,
    type: 'query',
    datasource: ds,
    definition: query,
    query: { query: query, refId: 'PrometheusVariableQueryEditor-VariableQuery' },
    refresh: 2,
    sort: 1,
    multi: true,
    includeAll: true,
    allValue: '.+',
    current: { selected: true, text: ['All'], value: ['$__all'] },
    hide: 0,
  },

  local datasourceVariable = {
    name: 'datasource',
    label: 'Data source',
    type: 'datasource',
    query: 'prometheus',
    current: {},
    hide: 0,
    refresh: 1,
    regex: '',
  },

  // A dashboard of the fabric-ladder set: shared tag, links to the others,
  // the datasource/job/instance variables first.
  dashboard(uid, title, description, panels, extraVariables=[], annotations=[]):: {
    uid: uid,
    title: title,
    description: description,
    tags: ['fabric-ladder'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '1m',
    time: { from: 'now-6h', to: 'now' },
    timezone: 'browser',
    links: [{
      title: 'fabric-ladder',
      type: 'dashboards',
      tags: ['fabric-ladder'],
      asDropdown: true,
      includeVars: true,
      keepTime: true,
      icon: 'external link',
      targetBlank: false,
      tooltip: '',
      url: '',
    }],
    templating: { list: [
      datasourceVariable,
      $.queryVariable('job', 'Job', 'label_values(fabric_exporter_build_info, job)'),
      $.queryVariable('instance', 'Instance', 'label_values(fabric_exporter_build_info{job=~"$job"}, instance)'),
    ] + extraVariables },
    annotations: { list: [{
      builtIn: 1,
      datasource: { type: 'grafana', uid: '-- Grafana --' },
      enable: true,
      hide: true,
      iconColor: 'rgba(0, 211, 255, 1)',
      name: 'Annotations & Alerts',
      type: 'dashboard',
    }] + annotations },
    panels: layout(panels),
  },

  // A Prometheus annotation: one event per firing series of expr.
  annotation(name, expr, title, text, color='orange'):: {
    name: name,
    datasource: ds,
    enable: true,
    iconColor: color,
    expr: expr,
    step: '1m',
    titleFormat: title,
    textFormat: text,
    tagKeys: 'alertname,severity',
    useValueForTime: false,
  },
}
