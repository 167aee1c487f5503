// HttpRouter: what each path of the exporter's web endpoint answers, shared
// by the civetweb listener (plain HTTP) and the TLS listener, so both enforce
// the same authentication and serve the same pages.
#pragma once

#include <prometheus/metric_family.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exporter/http/basic_auth.h"

namespace fabric {

// The families of one scrape, shared rather than copied: a large host's scrape is thousands of
// series.
using MetricFamilies = std::vector<prometheus::MetricFamily>;
using MetricsSource = std::function<std::shared_ptr<const MetricFamilies>()>;

struct WebRoutes {
  std::string telemetry_path = "/metrics";
  std::function<std::string()> landing_page;  // HTML for "/".
  std::function<bool()> ready;                // Drives /-/ready.
};

struct HttpRequest {
  std::string method;
  std::string path;  // Without the query string.
  std::string authorization;
  std::string accept_encoding;  // The Accept-Encoding header: /metrics is gzipped if it allows.
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::string extra_headers;  // "Name: value" lines joined by CRLF, no trailing CRLF.
};

const char* HttpReasonPhrase(int status);

class HttpRouter {
 public:
  HttpRouter(WebRoutes routes, MetricsSource metrics,
             std::unique_ptr<BasicAuthenticator> authenticator);

  // The response for `request`, or nullopt for an authenticated request of
  // the telemetry path when `serve_metrics` is false (for a listener that
  // serves it elsewhere).
  std::optional<HttpResponse> Handle(const HttpRequest& request, bool serve_metrics);

  const WebRoutes& routes() const { return routes_; }

 private:
  WebRoutes routes_;
  MetricsSource metrics_;
  std::unique_ptr<BasicAuthenticator> authenticator_;
};

}  // namespace fabric
