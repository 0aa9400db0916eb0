#include "ProxyTestSupport.h"

#include <arpa/inet.h>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sbproxytest {

namespace {

const char* kServerScript = R"PY(
import http.server, ssl, sys, os
mode, root = sys.argv[1], sys.argv[2]
os.chdir(root)
# As root, the CGI handler would run scripts as nobody, who cannot enter the private temp dir.
http.server.nobody_uid = os.getuid

class Files(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def do_POST(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

class Cgi(http.server.CGIHTTPRequestHandler):
    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Cgi if mode == "cgi" else Files)
if mode == "https":
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
)PY";

int listenLoopback(std::uint16_t& port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(fd, 1024) != 0)
        throw std::runtime_error(std::string("listen on 127.0.0.1: ") + std::strerror(errno));
    socklen_t length = sizeof address;
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    port = ntohs(address.sin_port);
    return fd;
}

sb::Status runStep(const std::vector<std::string>& argv)
{
    auto r = sbtest::run(argv, {}, {}, 60);
    if (r.status != 0) return sb::inputError(argv[0] + " " + argv[1] + " failed: " + r.err);
    return std::nullopt;
}

} // namespace

std::map<std::string, std::string> cleanProxyEnv()
{
    std::map<std::string, std::string> env;
    for (const char* name : {"http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY",
                             "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"})
        env[name] = "";
    return env;
}

// ---- EventLog ----

void EventLog::add(const sb::ProxyEvent& event)
{
    std::lock_guard lock(m_mutex);
    m_events.push_back(event);
    m_changed.notify_all();
}

std::optional<sb::ProxyEvent> EventLog::waitFor(sb::ProxyEvent::Kind kind, milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    std::optional<sb::ProxyEvent> found;
    m_changed.wait_for(lock, timeout, [&] {
        for (const auto& e : m_events)
            if (e.kind == kind) {
                found = e;
                return true;
            }
        return false;
    });
    return found;
}

std::vector<sb::ProxyEvent> EventLog::all(sb::ProxyEvent::Kind kind)
{
    std::lock_guard lock(m_mutex);
    std::vector<sb::ProxyEvent> out;
    for (const auto& e : m_events)
        if (e.kind == kind) out.push_back(e);
    return out;
}

// ---- TestProxy ----

TestProxy::TestProxy(const sb::NetworkPolicy& policy, sb::Proxy::Options options, bool withAskHook)
{
    std::uint16_t port = 0;
    int fd = listenLoopback(port);
    options.resolve = [](const std::string& host) -> sb::Result<std::vector<sb::IpAddress>> {
        if (host.ends_with(".test") && host != "nx.test")
            return std::vector<sb::IpAddress>{*sb::IpAddress::parse("127.0.0.1")};
        return sb::Error{sb::ErrorCode::NotFound, 0, "no such test host"};
    };
    sb::Proxy::Hooks hooks;
    hooks.onEvent = [this](const sb::ProxyEvent& e) { events.add(e); };
    if (withAskHook)
        hooks.ask = [this](const sb::ConnectionRequest& r, const std::string& rule,
                           sb::Proxy::Decide decide) {
            std::lock_guard lock(m_askMutex);
            if (m_ask)
                m_ask(r, rule, std::move(decide));
            else
                decide(false, "test: no answer set");
        };
    auto started = sb::Proxy::start(fd, policy, std::move(hooks), std::move(options));
    if (!started) throw std::runtime_error("proxy start: " + started.error().describe());
    m_proxy = std::move(started).value();
}

void TestProxy::setAsk(Ask ask)
{
    std::lock_guard lock(m_askMutex);
    m_ask = std::move(ask);
}

// ---- PythonServer ----

PythonServer::PythonServer(const std::string& mode, const std::filesystem::path& root,
                           const std::vector<std::string>& args,
                           const std::map<std::string, std::string>& env)
{
    auto script = m_dir / "server.py";
    sbtest::writeFile(script, kServerScript);
    std::vector<std::string> all = {mode, root.string()};
    all.insert(all.end(), args.begin(), args.end());
    start(script, all, env);
}

PythonServer::PythonServer(const std::filesystem::path& script,
                           const std::vector<std::string>& args)
{
    start(script, args, {});
}

void PythonServer::start(const std::filesystem::path& script, const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env)
{
    std::vector<std::string> argv = {"python3", script.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    m_pid = fork();
    if (m_pid == 0) {
        dup2(out[1], 1);
        for (const auto& [k, v] : env)
            setenv(k.c_str(), v.c_str(), 1);
        std::vector<char*> cargv;
        for (auto& a : argv)
            cargv.push_back(a.data());
        cargv.push_back(nullptr);
        execvp("python3", cargv.data());
        _exit(127);
    }
    close(out[1]);
    std::string line;
    pollfd p{out[0], POLLIN, 0};
    while (line.find('\n') == std::string::npos && poll(&p, 1, 15000) == 1) {
        char buffer[64];
        auto n = read(out[0], buffer, sizeof buffer);
        if (n <= 0) break;
        line.append(buffer, static_cast<std::size_t>(n));
    }
    close(out[0]);
    m_port = static_cast<std::uint16_t>(std::atoi(line.c_str()));
    if (m_port == 0)
        throw std::runtime_error("python3 " + script.filename().string() + " did not start");
}

PythonServer::~PythonServer()
{
    if (m_pid > 0) {
        kill(m_pid, SIGTERM);
        waitpid(m_pid, nullptr, 0);
    }
}

// ---- EchoServer ----

EchoServer::EchoServer()
{
    m_fd = listenLoopback(m_port);
    m_thread = std::thread([fd = m_fd] {
        for (;;) {
            int c = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) {
                if (errno == EINTR || errno == ECONNABORTED) continue;
                return; // the listener was shut down
            }
            std::thread([c] {
                char buffer[65536];
                for (;;) {
                    auto n = recv(c, buffer, sizeof buffer, 0);
                    if (n <= 0) break;
                    if (::send(c, buffer, static_cast<std::size_t>(n), MSG_NOSIGNAL) != n) break;
                }
                close(c);
            }).detach();
        }
    });
}

EchoServer::~EchoServer()
{
    shutdown(m_fd, SHUT_RDWR);
    m_thread.join();
    close(m_fd);
}

// ---- ClientSocket ----

ClientSocket::ClientSocket(std::uint16_t port)
{
    m_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
        throw std::runtime_error(std::string("connect to the proxy: ") + std::strerror(errno));
    timeval tv{10, 0};
    setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

ClientSocket::~ClientSocket()
{
    close(m_fd);
}

void ClientSocket::send(const std::string& data)
{
    std::size_t off = 0;
    while (off < data.size()) {
        auto n = ::send(m_fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return;
        off += static_cast<std::size_t>(n);
    }
}

void ClientSocket::shutdownWrite()
{
    shutdown(m_fd, SHUT_WR);
}

std::string ClientSocket::readExactly(std::size_t n)
{
    while (m_buffer.size() < n) {
        char buffer[65536];
        auto got = recv(m_fd, buffer, sizeof buffer, 0);
        if (got <= 0) break;
        m_buffer.append(buffer, static_cast<std::size_t>(got));
    }
    auto out = m_buffer.substr(0, n);
    m_buffer.erase(0, out.size());
    return out;
}

std::string ClientSocket::readUntil(const std::string& delimiter)
{
    while (m_buffer.find(delimiter) == std::string::npos) {
        char buffer[65536];
        auto got = recv(m_fd, buffer, sizeof buffer, 0);
        if (got <= 0) {
            return std::exchange(m_buffer, {});
        }
        m_buffer.append(buffer, static_cast<std::size_t>(got));
    }
    auto end = m_buffer.find(delimiter) + delimiter.size();
    auto out = m_buffer.substr(0, end);
    m_buffer.erase(0, end);
    return out;
}

std::string ClientSocket::readAll(milliseconds timeout)
{
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        auto left =
            std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{m_fd, POLLIN, 0};
        if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) != 1) break;
        char buffer[65536];
        auto got = recv(m_fd, buffer, sizeof buffer, 0);
        if (got <= 0) break;
        m_buffer.append(buffer, static_cast<std::size_t>(got));
    }
    return std::exchange(m_buffer, {});
}

std::string ClientSocket::readResponse()
{
    auto head = readUntil("\r\n\r\n");
    std::size_t length = 0;
    for (std::size_t pos = 0; (pos = head.find("\r\n", pos)) != std::string::npos; pos += 2) {
        auto line = head.substr(pos + 2, head.find("\r\n", pos + 2) - pos - 2);
        if (strncasecmp(line.c_str(), "content-length:", 15) == 0)
            length = std::stoul(line.substr(15));
    }
    return head + readExactly(length);
}

void ClientSocket::sendSocksConnect(const std::string& host, std::uint16_t port)
{
    std::string request("\x05\x01\x00\x05\x01\x00\x03", 7);
    request += static_cast<char>(host.size());
    request += host;
    request += static_cast<char>(port >> 8);
    request += static_cast<char>(port & 0xff);
    send(request);
}

bool ClientSocket::readSocksConnected()
{
    auto reply = readExactly(12);
    return reply.size() == 12 && reply[0] == 5 && reply[1] == 0 && reply[3] == 0;
}

std::string rawExchange(std::uint16_t port, const std::string& input)
{
    ClientSocket s(port);
    s.send(input);
    return s.readAll();
}

bool waitUntil(const std::function<bool()>& condition, milliseconds timeout)
{
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (condition()) return true;
        std::this_thread::sleep_for(milliseconds(20));
    }
    return condition();
}

// ---- certificates and repositories ----

sb::Result<TestPki> makeTestPki(const std::filesystem::path& dir, const std::string& names)
{
    TestPki pki{(dir / "ca.pem").string(), (dir / "server.pem").string(),
                (dir / "server.key").string()};
    auto caKey = (dir / "ca.key").string(), csr = (dir / "server.csr").string();
    auto ext = dir / "server.ext";
    sbtest::writeFile(ext, "subjectAltName=" + names +
                               "\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
    if (auto e = runStep({"openssl",
                          "req",
                          "-x509",
                          "-newkey",
                          "ec",
                          "-pkeyopt",
                          "ec_paramgen_curve:prime256v1",
                          "-nodes",
                          "-keyout",
                          caKey,
                          "-out",
                          pki.caCert,
                          "-days",
                          "2",
                          "-subj",
                          "/CN=Sandbench Test CA",
                          "-addext",
                          "basicConstraints=critical,CA:TRUE",
                          "-addext",
                          "keyUsage=critical,keyCertSign,cRLSign"}))
        return *e;
    if (auto e =
            runStep({"openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                     "-nodes", "-keyout", pki.serverKey, "-out", csr, "-subj", "/CN=tls.test"}))
        return *e;
    if (auto e = runStep({"openssl", "x509", "-req", "-in", csr, "-CA", pki.caCert, "-CAkey", caKey,
                          "-CAcreateserial", "-out", pki.serverCert, "-days", "2", "-extfile",
                          ext.string()}))
        return *e;
    return pki;
}

sb::Result<std::filesystem::path> makeServedRepository(const std::filesystem::path& dir)
{
    auto root = dir / "gitroot", work = dir / "gitwork";
    std::filesystem::create_directories(root / "cgi-bin");
    auto execPath = sbtest::run({"git", "--exec-path"});
    if (execPath.status != 0) return sb::inputError("git --exec-path: " + execPath.err);
    while (!execPath.out.empty() && execPath.out.back() == '\n')
        execPath.out.pop_back();
    std::filesystem::create_symlink(execPath.out + "/git-http-backend",
                                    root / "cgi-bin" / "git-http-backend");
    auto bare = (root / "repo.git").string();
    if (auto e = runStep({"git", "init", "-q", "--bare", bare})) return *e;
    sbtest::writeFile(root / "repo.git" / "git-daemon-export-ok", "");
    if (auto e = runStep({"git", "init", "-q", work.string()})) return *e;
    sbtest::writeFile(work / "README", "served over http through the proxy\n");
    if (auto e = runStep({"git", "-C", work.string(), "add", "README"})) return *e;
    if (auto e = runStep({"git", "-C", work.string(), "-c", "user.name=Test", "-c",
                          "user.email=test@example.com", "commit", "-q", "-m", "init"}))
        return *e;
    if (auto e = runStep({"git", "-C", work.string(), "push", "-q", bare, "HEAD:refs/heads/main"}))
        return *e;
    if (auto e = runStep({"git", "-C", bare, "symbolic-ref", "HEAD", "refs/heads/main"})) return *e;
    return root;
}

} // namespace sbproxytest
