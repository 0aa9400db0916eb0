// One control connection to a session, shared by every request of the E2B API for that
// sandbox: requests come on the HTTP server's threads, the session's answers are read on a
// thread of the link's own and handed to whoever waits for them. The link keeps the table of
// the processes the API started, by their pid in the sandbox, as E2B's envd does: a process
// outlives the HTTP stream that started it and is reached later by pid (Connect, SendSignal,
// SendInput, List).
#pragma once

#include "base/Error.h"
#include "control/ControlClient.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace sb::e2b {

// What a process did, for a stream that follows it; or (File) what changed in the workspace,
// for a stream that watches it.
struct ProcessEvent {
    enum class Kind { Started, Stdout, Stderr, Waiting, Exit, File };
    Kind kind = Kind::Exit;
    std::int64_t pid = 0;
    std::string bytes; // Stdout, Stderr
    // Waiting: the approval request; Exit: the exec_exit body; File: the session's file event
    // (docs/protocol.md, "File events")
    nlohmann::json body;
    // Exit: it did not exit, the sandbox (or the link to it) went away with it running.
    bool gone = false;
};

// The events of one process for one follower, thread-safe.
class EventQueue {
  public:
    void push(ProcessEvent event);
    // What arrived, waiting up to `timeout` for something.
    std::deque<ProcessEvent> take(std::chrono::milliseconds timeout);

  private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<ProcessEvent> m_events;
};

// How a process was asked for, for List: E2B's ProcessConfig.
struct ProcessConfig {
    std::string cmd;
    std::vector<std::string> args;
    std::map<std::string, std::string> envs;
    std::string cwd;
    std::string tag;
};

struct ProcessEntry {
    std::int64_t pid = 0; // 0 until it started
    ProcessConfig config;
    bool stdinOpen = false;
    bool tty = false; // started on a terminal: its output is the terminal's (E2B's pty)
};

class SessionLink {
  public:
    static Result<std::unique_ptr<SessionLink>> open(const std::string& sessionId,
                                                     const std::string& clientName);
    // Over a connected client (tests).
    explicit SessionLink(std::unique_ptr<ControlClient> client);
    ~SessionLink();
    SessionLink(const SessionLink&) = delete;
    SessionLink& operator=(const SessionLink&) = delete;

    // False once the session ended or the connection broke.
    bool alive() const { return !m_dead; }

    // exec_start with `request` (its id is the link's); every event of the process goes to
    // `follower`, the first a Started (with its pid) or an Exit (it never ran).
    Status start(nlohmann::json request, ProcessConfig config,
                 std::shared_ptr<EventQueue> follower);
    // Its events from now on, to `follower`, which first gets Started; NotFound when no process
    // of the link has that pid.
    Status follow(std::int64_t pid, std::shared_ptr<EventQueue> follower);
    void unfollow(const std::shared_ptr<EventQueue>& follower);
    Status signal(std::int64_t pid, int signal);
    Status input(std::int64_t pid, std::string_view bytes);
    Status closeStdin(std::int64_t pid);
    Status resize(std::int64_t pid, unsigned rows, unsigned cols);
    // The running processes (those that started).
    std::vector<ProcessEntry> processes() const;
    // The running process with that pid, if any.
    std::optional<ProcessEntry> process(std::int64_t pid) const;

    // A file_request and its reply's body (ok or not), waiting up to `timeout`.
    Result<nlohmann::json> file(nlohmann::json request,
                                std::chrono::milliseconds timeout = std::chrono::seconds(60));
    // Freezes the sandbox (`paused`) or thaws it: pause_request.
    Status pause(bool paused);
    // A code interpreter's execution for the session's recording and its clients:
    // execution_record, answered once the supervisor took it.
    Status recordExecution(nlohmann::json execution);
    // The session's file events from now on, to `watcher` (Kind::File; Exit, gone, when the
    // session ends): the first watcher subscribes the link to the session's activity events.
    Status watchFiles(std::shared_ptr<EventQueue> watcher);
    void unwatchFiles(const std::shared_ptr<EventQueue>& watcher);
    // Whether anyone watches the session's files now.
    bool watchingFiles() const;
    // The API itself rewrote the file `path` (the sandbox's absolute path), which was there
    // already: its watchers get a File event {"change": "written", "sandbox_path": path}. The
    // session's own watch says nothing of a file it reported added once, however often it is
    // written; envd's watch tells of each write.
    void announceWrite(const std::string& path);

  private:
    struct Process {
        ProcessEntry entry;
        std::vector<std::shared_ptr<EventQueue>> followers;
    };
    void readLoop();
    void dispatch(proto::Message& m);
    void endAll(const std::string& why);
    Status send(const proto::Message& m);
    // The exec id of a started process; NotFound otherwise. Under m_mutex.
    Result<std::uint64_t> execOf(std::int64_t pid) const;
    // execOf() under the lock, after `check` of its entry passed.
    Result<std::uint64_t> control(std::int64_t pid,
                                  const std::function<Status(ProcessEntry&)>& check = {});
    void deliver(Process& p, const ProcessEvent& event);
    // A request whose reply (or error) carries its id, and that reply's body.
    Result<nlohmann::json> request(proto::MsgType type, nlohmann::json body,
                                   std::chrono::milliseconds timeout);

    std::unique_ptr<ControlClient> m_client;
    int m_wake = -1; // eventfd: stop the reader
    std::atomic<bool> m_dead{false};
    std::atomic<std::uint64_t> m_nextId{1};
    std::mutex m_sendMutex;
    mutable std::mutex m_mutex;
    std::map<std::uint64_t, Process> m_processes; // by exec id
    // Requests waiting for their reply (file and pause requests), by id.
    std::map<std::uint64_t, std::promise<Result<nlohmann::json>>> m_files;
    std::string m_deathReason;
    std::vector<std::shared_ptr<EventQueue>> m_fileWatchers;
    bool m_subscribed = false; // to the session's activity events, for m_fileWatchers
    std::thread m_reader;
};

} // namespace sb::e2b
