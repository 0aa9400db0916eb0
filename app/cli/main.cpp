#include "Commands.h"
#include "base/ProcessLimits.h"
#include "config.h"
#include "recording/RecordingStore.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <string_view>

namespace sbcli {

int fail(const std::string& message, int code)
{
    std::fprintf(stderr, "sandbench-cli: %s\n", message.c_str());
    return code;
}

int fail(const sb::Error& error, int code)
{
    return fail(error.describe() + (error.sysErrno == EFBIG ? sb::fileSizeLimitNote() : ""), code);
}

[[noreturn]] void exitWith(int code)
{
    std::fflush(stdout);
    std::fflush(stderr);
    std::exit(code);
}

} // namespace sbcli

int main(int argc, char** argv)
{
    // Started without stdin (or stdout, stderr), the first file opened would take that number
    // and a sandboxed command would read or write it as if it were a stream: fill the gaps.
    for (int fd = 0; fd <= 2; ++fd)
        if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) ::open("/dev/null", O_RDWR);
    // Under a file-size limit (ulimit -f), a write past it fails with EFBIG, an error that
    // names the file, instead of killing the supervisor with SIGXFSZ before it says anything.
    // The sandbox's processes start with every signal's default again.
    ::signal(SIGXFSZ, SIG_IGN);
    // Diagnostics go to stderr: stdout belongs to the sandboxed command and to data (--json).
    // From any thread: the recording's threads warn too.
    spdlog::set_default_logger(spdlog::stderr_logger_mt("sandbench-cli"));
    spdlog::set_pattern("sandbench-cli: %v");
    // --host ssh://… (or SANDBENCH_HOST): the whole command runs on that host.
    if (auto status = sbcli::relayToHost(argc, argv)) return *status;
    // The --host note sits in the description: the subcommands' list must end the help (the
    // package test and the completion read it).
    CLI::App app{"sandbench-cli: run AI coding agents in a local sandbox and review what they "
                 "changed before it reaches your project.\nBefore the command, --host "
                 "ssh://[USER@]HOST[:PORT] (or SANDBENCH_HOST) runs it on that host over ssh, "
                 "with that host's sessions, files and recordings (docs/remote.md)."};
    app.set_version_flag("--version", SANDBENCH_VERSION);
    app.require_subcommand(1);
    // `run` starts every sandbox and `exec` runs every program's process: when one of them is
    // the command, the other commands' options and validators are not set up (2.5 ms of CPU
    // for all of them, more than the rest of a start of the program).
    const std::string_view first = argc >= 2 ? argv[1] : "";
    const bool onlyRun = first == "run";
    const bool onlyPrograms = first == "exec" || first == "files" || first == "start";
    sbcli::addRunCommand(app);
    if (onlyPrograms) sbcli::addProgramCommands(app);
    if (!onlyRun && !onlyPrograms) {
        sbcli::addWorkspaceCommands(app);
        sbcli::addDoctorCommand(app);
        sbcli::addDemoCommand(app);
        sbcli::addRecordingCommands(app);
        sbcli::addClientCommands(app);
        sbcli::addProgramCommands(app);
        sbcli::addMcpCommand(app);
        sbcli::addServeCommand(app);
        sbcli::addImageCommands(app);
        sbcli::addSnapshotCommands(app);
        sbcli::addPortCommands(app);
        sbcli::addDialCommand(app);
    }
    // A session whose supervisor died is marked interrupted by whichever program starts next;
    // a damaged database is reported by the commands that read it, not here. `run` and
    // `start` leave it to their recording writer, which opens the database on its own thread
    // anyway: a start does not wait for SQLite. `exec`, `files` and `mcp` talk to a live
    // session and never read the recordings.
    app.parse_complete_callback([&app] {
        for (const char* live : {"run", "start", "exec", "files", "mcp", "dial-stdio"})
            if (app.got_subcommand(live)) return;
        (void)sb::markInterruptedSessions();
    });
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return sbcli::kUsageError;
    }
    return 0;
}
