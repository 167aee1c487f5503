// WebServer: the exporter's HTTP endpoint. Plain HTTP: prometheus-cpp's
// Exposer owns the civetweb listener and its threads, and a civetweb
// begin_request hook answers every request, /metrics included, with the
// exporter's own exposition writer (exposition.h: prometheus-cpp's was a
// quarter of a scrape's CPU). With TLS in the web config: the exporter's own
// TlsServer (see tls_server.h for why), which also serves plain HTTP on
// [IPv6] addresses. Both answer through one HttpRouter.
#pragma once

#include <prometheus/exposer.h>

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "exporter/http/http_router.h"
#include "exporter/http/tls_server.h"
#include "exporter/http/web_config.h"

namespace fabric {

struct WebServerOptions {
  std::string listen_address;  // Prometheus style, e.g. "127.0.0.1:9877".
  int threads = 8;
  int request_timeout_ms = 30000;
  WebConfig web_config;  // TLS and basic auth (--web.config.file).
};

class WebServer {
 public:
  // Only one WebServer may exist per process: civetweb's request hook is a
  // plain function pointer, so it finds the router through a global.
  static Result<std::unique_ptr<WebServer>> Start(const WebServerOptions& options, WebRoutes routes,
                                                  MetricsSource metrics);
  ~WebServer();
  WebServer(const WebServer&) = delete;
  WebServer& operator=(const WebServer&) = delete;

  std::vector<int> ListeningPorts() const;
  HttpRouter& router() { return *router_; }

 private:
  WebServer() = default;

  std::unique_ptr<HttpRouter> router_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::unique_ptr<TlsServer> tls_server_;
};

}  // namespace fabric
