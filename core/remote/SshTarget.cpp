#include "remote/SshTarget.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace sb::remote {

namespace {

bool nameChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_';
}

Error badTarget(std::string_view url, const std::string& why)
{
    return inputError("host \"" + std::string(url) + "\": " + why +
                      " (expected ssh://[USER@]HOST[:PORT])");
}

// The last non-empty line of `text`.
std::string lastLine(const std::string& text)
{
    std::string line;
    std::size_t end = text.size();
    while (end > 0) {
        std::size_t start = text.rfind('\n', end - 1);
        start = start == std::string::npos ? 0 : start + 1;
        line = text.substr(start, end - start);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.pop_back();
        if (!line.empty()) return line;
        end = start == 0 ? 0 : start - 1;
    }
    return line;
}

bool has(const std::string& text, std::string_view what)
{
    return text.find(what) != std::string::npos;
}

} // namespace

Result<SshTarget> parseSshTarget(std::string_view url)
{
    constexpr std::string_view scheme = "ssh://";
    if (!url.starts_with(scheme)) return badTarget(url, "only ssh:// hosts are supported");
    std::string_view rest = url.substr(scheme.size());
    if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
    if (rest.find('/') != std::string_view::npos) return badTarget(url, "a host takes no path");
    SshTarget target;
    target.url = std::string(url);
    if (auto at = rest.rfind('@'); at != std::string_view::npos) {
        target.user = std::string(rest.substr(0, at));
        rest.remove_prefix(at + 1);
        if (target.user.empty()) return badTarget(url, "the user before '@' is empty");
        if (target.user.front() == '-') return badTarget(url, "a user may not start with '-'");
        for (char c : target.user)
            if (static_cast<unsigned char>(c) <= ' ' || c == ':' || c == 0x7f)
                return badTarget(url, "the user has a space, ':' or a control character");
    }
    std::string_view port;
    bool hasPort = false;
    if (rest.starts_with('[')) {
        const auto close = rest.find(']');
        if (close == std::string_view::npos) return badTarget(url, "'[' without ']'");
        target.host = std::string(rest.substr(1, close - 1));
        rest.remove_prefix(close + 1);
        if (!rest.empty() && !rest.starts_with(':'))
            return badTarget(url, "only ':PORT' may follow ']'");
        hasPort = !rest.empty();
        if (hasPort) port = rest.substr(1);
        if (target.host.empty() || !std::all_of(target.host.begin(), target.host.end(), [](char c) {
                return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
            }))
            return badTarget(url, "the address in brackets is no IPv6 address");
    } else {
        const auto colon = rest.find(':');
        target.host = std::string(rest.substr(0, colon));
        hasPort = colon != std::string_view::npos;
        if (hasPort) port = rest.substr(colon + 1);
        if (target.host.empty()) return badTarget(url, "the host is empty");
        if (target.host.front() == '-') return badTarget(url, "a host may not start with '-'");
        if (!std::all_of(target.host.begin(), target.host.end(), nameChar))
            return badTarget(url, "a host name has only letters, digits, '.', '-' and '_'");
    }
    if (hasPort && port.empty()) return badTarget(url, "the port after ':' is empty");
    if (hasPort) {
        unsigned value = 0;
        for (char c : port) {
            if (c < '0' || c > '9' || value > 65535)
                return badTarget(url, "the port is not a number from 1 to 65535");
            value = value * 10 + static_cast<unsigned>(c - '0');
        }
        if (value == 0 || value > 65535)
            return badTarget(url, "the port is not a number from 1 to 65535");
        target.port = static_cast<std::uint16_t>(value);
    }
    return target;
}

Result<DialOptions> dialOptionsFromEnvironment()
{
    DialOptions options;
    const char* ssh = std::getenv("SANDBENCH_SSH");
    if (ssh == nullptr) return options;
    options.ssh.clear();
    std::string word;
    for (const char* p = ssh;; ++p) {
        if (*p == '\0' || *p == ' ' || *p == '\t') {
            if (!word.empty()) options.ssh.push_back(std::move(word));
            word.clear();
            if (*p == '\0') break;
        } else {
            word.push_back(*p);
        }
    }
    if (options.ssh.empty())
        return inputError("SANDBENCH_SSH is set but empty (unset it for plain ssh)");
    return options;
}

std::vector<std::string> sshCommand(const SshTarget& target, const DialOptions& options)
{
    std::vector<std::string> argv = options.ssh;
    // No password prompt; no terminal (the stream is binary); nothing forwarded, whatever
    // ~/.ssh/config says for the host: no agent, no X11, no ports.
    argv.insert(argv.end(),
                {"-o", "BatchMode=yes", "-T", "-a", "-x", "-o", "ClearAllForwardings=yes"});
    if (target.port != 0) argv.insert(argv.end(), {"-p", std::to_string(target.port)});
    argv.push_back("--");
    argv.push_back(target.user.empty() ? target.host : target.user + "@" + target.host);
    argv.push_back(options.remoteProgram + " dial-stdio");
    return argv;
}

Error dialFailure(const std::string& host, int status, const std::string& sshStderr)
{
    const std::string said = lastLine(sshStderr);
    const std::string quoted = said.empty() ? "" : " (ssh: " + said + ")";
    if (has(sshStderr, "Host key verification failed") ||
        has(sshStderr, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
        has(sshStderr, "No ED25519 host key is known") || has(sshStderr, "host key is known"))
        return Error{ErrorCode::InvalidInput, 0,
                     "the host key of " + host +
                         " is unknown or has changed, so ssh refused to connect" + quoted +
                         ". Check the key and add it to ~/.ssh/known_hosts (for example by "
                         "connecting once with ssh); Sandbench never turns host key checks off"};
    if (has(sshStderr, "Permission denied") || has(sshStderr, "Too many authentication"))
        return Error{ErrorCode::InvalidInput, 0,
                     "ssh could not log in to " + host + quoted +
                         ". Sandbench runs ssh in batch mode, which never asks for a password: "
                         "use a key (an ssh agent, or IdentityFile in ~/.ssh/config)"};
    // CLI11's words for a subcommand it does not know, from a sandbench-cli before dial-stdio.
    if (has(sshStderr, "A subcommand is required") ||
        has(sshStderr, "The following argument was not expected") ||
        (has(sshStderr, "dial-stdio") && has(sshStderr, "xtras")))
        return Error{ErrorCode::Unsupported, 0,
                     "Sandbench on " + host +
                         " is too old: its sandbench-cli has no dial-stdio. Install this "
                         "version (or a newer one) there"};
    if (status == 127 || has(sshStderr, "command not found") ||
        has(sshStderr, "sandbench-cli: not found") || has(sshStderr, "No such file"))
        return Error{ErrorCode::NotFound, 0,
                     "Sandbench is not installed on " + host +
                         ": no sandbench-cli on the PATH that ssh commands get there" + quoted};
    if (has(sshStderr, "Could not resolve") || has(sshStderr, "Connection refused") ||
        has(sshStderr, "timed out") || has(sshStderr, "No route to host") ||
        has(sshStderr, "Network is unreachable") || has(sshStderr, "Connection closed"))
        return Error{ErrorCode::System, 0, "ssh could not reach " + host + quoted};
    return Error{ErrorCode::System, 0,
                 "the connection to " + host + " ended (ssh's status " + std::to_string(status) +
                     ")" + quoted};
}

} // namespace sb::remote
