#include "TestSshServer.h"

#include "TestSupport.h"

#include <csignal>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace sbtest {
namespace {

std::string shellQuote(const std::string& s)
{
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Keys, known_hosts (the right key and a wrong one), sshd's configuration; then sshd, waited
// for until it listens.
constexpr const char* kStartScript = R"SH(
set -eu
cd "$1"
ssh-keygen -q -t ed25519 -N '' -C test-host -f host_key
ssh-keygen -q -t ed25519 -N '' -C other-host -f other_host_key
ssh-keygen -q -t ed25519 -N '' -C test-user -f client
cp client.pub authorized_keys
printf '[127.0.0.1]:%s %s\n' "$2" "$(cut -d' ' -f1,2 host_key.pub)" > known_hosts
printf '[127.0.0.1]:%s %s\n' "$2" "$(cut -d' ' -f1,2 other_host_key.pub)" > wrong_known_hosts
cat > sshd_config <<END_OF_CONFIG
ListenAddress 127.0.0.1:$2
HostKey $PWD/host_key
AuthorizedKeysFile $PWD/authorized_keys
AllowUsers $3
ForceCommand $PWD/login.sh
PermitRootLogin prohibit-password
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxSessions 100
MaxStartups 100
LogLevel VERBOSE
END_OF_CONFIG
if [ "$(id -u)" -eq 0 ]; then
  unshare -m sh -c 'mount -t tmpfs -o mode=755 tmpfs /run && mkdir -m 755 /run/sshd &&
    exec /usr/sbin/sshd -D -e -f "$1"' sh "$PWD/sshd_config" </dev/null >sshd.log 2>&1 &
else
  /usr/sbin/sshd -D -e -f "$PWD/sshd_config" </dev/null >sshd.log 2>&1 &
fi
echo $! > sshd.pid
for i in $(seq 300); do
  grep -q 'Server listening' sshd.log && exit 0
  kill -0 "$(cat sshd.pid)" 2>/dev/null || break
  sleep 0.1
done
cat sshd.log >&2
exit 1
)SH";

} // namespace

int freeLoopbackPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
        port = ntohs(addr.sin_port);
    ::close(fd);
    return port;
}

TestSshServer::~TestSshServer()
{
    stop();
}

void TestSshServer::stop()
{
    if (m_pid <= 0) return;
    ::kill(m_pid, SIGTERM);
    ::waitpid(m_pid, nullptr, 0);
    m_pid = -1;
}

std::string TestSshServer::log() const
{
    return readFile(m_dir / "sshd.log");
}

std::string TestSshServer::start(const fs::path& dir, const std::string& cliPath,
                                 const std::map<std::string, std::string>& loginEnv)
{
    for (const char* program : {"/usr/sbin/sshd", "/usr/bin/ssh", "/usr/bin/ssh-keygen"})
        if (::access(program, X_OK) != 0)
            return std::string(program) +
                   " is missing: the test's ssh server is Debian's openssh-server "
                   "(scripts/deps.sh --tests installs it)";
    const passwd* pw = ::getpwuid(::geteuid());
    if (!pw) return "this user has no name";
    const int port = freeLoopbackPort();
    if (port == 0) return "no free port on 127.0.0.1";
    m_dir = dir;
    fs::create_directories(dir / "bin");
    fs::create_symlink(cliPath, dir / "bin" / "sandbench-cli");
    std::string exports;
    for (const auto& [name, value] : loginEnv)
        exports += "export " + name + "=" + shellQuote(value) + "\n";
    writeFile(dir / "login.sh", "#!/bin/sh\n" + exports +
                                    "export PATH=" + shellQuote((dir / "bin").string()) +
                                    ":/usr/sbin:/usr/bin:/sbin:/bin\n"
                                    "exec /bin/sh -c \"$SSH_ORIGINAL_COMMAND\"\n");
    fs::permissions(dir / "login.sh", fs::perms::owner_all);
    writeFile(sshConfig(), std::string("Host ") + kAlias + "\n  HostName 127.0.0.1\n  Port " +
                               std::to_string(port) + "\n  User " + pw->pw_name +
                               "\n  IdentityFile " + (dir / "client").string() +
                               "\n  IdentitiesOnly yes\n  UserKnownHostsFile " +
                               knownHosts().string() +
                               "\n  GlobalKnownHostsFile /dev/null\n"
                               "  StrictHostKeyChecking yes\n  LogLevel ERROR\n");
    auto r =
        run({"bash", "-c", kStartScript, "sh", dir.string(), std::to_string(port), pw->pw_name});
    if (fs::exists(dir / "sshd.pid")) m_pid = std::stoi(readFile(dir / "sshd.pid"));
    if (r.status != 0) return "sshd did not start: " + r.out + r.err;
    return {};
}

} // namespace sbtest
