// Where a remote host is: `ssh://[USER@]HOST[:PORT]` (HOST may be an alias of ~/.ssh/config),
// and the ssh command that reaches its `sandbench-cli dial-stdio` (docs/remote.md).
#pragma once

#include "base/Error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sb::remote {

struct SshTarget {
    std::string user;       // empty: ssh's choice (~/.ssh/config, else the local user)
    std::string host;       // a name, an alias, an IPv4 address, or an IPv6 one (without brackets)
    std::uint16_t port = 0; // 0: ssh's choice
    std::string url;        // as given
};

// An error naming what is wrong with `url` (its scheme, a path, an empty host, a port…). Names
// and users that ssh would read as options (a leading '-') are refused.
Result<SshTarget> parseSshTarget(std::string_view url);

struct DialOptions {
    // The ssh program and its own options: $SANDBENCH_SSH split at spaces, else "ssh".
    std::vector<std::string> ssh{"ssh"};
    // The remote side's program (found on the remote PATH).
    std::string remoteProgram = "sandbench-cli";
    int connectTimeoutMs = 30000;
};

// DialOptions with $SANDBENCH_SSH, if set; an error when it is set but empty.
Result<DialOptions> dialOptionsFromEnvironment();

// ssh … -o BatchMode=yes -T -a -x -o ClearAllForwardings=yes [-p PORT] -- [USER@]HOST
// sandbench-cli dial-stdio. Host keys stay ssh's to check: no option here loosens
// StrictHostKeyChecking or known_hosts; nothing (agent, X11, ports) is forwarded.
std::vector<std::string> sshCommand(const SshTarget& target, const DialOptions& options);

// What went wrong when ssh ended before the dial stream said welcome, from its exit status and
// what it wrote on stderr: an unknown or changed host key, a refused login, no Sandbench (or one
// without dial-stdio) on the host, or ssh's own last words.
Error dialFailure(const std::string& host, int status, const std::string& sshStderr);

} // namespace sb::remote
