#include "exporter/http/http_router.h"

#include <exception>

#include "exporter/metrics/exposition.h"

namespace fabric {

const char* HttpReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

HttpRouter::HttpRouter(WebRoutes routes, MetricsSource metrics,
                       std::unique_ptr<BasicAuthenticator> authenticator)
    : routes_(std::move(routes)),
      metrics_(std::move(metrics)),
      authenticator_(std::move(authenticator)) {}

std::optional<HttpResponse> HttpRouter::Handle(const HttpRequest& request, bool serve_metrics) {
  HttpResponse response;
  // Every path, the telemetry path included, is behind basic auth when the
  // web config has users.
  if (authenticator_->enabled() && !authenticator_->Check(request.authorization)) {
    response.status = 401;
    response.body = "Unauthorized\n";
    response.extra_headers = "WWW-Authenticate: Basic realm=\"fabric_exporter\"";
    return response;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    response.status = 405;
    response.body = "use GET\n";
    response.extra_headers = "Allow: GET, HEAD";
    return response;
  }
  try {
    if (request.path == routes_.telemetry_path) {
      if (!serve_metrics) return std::nullopt;
      response.content_type = "text/plain; version=0.0.4; charset=utf-8";
      response.body = WriteTextExposition(*metrics_());
      if (AcceptsGzip(request.accept_encoding)) {
        // Uncompressed if zlib fails: still a valid answer.
        if (auto gzipped = GzipCompress(response.body); gzipped.ok()) {
          response.body = std::move(*gzipped);
          response.extra_headers = "Content-Encoding: gzip";
        }
      }
    } else if (request.path == "/") {
      response.content_type = "text/html; charset=utf-8";
      response.body = routes_.landing_page ? routes_.landing_page() : "";
    } else if (request.path == "/-/healthy") {
      response.body = "Healthy\n";
    } else if (request.path == "/-/ready") {
      bool ready = !routes_.ready || routes_.ready();
      response.status = ready ? 200 : 503;
      response.body = ready ? "Ready\n" : "Not ready\n";
    } else {
      response.status = 404;
      response.body = "not found; try / or " + routes_.telemetry_path + "\n";
    }
  } catch (const std::exception& e) {
    // Nothing may throw into the web servers' threads.
    response = HttpResponse{};
    response.status = 500;
    response.body = std::string("internal error: ") + e.what() + "\n";
  }
  return response;
}

}  // namespace fabric
