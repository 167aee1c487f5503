// WebServer: prometheus-cpp's Exposer serves the telemetry path; a civetweb
// begin_request hook serves the landing page and the health endpoints on the
// same listener (the Exposer has no API for extra handlers).
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"

namespace fabric {

struct WebRoutes {
  std::string telemetry_path = "/metrics";
  std::function<std::string()> landing_page;  // HTML for "/".
  std::function<bool()> ready;                // Drives /-/ready.
};

struct WebServerOptions {
  std::string listen_address;  // Prometheus style, e.g. "127.0.0.1:9877".
  int threads = 8;
  int request_timeout_ms = 30000;
};

class WebServer {
 public:
  // Only one WebServer may exist per process: civetweb's request hook is a
  // plain function pointer, so it finds the routes through a global.
  static Result<std::unique_ptr<WebServer>> Start(const WebServerOptions& options, WebRoutes routes,
                                                  std::shared_ptr<prometheus::Collectable> metrics);
  ~WebServer();
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  std::vector<int> ListeningPorts() const { return exposer_->GetListeningPorts(); }
  const WebRoutes& routes() const { return routes_; }

 private:
  WebServer() = default;

  WebRoutes routes_;
  std::shared_ptr<prometheus::Collectable> metrics_;
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace fabric
