// Shared test helpers: temporary folders, running programs, and skips that CI turns into failures.
#pragma once

#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <vector>

namespace sbtest {

// With SANDBENCH_MUST_WORK=1 (set in CI) a skip is a failure: the suite must prove the sandbox
// works on the machine, not quietly step around it.
bool mustWork();
#define SB_SKIP(reason)                                                                            \
    do {                                                                                           \
        if (::sbtest::mustWork()) {                                                                \
            FAIL() << "would skip, but SANDBENCH_MUST_WORK=1: " << (reason);                       \
        }                                                                                          \
        GTEST_SKIP() << (reason);                                                                  \
    } while (0)

// A fresh directory under $TMPDIR, removed (with everything in it) on destruction.
class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

  private:
    std::filesystem::path m_path;
};

void writeFile(const std::filesystem::path& file, const std::string& content);
std::string readFile(const std::filesystem::path& file);

struct RunResult {
    int status = -1; // exit code, or 128+signal
    std::string out;
    std::string err;
};

// Runs argv (no shell) with `input` on stdin; extraEnv is added to the current environment.
RunResult run(const std::vector<std::string>& argv, const std::string& input = {},
              const std::map<std::string, std::string>& extraEnv = {}, int timeoutSeconds = 60);

// Points XDG_STATE_HOME/XDG_DATA_HOME/XDG_RUNTIME_DIR at a private temp dir for the test's
// lifetime.
class IsolatedXdg {
  public:
    IsolatedXdg();
    ~IsolatedXdg();
    const std::filesystem::path& root() const { return m_dir.path(); }

  private:
    TempDir m_dir;
    std::map<std::string, std::string> m_saved;
};

std::string cliPath();        // the built sandbench-cli
std::string trySyscallPath(); // the syscall probe program
// test-network (tests/probe/test-network.c): runs a command in a network namespace of its own
// where 198.18.0.1 and 2001:db8::1 are local and answer HTTP on the port it is given.
std::string testNetworkPath();
std::string staticTrySyscallPath(); // the same, linked statically (for image roots)

} // namespace sbtest
