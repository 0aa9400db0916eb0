#include "Commands.h"
#include "config.h"
#include "recording/RecordingStore.h"

#include <cerrno>
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
    return fail(error.describe(), code);
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
    // Diagnostics go to stderr: stdout belongs to the sandboxed command and to data (--json).
    // From any thread: the recording's threads warn too.
    spdlog::set_default_logger(spdlog::stderr_logger_mt("sandbench-cli"));
    spdlog::set_pattern("sandbench-cli: %v");
    CLI::App app{"sandbench-cli: run AI coding agents in a local sandbox and review what they "
                 "changed before it reaches your project"};
    app.set_version_flag("--version", SANDBENCH_VERSION);
    app.require_subcommand(1);
    sbcli::addRunCommand(app);
    // `run` starts every sandbox: when it is the command, the other commands' options and
    // validators are not set up (~0.3 ms of each start).
    if (argc < 2 || std::string_view(argv[1]) != "run") {
        sbcli::addWorkspaceCommands(app);
        sbcli::addDoctorCommand(app);
        sbcli::addDemoCommand(app);
        sbcli::addRecordingCommands(app);
        sbcli::addClientCommands(app);
        sbcli::addProgramCommands(app);
        sbcli::addMcpCommand(app);
    }
    // A session whose supervisor died is marked interrupted by whichever program starts next;
    // a damaged database is reported by the commands that read it, not here. `run` leaves it
    // to its recording writer, which opens the database on its own thread anyway: a start
    // does not wait for SQLite.
    app.parse_complete_callback([&app] {
        if (!app.got_subcommand("run")) (void)sb::markInterruptedSessions();
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
