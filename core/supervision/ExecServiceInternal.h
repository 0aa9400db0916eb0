// ExecService's per-process and per-file-request state, shared by its files: ExecService.cpp
// (processes) and ExecServiceFiles.cpp (the helper's replies, file requests).
#pragma once

#include "supervision/ExecService.h"

#include <fcntl.h>
#include <unistd.h>

namespace sb {

struct ExecService::Exec {
    std::uint64_t client = 0, clientId = 0; // who asked, and its name for the process
    std::uint64_t spawnId = 0;              // the helper's
    std::string by;                         // for records: "mcp:claude-code", "sandbench-cli exec"
    std::vector<std::string> argv, env;
    std::string cwd;
    bool tty = false, detached = false, clientGone = false;
    // Whether its stdout goes to the session's terminal too: not for a process whose stdout is a
    // protocol its client records in its own terms (the code interpreter's gateway).
    bool stdoutInTranscript = true;
    std::int64_t pid = 0; // in the sandbox's numbering, once spawned
    // The supervisor's ends: stdin's write end (pipes; the pty master writes input with a pty),
    // stdout's and stderr's read ends, or the pty master.
    int stdinFd = -1, outFd = -1, errFd = -1, ptyMaster = -1;
    // Input and signals a client sent while the process was starting (no pid, no terminal yet)
    // wait here, and go to it once it runs: input first, then the signals in order.
    std::string pendingInput;
    bool closeInputWhenFlushed = false;
    std::vector<int> heldSignals;
    bool starting() const { return pid == 0 && !exited; }
    long long startedMs = 0, deadlineMs = 0, exitedAtMs = 0;
    std::int64_t startedUnixMs = 0;
    bool exited = false, timedOut = false, reported = false;
    std::optional<int> exitCode, signal;
    std::optional<std::string> denied; // the rule, when exec approval denied its exec or a child's
    std::string deniedCommand;         // what was denied (the process itself, or a child)
    std::string error;                 // why it never ran, or how its end was lost
    std::uint64_t stdoutBytes = 0, stderrBytes = 0;
    std::vector<std::uint64_t> approvalsTold; // the requests its client heard of

    int inputFd() const { return tty ? ptyMaster : stdinFd; }
    void closeInput()
    {
        if (tty) return; // a terminal has no end of input of its own: the process sees ^D
        if (stdinFd >= 0) ::close(stdinFd);
        stdinFd = -1;
    }
    void closeAll()
    {
        for (int* fd : {&stdinFd, &outFd, &errFd, &ptyMaster})
            if (*fd >= 0) ::close(std::exchange(*fd, -1));
    }
    // Pipes for stdin (or /dev/null), stdout and stderr; the child's ends go to `childEnds`.
    Status makePipes(bool withStdin, std::vector<int>& childEnds)
    {
        int in[2] = {-1, -1}, out[2], err[2];
        if (withStdin ? ::pipe2(in, O_CLOEXEC) != 0
                      : (in[0] = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
            return sysError("create the process's stdin");
        if (::pipe2(out, O_CLOEXEC) != 0) {
            for (int fd : in)
                if (fd >= 0) ::close(fd);
            return sysError("create the process's stdout");
        }
        if (::pipe2(err, O_CLOEXEC) != 0) {
            for (int fd : {in[0], in[1], out[0], out[1]})
                if (fd >= 0) ::close(fd);
            return sysError("create the process's stderr");
        }
        stdinFd = in[1];
        outFd = out[0];
        errFd = err[0];
        for (int fd : {stdinFd, outFd, errFd})
            if (fd >= 0) ::fcntl(fd, F_SETFL, O_NONBLOCK);
        childEnds = {in[0], out[1], err[1]};
        return {};
    }
};

struct ExecService::FileOp {
    std::uint64_t client = 0, clientId = 0;
    std::string by, op;
    std::string path;
    std::uint64_t offset = 0, limit = 0; // read
    std::string data;                    // write
    std::uint64_t bytes = 0;             // write: all it wrote (an upload's parts together)
    bool more = false;                   // write: the first part of an upload
    bool committing = false;             // write: the data is in, the rename asked for
    bool clientGone = false;             // nobody waits for the answer: a write is rolled back
    bool dataFrame = false;              // read: the content goes in a file_data frame
};

// A write of several parts (file_request "more"): the helper's temporary file beside the target,
// open here until the last part renames it over the target, or dropped when the client goes.
struct ExecService::Upload {
    std::uint64_t client = 0;
    UniqueFd fd; // the temporary file, written to here
    std::string path;
    std::uint64_t bytes = 0;
};

} // namespace sb
