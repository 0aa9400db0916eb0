#include "supervision/SessionWatch.h"

#include "workspace/Workspace.h"

namespace sb {

namespace {

std::string noFileEvents(const Error& why)
{
    return "warning: no live file events (the end-of-session summary still lists the changes): " +
           why.describe();
}

std::string limitsNotWatched(const Error& why)
{
    return "warning: cgroup limit hits will not be reported: " + why.describe();
}

} // namespace

SessionWatch::SessionWatch(SessionWatchOptions options, Sink sink, Notice notice)
    : m_options(std::move(options)), m_sink(std::move(sink)), m_notice(std::move(notice))
{
}

void SessionWatch::start()
{
    if (m_started || m_ended) return;
    m_started = true;
    // Events come in windows of 250 ms anyway; a command over sooner than this costs no watch.
    constexpr std::chrono::milliseconds kWatchAfter{100};
    FileBatchOptions batching;
    batching.runLater = [this](const std::string& path, bool directory) {
        auto m = m_options.runLater.match(path, directory, m_options.project, m_options.home);
        return m ? std::optional<std::string>(m->reason) : std::nullopt;
    };
    auto files = WorkspaceWatch::start(m_options.upper, m_options.project, forwarder(), batching,
                                       kWatchAfter);
    if (files)
        m_files = std::move(files.value());
    else if (m_notice)
        m_notice(noFileEvents(files.error()));
    auto counters =
        LimitWatch::start(m_options.cgroupKind, m_options.cgroups, m_options.limits, forwarder());
    if (counters)
        m_counters = std::move(counters.value());
    else if (m_notice)
        m_notice(limitsNotWatched(counters.error()));
}

std::function<void(std::vector<nlohmann::json>)> SessionWatch::forwarder()
{
    return [this](std::vector<nlohmann::json> events) {
        for (nlohmann::json& e : events)
            m_sink(std::move(e));
    };
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
    if (timedOut) m_sink(wallLimitEvent(m_options.limits));
    if (!m_started) {
        // Over before the watches began: one look at the layer and one reading of the counters
        // tell what the watches would have.
        if (auto e = WorkspaceWatch::lookOnce(m_options.upper, m_options.project, forwarder());
            e && m_notice)
            m_notice(noFileEvents(*e));
        if (auto e = LimitWatch::readOnce(m_options.cgroupKind, m_options.cgroups, m_options.limits,
                                          forwarder());
            e && m_notice)
            m_notice(limitsNotWatched(*e));
    }
    stopWatches();
    // The layer is final: what file requests left half written (a killed upload, a helper
    // killed mid-write) goes before the summary and the review read it.
    (void)removeWriteTemporaries(m_options.upper);
    if (m_files) {
        if (auto e = m_files->notWatched(); e && m_notice) m_notice(noFileEvents(*e));
        if (std::size_t n = m_files->unwatchedFolders(); n > 0 && m_notice)
            m_notice("note: " + std::to_string(n) +
                     " folders were too many to watch (fs.inotify.max_user_watches); their "
                     "changes are only in the end-of-session summary");
    }
    if (!timedOut)
        if (auto e = exitLimitEvent(m_options.limits, exitStatus)) m_sink(std::move(*e));
}

} // namespace sb
