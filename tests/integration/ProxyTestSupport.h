// Props for the proxy tests: a proxy on a fresh loopback listener with its events recorded,
// servers on the host's 127.0.0.1 (python3 http.server for HTTP, HTTPS and git's CGI backend;
// an echo server), a blocking client socket, and a test CA made with openssl.
#pragma once

#include "TestSupport.h"
#include "network/Proxy.h"

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace sbproxytest {

using std::chrono::milliseconds;

// Proxy variables emptied, so no client takes a proxy or a bypass from the caller's environment.
std::map<std::string, std::string> cleanProxyEnv();

class EventLog {
  public:
    void add(const sb::ProxyEvent& event);
    // The first event of `kind`, waiting for it up to `timeout`.
    std::optional<sb::ProxyEvent> waitFor(sb::ProxyEvent::Kind kind,
                                          milliseconds timeout = milliseconds(5000));
    std::vector<sb::ProxyEvent> all(sb::ProxyEvent::Kind kind);

  private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<sb::ProxyEvent> m_events;
};

// A proxy on 127.0.0.1:0. Names ending in ".test" resolve to 127.0.0.1 ("nx.test" to nothing);
// every other name fails, so nothing leaves the machine.
class TestProxy {
  public:
    using Ask =
        std::function<void(const sb::ConnectionRequest&, const std::string&, sb::Proxy::Decide)>;
    explicit TestProxy(const sb::NetworkPolicy& policy, sb::Proxy::Options options = {},
                       bool withAskHook = true);
    std::uint16_t port() const { return m_proxy->port(); }
    sb::Proxy& proxy() { return *m_proxy; }
    void setAsk(Ask ask);

    EventLog events;

  private:
    std::mutex m_askMutex;
    Ask m_ask;
    std::unique_ptr<sb::Proxy> m_proxy;
};

// python3 http.server on 127.0.0.1: "http" serves `root` (HTTP/1.1 keep-alive, POST /echo
// answers with the body), "https" the same over TLS (args: cert, key), "cgi" runs
// root/cgi-bin/ scripts (git http-backend).
class PythonServer {
  public:
    PythonServer(const std::string& mode, const std::filesystem::path& root,
                 const std::vector<std::string>& args = {},
                 const std::map<std::string, std::string>& env = {});
    // Another server script: `python3 SCRIPT ARGS…`, which prints its port on its first line.
    PythonServer(const std::filesystem::path& script, const std::vector<std::string>& args);
    ~PythonServer();
    std::uint16_t port() const { return m_port; }

  private:
    void start(const std::filesystem::path& script, const std::vector<std::string>& args,
               const std::map<std::string, std::string>& env);
    sbtest::TempDir m_dir;
    pid_t m_pid = -1;
    std::uint16_t m_port = 0;
};

// Echoes every byte back; after the client's FIN, finishes echoing and closes.
class EchoServer {
  public:
    EchoServer();
    ~EchoServer();
    std::uint16_t port() const { return m_port; }

  private:
    int m_fd = -1;
    std::uint16_t m_port = 0;
    std::thread m_thread;
};

// A blocking TCP client to 127.0.0.1:port; reads give up after 10 s.
class ClientSocket {
  public:
    explicit ClientSocket(std::uint16_t port);
    ~ClientSocket();
    void send(const std::string& data);
    void shutdownWrite();
    std::string readExactly(std::size_t n);
    std::string readUntil(const std::string& delimiter);
    std::string readAll(milliseconds timeout = milliseconds(10000)); // until EOF
    std::string readResponse(); // one HTTP response framed by Content-Length
    void sendSocksConnect(const std::string& host, std::uint16_t port); // greeting + request
    bool readSocksConnected();

  private:
    int m_fd = -1;
    std::string m_buffer;
};

// Sends `input` on a fresh connection and reads until the proxy closes it (or 10 s).
std::string rawExchange(std::uint16_t port, const std::string& input);

bool waitUntil(const std::function<bool()>& condition, milliseconds timeout = milliseconds(5000));

struct TestPki {
    std::string caCert, serverCert, serverKey;
};
// A CA and a server certificate for `names` (a subjectAltName value), valid two days, under
// `dir`.
sb::Result<TestPki> makeTestPki(const std::filesystem::path& dir,
                                const std::string& names = "DNS:tls.test,IP:127.0.0.1");

// dir/gitroot with repo.git (one commit: README) and cgi-bin/git-http-backend; returns gitroot.
sb::Result<std::filesystem::path> makeServedRepository(const std::filesystem::path& dir);

} // namespace sbproxytest
