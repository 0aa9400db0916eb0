// A real sshd (Debian's openssh-server) for the remote hosts' tests (issue 40): started on a free
// 127.0.0.1 port with a host key, a user key and an ssh config of its own, in a folder the test
// gives. Its ForceCommand runs each command with the environment the test gives exported and
// the built sandbench-cli first on the PATH, so the "remote" host is this machine with folders
// of its own. As root sshd runs in a mount namespace of its own whose /run holds its privilege
// separation folder; as another user it runs as that user and lets only that user in.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <sys/types.h>

namespace sbtest {

class TestSshServer {
  public:
    // The ssh config's alias of the server (`ssh -F sshConfig() sbtest`).
    static constexpr const char* kAlias = "sbtest";

    TestSshServer() = default;
    ~TestSshServer(); // stops sshd
    TestSshServer(const TestSshServer&) = delete;
    TestSshServer& operator=(const TestSshServer&) = delete;

    // Writes keys and configurations into `dir` (which must exist) and starts sshd; empty when
    // it listens, else why not (a missing program, sshd's log): the reason for a skip.
    std::string start(const std::filesystem::path& dir, const std::string& cliPath,
                      const std::map<std::string, std::string>& loginEnv);
    // Stops sshd (every connection through it ends).
    void stop();

    // The ssh config naming kAlias: its port, user, key and known_hosts.
    std::filesystem::path sshConfig() const { return m_dir / "ssh_config"; }
    // The known_hosts the config names, and one with another key for the same address.
    std::filesystem::path knownHosts() const { return m_dir / "known_hosts"; }
    std::filesystem::path wrongKnownHosts() const { return m_dir / "wrong_known_hosts"; }
    // What sshd logged so far.
    std::string log() const;

  private:
    std::filesystem::path m_dir;
    pid_t m_pid = -1;
};

// A free TCP port on 127.0.0.1 (0 if none).
int freeLoopbackPort();

} // namespace sbtest
