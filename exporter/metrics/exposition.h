// The Prometheus text exposition (format 0.0.4) of a scrape, and its gzip
// encoding. Written here rather than by prometheus-cpp's TextSerializer,
// which formats every value through an ostream (locale, printf) and was
// a quarter of a scrape's CPU on a large host; the output is byte for byte
// what TextSerializer 1.0 writes (tests/unit/exposition_test.cc checks it),
// except that a newline in a label value is written as \n as the format
// asks (TextSerializer 1.0.1 writes a backslash and a raw newline).
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace fabric {

std::string WriteTextExposition(const std::vector<prometheus::MetricFamily>& families);

// True when an Accept-Encoding header value accepts gzip (a "gzip" coding,
// or "*", without q=0).
bool AcceptsGzip(std::string_view accept_encoding);

// `data` as a gzip member (RFC 1952). zlib's fastest level: on a scrape's
// repetitive text it is about a third of the default level's CPU for a
// body a fifth larger.
Result<std::string> GzipCompress(std::string_view data);

}  // namespace fabric
