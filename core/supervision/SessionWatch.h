// What a running session does that is no system call the supervisor answers: files it changes
// (WorkspaceWatch) and limits it meets (LimitWatch, the wall clock, SIGXCPU/SIGXFSZ), as
// activity events for the session's loop, which sends them to clients and the recording.
#pragma once

#include "policy/Policy.h"
#include "sandbox/ResourceLimits.h"
#include "supervision/LimitWatch.h"
#include "workspace/WorkspaceWatch.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sb {

struct SessionWatchOptions {
    std::filesystem::path upper;   // the session's overlay upper layer
    std::filesystem::path project; // the real project folder
    // Files that run later: their events say so (FileBatchOptions::runLater).
    RunLaterRules runLater;
    std::filesystem::path home;
    CgroupSupport::Kind cgroupKind = CgroupSupport::Kind::None;
    std::vector<std::string> cgroups; // as createSessionCgroups returned them
    Limits limits;
};

class SessionWatch {
  public:
    // Called from the watches' threads (and from sessionEnded's caller): must be thread-safe.
    using Sink = std::function<void(nlohmann::json)>;
    using Notice = std::function<void(const std::string&)>;

    // Watches nothing yet: see start().
    SessionWatch(SessionWatchOptions options, Sink sink, Notice notice);
    ~SessionWatch();
    SessionWatch(const SessionWatch&) = delete;
    SessionWatch& operator=(const SessionWatch&) = delete;

    // Starts watching, on threads of their own; what cannot be watched is said through
    // `notice` and left out. Once, and not after sessionEnded().
    void start();

    // The sandbox is gone (reaped): reports the last file changes and counter rises (read once
    // here if the watches never started), then the wall-clock limit if it ended the session,
    // or the CPU-time or file-size limit if the command died of SIGXCPU or SIGXFSZ.
    void sessionEnded(bool timedOut, int exitStatus);

    // Somebody watches the session live: file events become exact from now on (the file watch
    // otherwise begins a moment after the start, see WorkspaceWatch::start).
    void clientSubscribed()
    {
        if (m_files) m_files->beginNow();
    }

  private:
    // Reports the watches' last events and ends their threads. Idempotent.
    void stopWatches();

    // Hands a watch's batch of events to the sink.
    std::function<void(std::vector<nlohmann::json>)> forwarder();

    SessionWatchOptions m_options;
    Sink m_sink;
    Notice m_notice;
    std::unique_ptr<WorkspaceWatch> m_files;
    std::unique_ptr<LimitWatch> m_counters;
    bool m_started = false, m_ended = false;
};

} // namespace sb
