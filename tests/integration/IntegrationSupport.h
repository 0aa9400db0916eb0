// Helpers for the integration tests: a real sandbench-cli run over a temporary workspace, with a
// fake HOME and private XDG folders, plus the host-side props (listeners, marker processes, a
// pty driver) that escape attempts aim at.
#pragma once

#include "TestSupport.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace sbit {

namespace fs = std::filesystem;

// Printed by Sandbench::attempt() after the attempt's script.
inline constexpr const char* kRan = "sandbox-command-ran";

#define SB_ASSERT_RAN(result)                                                                      \
    ASSERT_NE((result).out.find(::sbit::kRan), std::string::npos)                                  \
        << "the sandboxed command never ran (status " << (result).status << ")\nstdout:\n"         \
        << (result).out << "\nstderr:\n"                                                           \
        << (result).err

// Root runs the sandbox as uid 65534 with the project idmapped; a user runs it as itself.
bool runningAsRoot();
std::string uniqueToken(); // a fresh [a-z0-9] string, for markers and names

bool contains(const std::string& haystack, const std::string& needle);
// A run's status, stdout and stderr, for failure messages.
std::string dump(const sbtest::RunResult& result);

struct RunSpec {
    std::vector<std::string> options; // CLI options before "--": --network host, --policy F…
    std::string input;                // stdin of the CLI (a pipe, so the command gets it too)
    std::map<std::string, std::string> env; // extra variables for the CLI itself
    int timeoutSeconds = 60;
};

inline RunSpec withOptions(std::vector<std::string> options, int timeoutSeconds = 60)
{
    RunSpec spec;
    spec.options = std::move(options);
    spec.timeoutSeconds = timeoutSeconds;
    return spec;
}

inline RunSpec withEnv(std::map<std::string, std::string> env,
                       std::vector<std::string> options = {})
{
    RunSpec spec = withOptions(std::move(options));
    spec.env = std::move(env);
    return spec;
}

// One test's world, all under one temp folder:
//   home/       the caller's HOME (what the sandbox must hide)
//   workspace/  the project
//   outside/    a sibling of the workspace the agent must not reach
//   xdg/…       XDG_STATE_HOME, XDG_DATA_HOME, XDG_RUNTIME_DIR (sessions land here)
class Sandbench {
  public:
    Sandbench();

    const fs::path& home() const { return m_home; }
    const fs::path& workspace() const { return m_workspace; }
    const fs::path& outside() const { return m_outside; }
    const fs::path& sessions() const { return m_sessions; }
    fs::path upper(const std::string& session) const { return m_sessions / session / "upper"; }

    // HOME and the XDG variables, merged over `extra`.
    std::map<std::string, std::string> env(std::map<std::string, std::string> extra = {}) const;

    // sandbench-cli ARGS… with this world's environment.
    sbtest::RunResult cli(const std::vector<std::string>& args, const RunSpec& spec = {}) const;

    // `run --workspace W --session-id ID OPTIONS -- COMMAND…`
    sbtest::RunResult run(const std::string& session, const std::vector<std::string>& command,
                          const RunSpec& spec = {}) const;
    sbtest::RunResult run(const std::vector<std::string>& command, const RunSpec& spec = {}) const
    {
        return run(nextSession(), command, spec);
    }
    // bash -c SCRIPT in the sandbox.
    sbtest::RunResult sh(const std::string& script, const RunSpec& spec = {}) const
    {
        return run({"bash", "-c", script}, spec);
    }
    std::string nextSession() const;
    // Waits (up to `timeoutMs`) until no supervisor holds session `id`'s lock, as sessionIsLive
    // reads it (`stop` returns before the supervisor has ended); false on timeout.
    bool waitUntilEnded(const std::string& id, int timeoutMs = 10000) const;

    // `bash -c SCRIPT` followed by `echo kRan`: the output then proves the command really ran,
    // so an attempt that "failed" because nothing started is never taken for a blocked one.
    sbtest::RunResult attempt(const std::string& script, const RunSpec& spec = {}) const;

    // The probe copied into the workspace (the build dir is not visible inside), by its path.
    fs::path installProbe() const;

    // Copies the syscall probe into the workspace (the build dir is not visible inside) and runs
    // it there; returns probe name → result ("EPERM", "0", "KILLED"…).
    std::map<std::string, std::string> probe(const std::vector<std::string>& names,
                                             const RunSpec& spec = {}) const;

    // Writes a policy file beside the workspace (not inside it) and returns its path.
    fs::path writePolicy(const std::string& json) const;

  private:
    sbtest::TempDir m_root;
    fs::path m_home, m_workspace, m_outside, m_sessions, m_xdg;
    mutable int m_sessionCount = 0;
};

// A process outside the sandbox whose argv[0] is a unique marker, killed on destruction.
class MarkerProcess {
  public:
    MarkerProcess();
    ~MarkerProcess();
    MarkerProcess(const MarkerProcess&) = delete;
    MarkerProcess& operator=(const MarkerProcess&) = delete;
    const std::string& marker() const { return m_marker; }
    pid_t pid() const { return m_pid; }
    bool alive() const; // running, not a zombie

  private:
    std::string m_marker;
    pid_t m_pid = -1;
};

// A TCP listener on the host's 127.0.0.1 (any free port), or an abstract unix socket.
class HostListener {
  public:
    static HostListener tcpLoopback();
    static HostListener abstractUnix(const std::string& name);
    static HostListener unixPath(const std::filesystem::path& path);
    ~HostListener();
    HostListener(HostListener&& other) noexcept;
    HostListener(const HostListener&) = delete;
    HostListener& operator=(const HostListener&) = delete;
    int port() const { return m_port; }
    // True when a connection is waiting (non-blocking accept; the connection is closed).
    bool acceptPending();

  private:
    HostListener() = default;
    int m_fd = -1;
    int m_port = 0;
};

// Drives a program on a pseudo-terminal, as a person at a terminal would.
class PtyProgram {
  public:
    PtyProgram(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               unsigned short rows = 24, unsigned short columns = 80);
    ~PtyProgram();
    PtyProgram(const PtyProgram&) = delete;
    PtyProgram& operator=(const PtyProgram&) = delete;

    // Reads until `text` has appeared in the output or the deadline passes; true if it appeared.
    bool waitFor(const std::string& text, std::chrono::milliseconds timeout);
    void send(const std::string& keys);
    // Reads until the program exits; its status (code, 128+signal), or -1 after the timeout
    // (the program is then killed).
    int wait(std::chrono::milliseconds timeout);
    const std::string& output() const { return m_output; }

  private:
    int readSome(int timeoutMs); // 1 read, 0 nothing yet, -1 closed
    int m_master = -1;
    pid_t m_pid = -1;
    int m_status = -1;
    std::string m_output;
};

// A shell-safe single-quoted word.
std::string quote(const std::string& text);

// Lines of `text` as a set-like vector, without empty lines.
std::vector<std::string> lines(const std::string& text);

} // namespace sbit
