// The netdev collector's series from the ethtool backend: pause settings and
// frames, channel and ring limits, FEC mode and statistics (the pre-FEC
// error rate), interrupt coalescing and offload features. Pure emission:
// the collector reads each source, these write it.
#pragma once

#include "common/parse/ethtool_coalesce_parse.h"
#include "common/parse/ethtool_features_parse.h"
#include "common/parse/ethtool_fec_parse.h"
#include "common/parse/ethtool_parse.h"
#include "exporter/metrics/metric_sink.h"

namespace fabric {

// `dev` is {device}; `with_role` {device, role} for the families that carry
// the interface's role.
void EmitPause(const EthtoolPause& pause, const LabelPairs& dev, MetricSink& sink);
void EmitChannels(const EthtoolLimits& channels, const LabelPairs& dev, MetricSink& sink);
void EmitRings(const EthtoolLimits& rings, const LabelPairs& dev, MetricSink& sink);
void EmitFec(const EthtoolFec& fec, const LabelPairs& with_role, MetricSink& sink);
void EmitCoalesce(const EthtoolCoalesce& coalesce, const LabelPairs& with_role, MetricSink& sink);
void EmitFeatures(const EthtoolFeatures& features, const LabelPairs& with_role, MetricSink& sink);

}  // namespace fabric
