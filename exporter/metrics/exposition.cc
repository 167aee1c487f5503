#include "exporter/metrics/exposition.h"

#include <prometheus/text_serializer.h>
#include <zlib.h>

#include <atomic>
#include <charconv>
#include <cmath>
#include <limits>

#include "common/strings.h"

namespace fabric {
namespace {

// As TextSerializer 1.0: 16 significant digits (printf's %.16g), "Nan",
// "+Inf", "-Inf".
void AppendValue(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "Nan";
  } else if (std::isinf(value)) {
    out += value < 0 ? "-Inf" : "+Inf";
  } else {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general,
                                   std::numeric_limits<double>::max_digits10 - 1);
    out.append(buf, end);
  }
}

void AppendLabelValue(std::string& out, const std::string& value) {
  for (char c : value) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
}

void AppendSample(std::string& out, const prometheus::MetricFamily& family,
                  const prometheus::ClientMetric& metric, double value) {
  out += family.name;
  if (!metric.label.empty()) {
    out += '{';
    bool first = true;
    for (const auto& label : metric.label) {
      if (!first) out += ',';
      first = false;
      out += label.name;
      out += "=\"";
      AppendLabelValue(out, label.value);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  AppendValue(out, value);
  if (metric.timestamp_ms != 0) {
    out += ' ';
    out += std::to_string(metric.timestamp_ms);
  }
  out += '\n';
}

bool IsGzipCoding(std::string_view coding) {
  constexpr std::string_view kGzip = "gzip";
  if (coding.size() != kGzip.size()) return false;
  for (size_t i = 0; i < kGzip.size(); ++i) {
    if ((coding[i] | 0x20) != kGzip[i]) return false;
  }
  return true;
}

}  // namespace

std::string WriteTextExposition(const std::vector<prometheus::MetricFamily>& families) {
  // Sized like the last exposition: growing a large host's (hundreds of KiB) by doubling copied
  // it five times, each step a fresh mmap to fault in.
  static std::atomic<size_t> last_size{0};
  std::string out;
  out.reserve(last_size.load(std::memory_order_relaxed) * 9 / 8);
  for (const auto& family : families) {
    const char* type = nullptr;
    switch (family.type) {
      case prometheus::MetricType::Counter:
        type = "counter";
        break;
      case prometheus::MetricType::Gauge:
        type = "gauge";
        break;
      case prometheus::MetricType::Untyped:
        type = "untyped";
        break;
      default:
        break;
    }
    if (type == nullptr) {
      // Histograms (the latency mesh's) and summaries keep prometheus-cpp's
      // own writer.
      out += prometheus::TextSerializer().Serialize({family});
      continue;
    }
    if (!family.help.empty()) {
      out += "# HELP ";
      out += family.name;
      out += ' ';
      out += family.help;
      out += '\n';
    }
    out += "# TYPE ";
    out += family.name;
    out += ' ';
    out += type;
    out += '\n';
    for (const auto& metric : family.metric) {
      double value = family.type == prometheus::MetricType::Counter ? metric.counter.value
                     : family.type == prometheus::MetricType::Gauge ? metric.gauge.value
                                                                    : metric.untyped.value;
      AppendSample(out, family, metric, value);
    }
  }
  last_size.store(out.size(), std::memory_order_relaxed);
  return out;
}

bool AcceptsGzip(std::string_view accept_encoding) {
  while (!accept_encoding.empty()) {
    size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding.remove_prefix(comma == std::string_view::npos ? accept_encoding.size()
                                                                  : comma + 1);
    size_t semicolon = item.find(';');
    std::string_view coding = TrimSpace(item.substr(0, semicolon));
    if (!IsGzipCoding(coding) && coding != "*") continue;
    if (semicolon == std::string_view::npos) return true;
    std::string_view param = TrimSpace(item.substr(semicolon + 1));
    if (param.substr(0, 2) != "q=" && param.substr(0, 2) != "Q=") return true;
    // q=0, q=0.0, q=0.000 refuse the coding; any other weight accepts it.
    std::string_view q = param.substr(2);
    if (q.find_first_not_of("0.") != std::string_view::npos) return true;
  }
  return false;
}

Result<std::string> GzipCompress(std::string_view data) {
  z_stream zs{};
  constexpr int kGzipWindow = 16 + MAX_WBITS;  // 16: gzip header and trailer.
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return MakeError("gzip: deflateInit2 failed");
  }
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  // Through a small chunk: the body compresses about 12:1, so an output buffer of
  // deflateBound() (larger than the input) was mostly zero-filled and never used.
  std::string out;
  char chunk[16 * 1024];
  int rc;
  do {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof chunk;
    rc = deflate(&zs, Z_FINISH);
    out.append(chunk, sizeof chunk - zs.avail_out);
  } while (rc == Z_OK);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END)
    return MakeError("gzip: deflate did not finish (" + std::to_string(rc) + ")");
  return out;
}

}  // namespace fabric
