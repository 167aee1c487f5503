#include "exporter/http/tls_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "common/strings.h"
#include "common/thread_name.h"
#include "exporter/http/tls_context.h"

namespace fabric {
namespace {

constexpr size_t kMaxRequestHead = 16 * 1024;
constexpr int kIoTimeoutSeconds = 10;

struct SslDeleter {
  void operator()(SSL* ssl) const { SSL_free(ssl); }
};

Result<UniqueFd> Listen(const std::string& address, int* port_out) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos) return MakeError("listen address needs a port");
  std::string host = address.substr(0, colon);
  auto port = ParseUint64(address.substr(colon + 1));
  if (!port || *port > 65535) return MakeError("bad port in " + address);
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family = AF_INET;
  if (!host.empty() && host.front() == '[') {
    family = AF_INET6;
    auto* sa6 = reinterpret_cast<sockaddr_in6*>(&storage);
    sa6->sin6_family = AF_INET6;
    sa6->sin6_port = htons(static_cast<uint16_t>(*port));
    std::string inner = host.substr(1, host.size() - 2);
    if (inet_pton(AF_INET6, inner.c_str(), &sa6->sin6_addr) != 1) {
      return MakeError("bad IPv6 address in " + address);
    }
    length = sizeof(sockaddr_in6);
  } else {
    auto* sa = reinterpret_cast<sockaddr_in*>(&storage);
    sa->sin_family = AF_INET;
    sa->sin_port = htons(static_cast<uint16_t>(*port));
    if (host.empty()) {
      sa->sin_addr.s_addr = htonl(INADDR_ANY);
    } else if (inet_pton(AF_INET, host.c_str(), &sa->sin_addr) != 1) {
      return MakeError("bad IPv4 address in " + address);
    }
    length = sizeof(sockaddr_in);
  }
  UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return MakeError(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&storage), length) != 0 ||
      ::listen(fd.get(), 64) != 0) {
    return MakeError(std::string(std::strerror(errno)));
  }
  sockaddr_storage bound{};
  socklen_t bound_length = sizeof bound;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &bound_length);
  *port_out = ntohs(family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                       : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return fd;
}

}  // namespace

std::optional<HttpRequest> ParseRequestHead(std::string_view head) {
  // RFC 9112 2.2: a bare CR (one not ending a line) makes the message
  // invalid; so does a NUL. Rejected whole rather than read around.
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '\0' || (head[i] == '\r' && (i + 1 == head.size() || head[i + 1] != '\n'))) {
      return std::nullopt;
    }
  }
  auto lines = SplitLines(head);
  if (lines.empty()) return std::nullopt;
  auto first = SplitFields(lines[0]);
  if (first.size() != 3 || !StartsWith(first[2], "HTTP/1.")) return std::nullopt;
  HttpRequest request;
  request.method = std::string(first[0]);
  std::string_view target = first[1];
  request.path = std::string(target.substr(0, target.find('?')));
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = TrimSpace(lines[i]);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name(line.substr(0, colon));
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == "authorization") {
      request.authorization = std::string(TrimSpace(line.substr(colon + 1)));
    } else if (name == "accept-encoding") {
      request.accept_encoding = std::string(TrimSpace(line.substr(colon + 1)));
    }
  }
  return request;
}

Result<std::unique_ptr<TlsServer>> TlsServer::Start(const std::string& listen_address,
                                                    const TlsServerConfig* tls, int max_connections,
                                                    HttpRouter* router) {
  std::unique_ptr<TlsServer> server(new TlsServer());
  if (tls != nullptr) {
    server->ctx_.reset(SSL_CTX_new(TLS_server_method()));
    if (!server->ctx_) return MakeError("TLS set-up failed: SSL_CTX_new");
    if (auto status = ConfigureTlsContext(server->ctx_.get(), *tls); !status.ok()) {
      return MakeError("TLS set-up failed: " + status.error().message);
    }
  }
  auto listener = Listen(listen_address, &server->port_);
  if (!listener.ok()) {
    return MakeError("cannot listen on " + listen_address + ": " + listener.error().message);
  }
  server->listener_ = std::move(*listener);
  server->stop_event_.Reset(::eventfd(0, EFD_CLOEXEC));
  server->max_connections_ = max_connections;
  server->router_ = router;
  server->accept_thread_ = std::thread([s = server.get()] {
    NameThisThread("web-accept");
    s->AcceptLoop();
  });
  return server;
}

TlsServer::~TlsServer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  idle_.notify_all();  // An accept loop waiting for a free slot.
  uint64_t one = 1;
  if (stop_event_.valid() && ::write(stop_event_.get(), &one, sizeof one) < 0) {
    log::Warn("cannot signal the TLS listener to stop", {{"err", std::strerror(errno)}});
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  // Connection threads are detached; wait until the last one has finished
  // with the router and the SSL context.
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return active_ == 0; });
}

void TlsServer::AcceptLoop() {
  while (true) {
    {
      // At the limit, further connections wait in the listen backlog (as civetweb queues
      // them) until a connection thread finishes, rather than being accepted and dropped.
      std::unique_lock<std::mutex> lock(mutex_);
      idle_.wait(lock, [this] { return active_ < max_connections_ || stopping_; });
      if (stopping_) return;
    }
    pollfd fds[2] = {{listener_.get(), POLLIN, 0}, {stop_event_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    UniqueFd client(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!client.valid()) continue;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++active_;  // Only this thread adds, so still below the limit.
    }
    std::thread([this, fd = std::move(client)]() mutable {
      NameThisThread("web-worker");
      Serve(std::move(fd));
      std::lock_guard<std::mutex> lock(mutex_);
      --active_;
      idle_.notify_all();
    }).detach();
  }
}

void TlsServer::Serve(UniqueFd client) {
  timeval timeout{kIoTimeoutSeconds, 0};
  ::setsockopt(client.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(client.get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  std::unique_ptr<SSL, SslDeleter> ssl;
  if (ctx_) {
    ssl.reset(SSL_new(ctx_.get()));
    if (!ssl || SSL_set_fd(ssl.get(), client.get()) != 1) return;
    if (SSL_accept(ssl.get()) != 1) return;  // Handshake refused: bad client cert, plain HTTP...
  }
  // Both return the bytes moved, <= 0 on error, timeout or end of stream.
  auto read = [&](char* data, int size) {
    if (ssl) return SSL_read(ssl.get(), data, size);
    return static_cast<int>(::recv(client.get(), data, static_cast<size_t>(size), 0));
  };
  auto write = [&](const char* data, int size) {
    if (ssl) return SSL_write(ssl.get(), data, size);
    return static_cast<int>(::send(client.get(), data, static_cast<size_t>(size), MSG_NOSIGNAL));
  };
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    int n = read(buf, sizeof buf);
    if (n <= 0) return;
    head.append(buf, static_cast<size_t>(n));
    if (head.size() > kMaxRequestHead) return;
  }
  auto request = ParseRequestHead(head.substr(0, head.find("\r\n\r\n")));
  HttpResponse response;
  if (!request) {
    response.status = 400;
    response.body = "malformed request\n";
  } else {
    response = *router_->Handle(*request, /*serve_metrics=*/true);
  }
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " +
                    HttpReasonPhrase(response.status) +
                    "\r\nContent-Type: " + response.content_type +
                    "\r\nContent-Length: " + std::to_string(response.body.size()) +
                    "\r\nCache-Control: no-store\r\nConnection: close\r\n";
  if (!response.extra_headers.empty()) out += response.extra_headers + "\r\n";
  out += "\r\n";
  if (!request || request->method != "HEAD") out += response.body;
  size_t sent = 0;
  while (sent < out.size()) {
    int n = write(out.data() + sent, static_cast<int>(out.size() - sent));
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
  if (ssl) SSL_shutdown(ssl.get());
}

}  // namespace fabric
