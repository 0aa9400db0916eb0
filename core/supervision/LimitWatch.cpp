#include "supervision/LimitWatch.h"

#include "base/ActivityKinds.h"
#include "base/SignalFreeThread.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

namespace sb {
namespace {

// Counters without change notification (cgroup v1 memory) are read every ~250 ms: the wait
// below, then a gap that keeps a counter rising under pressure from waking the thread in a loop.
constexpr int kReadEveryMs = 200;
constexpr int kMinGapMs = 50;

long long nowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

} // namespace

std::vector<LimitCounter> limitCounters(CgroupSupport::Kind kind, const Limits& limits)
{
    std::vector<LimitCounter> out;
    if (kind == CgroupSupport::Kind::V2) {
        if (limits.memoryMb > 0) {
            // "max": usage reached memory.max and the kernel reclaimed to stay under it.
            out.push_back({0, "memory.events", "max", "memory", "throttled"});
            out.push_back({0, "memory.events", "oom_kill", "memory", "killed"});
        }
        if (limits.pids > 0) out.push_back({0, "pids.events", "max", "pids", "refused"});
    } else if (kind == CgroupSupport::Kind::V1) {
        if (limits.memoryMb > 0) {
            out.push_back({0, "memory.failcnt", "", "memory", "throttled"});
            out.push_back({0, "memory.oom_control", "oom_kill", "memory", "killed"});
        }
        if (limits.pids > 0) out.push_back({1, "pids.events", "max", "pids", "refused"});
    }
    return out;
}

std::map<std::string, std::uint64_t> parseCounters(std::string_view text)
{
    std::map<std::string, std::uint64_t> out;
    while (!text.empty()) {
        auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
        auto space = line.rfind(' ');
        std::string_view key =
            space == std::string_view::npos ? std::string_view() : line.substr(0, space);
        std::string_view number = space == std::string_view::npos ? line : line.substr(space + 1);
        if (number.empty() || number.find_first_not_of("0123456789") != std::string_view::npos)
            continue;
        std::uint64_t value = 0;
        for (char c : number)
            value = value * 10 + static_cast<std::uint64_t>(c - '0');
        out[std::string(key)] = value;
    }
    return out;
}

nlohmann::json limitEvent(const Limits& limits, const std::string& limit, const std::string& action)
{
    nlohmann::json event = {{"kind", activity::kLimit}, {"limit", limit}, {"action", action}};
    if (limit == "memory")
        event["value"] = limits.memoryMb, event["unit"] = "MiB";
    else if (limit == "pids")
        event["value"] = limits.pids, event["unit"] = "processes";
    else if (limit == "wall")
        event["value"] = limits.wallSeconds, event["unit"] = "s";
    else if (limit == "cpu_time")
        event["value"] = limits.cpuSeconds, event["unit"] = "s";
    else if (limit == "file_size")
        event["value"] = limits.fileSizeMb, event["unit"] = "MiB";
    return event;
}

nlohmann::json wallLimitEvent(const Limits& limits)
{
    return limitEvent(limits, "wall", "stopped");
}

std::optional<nlohmann::json> exitLimitEvent(const Limits& limits, int exitStatus)
{
    // Only where the policy set the rlimit: otherwise someone else sent the signal.
    nlohmann::json event;
    if (exitStatus == 128 + SIGXCPU && limits.cpuSeconds > 0)
        event = limitEvent(limits, "cpu_time", "killed"), event["signal"] = "SIGXCPU";
    else if (exitStatus == 128 + SIGXFSZ && limits.fileSizeMb > 0)
        event = limitEvent(limits, "file_size", "killed"), event["signal"] = "SIGXFSZ";
    else
        return std::nullopt;
    return event;
}

LimitReporter::LimitReporter(std::vector<LimitCounter> counters, Limits limits, long long quietMs)
    : m_counters(std::move(counters)), m_limits(limits), m_quietMs(quietMs),
      m_last(m_counters.size(), std::uint64_t{0})
{
}

std::vector<nlohmann::json>
LimitReporter::update(const std::vector<std::optional<std::uint64_t>>& values, long long nowMs,
                      bool final)
{
    for (std::size_t i = 0; i < m_counters.size() && i < values.size(); ++i) {
        if (!values[i]) continue;
        std::uint64_t& last = m_last[i];
        if (*values[i] > last) {
            const LimitCounter& c = m_counters[i];
            Held& held = m_held[{c.limit, c.action}];
            held.count += *values[i] - last;
            held.counter = c.key.empty() ? c.file : c.file + " " + c.key;
        }
        last = *values[i];
    }
    std::vector<nlohmann::json> events;
    for (auto& [key, held] : m_held) {
        if (held.count == 0) continue;
        const bool now = final || key.second == "killed" || held.lastReportMs < 0 ||
                         nowMs - held.lastReportMs >= m_quietMs;
        if (!now) continue;
        nlohmann::json event = limitEvent(m_limits, key.first, key.second);
        event["count"] = held.count;
        event["counter"] = held.counter;
        events.push_back(std::move(event));
        held.count = 0;
        held.lastReportMs = nowMs;
    }
    return events;
}

struct LimitWatch::State {
    LimitReporter reporter;
    Sink sink;
    std::vector<int> fds; // by counter; several counters may share a file's descriptor
    int stop = -1;

    State(std::vector<LimitCounter> counters, const Limits& limits)
        : reporter(std::move(counters), limits)
    {
    }
    ~State()
    {
        std::vector<int> all = fds;
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        for (int fd : all)
            if (fd >= 0) ::close(fd);
        if (stop >= 0) ::close(stop);
    }

    std::vector<std::optional<std::uint64_t>> read()
    {
        std::map<int, std::map<std::string, std::uint64_t>> files;
        std::vector<std::optional<std::uint64_t>> values(fds.size());
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (fds[i] < 0) continue;
            auto file = files.find(fds[i]);
            if (file == files.end()) {
                char buf[1024];
                // Reading from the start also re-arms the file's change notification.
                ssize_t n = ::pread(fds[i], buf, sizeof buf, 0);
                file = files
                           .emplace(fds[i], n > 0 ? parseCounters(std::string_view(
                                                        buf, static_cast<std::size_t>(n)))
                                                  : std::map<std::string, std::uint64_t>())
                           .first;
            }
            auto value = file->second.find(reporter.counters()[i].key);
            if (value != file->second.end()) values[i] = value->second;
        }
        return values;
    }

    void report(bool final)
    {
        auto events = reporter.update(read(), nowMs(), final);
        if (!events.empty()) sink(std::move(events));
    }

    void run()
    {
        // Background work: the loop that answers exec approvals, and the agent, go first.
        ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 5);
        std::vector<pollfd> polled;
        for (int fd : fds)
            if (fd >= 0 && std::none_of(polled.begin(), polled.end(),
                                        [fd](const pollfd& p) { return p.fd == fd; }))
                polled.push_back({fd, POLLPRI, 0});
        polled.push_back({stop, POLLIN, 0});
        for (;;) {
            if (::poll(polled.data(), polled.size(), kReadEveryMs) < 0 && errno != EINTR) return;
            if (polled.back().revents & POLLIN) {
                report(true);
                return;
            }
            report(false);
            // A counter that keeps rising keeps signalling: at most one reading per kMinGapMs.
            pollfd stopOnly{stop, POLLIN, 0};
            if (::poll(&stopOnly, 1, kMinGapMs) > 0) {
                report(true);
                return;
            }
        }
    }
};

LimitWatch::LimitWatch(std::unique_ptr<State> state) : m_state(std::move(state)) {}

namespace {

// The counters' files, opened (null: nothing to watch for these limits).
Result<std::unique_ptr<LimitWatch::State>> openCounters(CgroupSupport::Kind kind,
                                                        const std::vector<std::string>& folders,
                                                        const Limits& limits, LimitWatch::Sink sink)
{
    std::vector<LimitCounter> counters = limitCounters(kind, limits);
    if (counters.empty()) return std::unique_ptr<LimitWatch::State>();
    auto state = std::make_unique<LimitWatch::State>(counters, limits);
    state->sink = std::move(sink);
    std::map<std::string, int> opened;
    for (const LimitCounter& c : counters) {
        if (c.folder >= folders.size()) {
            state->fds.push_back(-1);
            continue;
        }
        std::string path = folders[c.folder] + "/" + c.file;
        auto it = opened.find(path);
        if (it == opened.end()) {
            int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) return sysError("open " + path);
            it = opened.emplace(path, fd).first;
        }
        state->fds.push_back(it->second);
    }
    return state;
}

} // namespace

Result<std::unique_ptr<LimitWatch>> LimitWatch::start(CgroupSupport::Kind kind,
                                                      const std::vector<std::string>& folders,
                                                      const Limits& limits, Sink sink)
{
    auto state = openCounters(kind, folders, limits, std::move(sink));
    if (!state) return state.error();
    if (!*state) return std::unique_ptr<LimitWatch>();
    (*state)->stop = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if ((*state)->stop < 0) return sysError("eventfd");
    std::unique_ptr<LimitWatch> watch(new LimitWatch(std::move(*state)));
    State* s = watch->m_state.get();
    auto thread = startThread("the thread that watches the session's limits", [s] { s->run(); });
    if (!thread) return thread.error();
    watch->m_thread = std::move(thread.value());
    return watch;
}

Status LimitWatch::readOnce(CgroupSupport::Kind kind, const std::vector<std::string>& folders,
                            const Limits& limits, Sink sink)
{
    auto state = openCounters(kind, folders, limits, std::move(sink));
    if (!state) return state.error();
    if (*state) (*state)->report(true);
    return {};
}

LimitWatch::~LimitWatch()
{
    stop();
}

void LimitWatch::requestStop()
{
    if (!m_thread.joinable()) return;
    std::uint64_t one = 1;
    (void)!::write(m_state->stop, &one, sizeof one);
}

void LimitWatch::stop()
{
    requestStop();
    if (m_thread.joinable()) m_thread.join();
}

} // namespace sb
