#include "SessionWatch.h"

namespace sb {

namespace {

std::string noFileEvents(const Error& why)
{
    return "warning: no live file events (the end-of-session summary still lists the changes): " +
           why.describe();
}

} // namespace

SessionWatch::SessionWatch(const SessionWatchOptions& options, Sink sink, const Notice& notice)
    : m_sink(std::move(sink)), m_notice(notice), m_limits(options.limits)
{
    auto forward = [this](std::vector<nlohmann::json> events) {
        for (nlohmann::json& e : events)
            m_sink(std::move(e));
    };
    // Events come in windows of 250 ms anyway; a command over sooner than this costs no watch.
    constexpr std::chrono::milliseconds kWatchAfter{100};
    auto files = WorkspaceWatch::start(options.upper, options.project, forward, {}, kWatchAfter);
    if (files)
        m_files = std::move(files.value());
    else if (m_notice)
        m_notice(noFileEvents(files.error()));
    auto counters = LimitWatch::start(options.cgroupKind, options.cgroups, options.limits, forward);
    if (counters)
        m_counters = std::move(counters.value());
    else if (m_notice)
        m_notice("warning: cgroup limit hits will not be reported: " + counters.error().describe());
}

SessionWatch::~SessionWatch()
{
    // The threads call the sink, which may reach into objects destroyed after this one.
    stopWatches();
}

void SessionWatch::stopWatches()
{
    // Both threads finish at once; each is then waited for.
    if (m_files) m_files->requestStop();
    if (m_counters) m_counters->requestStop();
    if (m_files) m_files->stop();
    if (m_counters) m_counters->stop();
}

void SessionWatch::sessionEnded(bool timedOut, int exitStatus)
{
    if (m_ended) return;
    m_ended = true;
    if (timedOut) m_sink(wallLimitEvent(m_limits));
    stopWatches();
    if (m_files) {
        if (auto e = m_files->notWatched(); e && m_notice) m_notice(noFileEvents(*e));
        if (std::size_t n = m_files->unwatchedFolders(); n > 0 && m_notice)
            m_notice("note: " + std::to_string(n) +
                     " folders were too many to watch (fs.inotify.max_user_watches); their "
                     "changes are only in the end-of-session summary");
    }
    if (!timedOut)
        if (auto e = exitLimitEvent(m_limits, exitStatus)) m_sink(std::move(*e));
}

} // namespace sb
