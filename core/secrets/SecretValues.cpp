#include "secrets/SecretValues.h"

#include "base/Paths.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace sb {

namespace {

constexpr std::size_t kMaxValueBytes = 16 * 1024;
constexpr std::size_t kMinValueBytes = 8;
constexpr int kCommandTimeoutMs = 10'000;

std::string described(const SecretSource& from)
{
    switch (from.kind) {
    case SecretSource::Kind::Env:
        return "the variable " + from.variable;
    case SecretSource::Kind::File:
        return from.path;
    case SecretSource::Kind::Keyring:
        return "the keyring";
    case SecretSource::Kind::Command:
        return "the command " + from.argv.front();
    }
    return "?";
}

Result<std::string> fromEnvironment(const std::string& variable,
                                    const std::vector<std::string>& environment)
{
    for (const std::string& entry : environment)
        if (entry.size() > variable.size() && entry.starts_with(variable) &&
            entry[variable.size()] == '=')
            return entry.substr(variable.size() + 1);
    return Error{ErrorCode::NotFound, 0, variable + " is not set"};
}

Result<std::string> fromFile(const std::string& written)
{
    const std::string path =
        written.starts_with("~/") ? (homeDirectory() / written.substr(2)).string() : written;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        Error e = sysError("cannot open " + path);
        if (e.sysErrno == ENOENT) e.code = ErrorCode::NotFound;
        return e;
    }
    struct stat st {};
    std::string out;
    Status failure;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        failure = inputError(path + " is not a regular file");
    } else {
        char buffer[4096];
        for (;;) {
            const ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) failure = sysError("cannot read " + path);
            if (n <= 0) break;
            out.append(buffer, static_cast<std::size_t>(n));
            if (out.size() > kMaxValueBytes) break;
        }
    }
    ::close(fd);
    if (failure) return *failure;
    return out;
}

// The command's standard output; its standard error is discarded (it could echo the value).
Result<std::string> fromCommand(const std::vector<std::string>& args)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return sysError("pipe");
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    ::posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (std::string& a : copy)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        return Error{rc == ENOENT ? ErrorCode::NotFound : ErrorCode::System, rc,
                     "cannot run " + args.front() + ": " + std::strerror(rc)};
    }
    std::string out;
    bool timedOut = false;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kCommandTimeoutMs);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        pollfd p{fds[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::max<long>(0, left.count())));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) {
            timedOut = true;
            break;
        }
        char buffer[4096];
        const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buffer, static_cast<std::size_t>(n));
        if (out.size() > kMaxValueBytes) break;
    }
    ::close(fds[0]);
    if (timedOut) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timedOut)
        return inputError(args.front() + " gave no value within " +
                          std::to_string(kCommandTimeoutMs / 1000) + " s");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return inputError(
            args.front() + " failed (exit status " +
            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) + ")");
    return out;
}

// The value as it is sent: one line, its trailing newline (of a file or `echo`) taken off.
Result<std::string> checkedValue(std::string value, const std::string& where)
{
    while (!value.empty() && (value.back() == '\n' || value.back() == '\r'))
        value.pop_back();
    if (value.size() > kMaxValueBytes)
        return inputError("the value in " + where + " is over " +
                          std::to_string(kMaxValueBytes / 1024) + " KiB");
    if (value.empty()) return Error{ErrorCode::NotFound, 0, where + " is empty"};
    // A line break or another control character would let the value end a header line.
    if (std::any_of(value.begin(), value.end(),
                    [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
        return inputError("the value in " + where +
                          " holds a line break or another control character");
    if (value.size() < kMinValueBytes)
        return inputError("the value in " + where + " is shorter than " +
                          std::to_string(kMinValueBytes) +
                          " characters, too short for a placeholder to stand in for it safely");
    return value;
}

Result<std::string> readValue(const SecretSource& from, const std::vector<std::string>& environment)
{
    Result<std::string> raw = std::string();
    switch (from.kind) {
    case SecretSource::Kind::Env:
        raw = fromEnvironment(from.variable, environment);
        break;
    case SecretSource::Kind::File:
        raw = fromFile(from.path);
        break;
    case SecretSource::Kind::Keyring:
        raw = keyringLookup(from.attributes);
        break;
    case SecretSource::Kind::Command:
        raw = fromCommand(from.argv);
        break;
    }
    if (!raw) return raw.error();
    return checkedValue(std::move(*raw), described(from));
}

} // namespace

std::string makePlaceholder(const std::string& value)
{
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    // The prefix: up to the last '-' or '_' within the first half, at most 16 characters
    // ("sk-ant-api03-", "ghp_", "sk-proj-").
    std::size_t keep = 0;
    const std::size_t limit = std::min<std::size_t>(16, value.size() / 2);
    for (std::size_t i = 0; i < limit; ++i)
        if (value[i] == '-' || value[i] == '_') keep = i + 1;
    std::string out = value.substr(0, keep);
    while (out.size() < value.size()) {
        unsigned char random[64];
        std::size_t got = 0;
        while (got < sizeof random) {
            const ssize_t n = ::getrandom(random + got, sizeof random - got, 0);
            if (n > 0) got += static_cast<std::size_t>(n);
        }
        for (unsigned char r : random) // 248 = 4 × 62: no bias
            if (r < 248 && out.size() < value.size()) out += kAlphabet[r % 62];
    }
    if (out == value) return makePlaceholder(value); // never, but a stand-in must differ
    return out;
}

Result<SecretsRead> readSecrets(const std::vector<SecretSpec>& specs,
                                const std::vector<std::string>& environment)
{
    SecretsRead out;
    for (const SecretSpec& spec : specs) {
        auto value = readValue(spec.from, environment);
        if (!value) {
            if (spec.optional && value.error().code == ErrorCode::NotFound) {
                out.notes.push_back("secret '" + spec.name + "': " + value.error().message +
                                    "; left out");
                continue;
            }
            Error e = value.error();
            e.message = "secret '" + spec.name + "': " + e.message;
            return e;
        }
        ResolvedSecret secret{spec, std::move(*value), {}};
        secret.placeholder = makePlaceholder(secret.value);
        out.secrets.push_back(std::move(secret));
    }
    return out;
}

std::string redactSecrets(std::string text, const std::vector<ResolvedSecret>& secrets)
{
    for (const ResolvedSecret& s : secrets) {
        const std::string shown = "[secret " + s.spec.name + "]";
        for (std::size_t at = text.find(s.value); at != std::string::npos;
             at = text.find(s.value, at + shown.size()))
            text.replace(at, s.value.size(), shown);
    }
    return text;
}

} // namespace sb
