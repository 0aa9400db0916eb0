// Limit hits of a running session: the cgroup's event counters (cgroup v2 memory.events and
// pids.events; cgroup v1 memory.failcnt, memory.oom_control and pids.events) read when the
// kernel signals a change (POLLPRI, where it does) and every 250 ms otherwise, on a thread of
// its own; and the limits the supervisor sees itself (the wall clock, a command killed by
// SIGXCPU or SIGXFSZ). docs/protocol.md ("Limit events") documents the events.
#pragma once

#include "base/Error.h"
#include "policy/Policy.h"
#include "sandbox/ResourceLimits.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace sb {

// One counter that rises when the sandbox meets a limit.
struct LimitCounter {
    std::size_t folder = 0; // index into the session's cgroup folders
    std::string file;       // in that folder: "memory.events"
    std::string key;        // the line's key ("max", "oom_kill"); "" for a file of one number
    std::string limit;      // "memory", "pids"
    std::string action;     // what the kernel did: "throttled", "killed", "refused"
};

// The counters worth watching for this kind of cgroup and these limits (none for a limit that
// is not set). v1 folders are ordered memory, pids, cpu, as createSessionCgroups makes them.
std::vector<LimitCounter> limitCounters(CgroupSupport::Kind kind, const Limits& limits);

// "key value" lines (memory.events, pids.events, memory.oom_control); a file holding one number
// gives it as key "".
std::map<std::string, std::uint64_t> parseCounters(std::string_view text);

// {"kind": "limit", "limit", "value", "unit", "action", …} for a limit of the policy.
nlohmann::json limitEvent(const Limits& limits, const std::string& limit,
                          const std::string& action);
// The wall-clock limit stopped the session.
nlohmann::json wallLimitEvent(const Limits& limits);
// The session's command ended by SIGXCPU (cpu_seconds) or SIGXFSZ (file_size_mb): status is
// its exit status, 128 + the signal.
std::optional<nlohmann::json> exitLimitEvent(const Limits& limits, int exitStatus);

// Turns counter readings into events: a kill at once, each time; the rest (a limit reached
// again and again under pressure) at most once per `quietMs` per limit and action, with how
// many times it happened meanwhile.
class LimitReporter {
  public:
    LimitReporter(std::vector<LimitCounter> counters, Limits limits, long long quietMs = 2000);

    // Readings by counter index (nullopt: not readable now). Counters start at zero: a session's
    // cgroups are made for it (createSessionCgroups), so a rise before the first reading is a
    // rise too. `final`: report whatever is still held back.
    std::vector<nlohmann::json> update(const std::vector<std::optional<std::uint64_t>>& values,
                                       long long nowMs, bool final = false);
    const std::vector<LimitCounter>& counters() const { return m_counters; }

  private:
    struct Held {
        std::uint64_t count = 0;
        long long lastReportMs = -1;
        std::string counter; // "memory.events max", for the event
    };
    std::vector<LimitCounter> m_counters;
    Limits m_limits;
    long long m_quietMs;
    std::vector<std::uint64_t> m_last;
    std::map<std::pair<std::string, std::string>, Held> m_held; // by (limit, action)
};

class LimitWatch {
  public:
    using Sink = std::function<void(std::vector<nlohmann::json>)>;

    // Watches the session's cgroup folders (as createSessionCgroups returned them). Null when
    // there is nothing to watch (no cgroup, or no limit that it enforces).
    static Result<std::unique_ptr<LimitWatch>> start(CgroupSupport::Kind kind,
                                                     const std::vector<std::string>& folders,
                                                     const Limits& limits, Sink sink);
    // What start() and a stop() right away would report, without a thread: for a session that
    // ended before its watch began.
    static Status readOnce(CgroupSupport::Kind kind, const std::vector<std::string>& folders,
                           const Limits& limits, Sink sink);
    ~LimitWatch(); // stop()
    LimitWatch(const LimitWatch&) = delete;
    LimitWatch& operator=(const LimitWatch&) = delete;

    // Reads the counters a last time, reports everything held back, and ends the thread.
    void stop();
    // stop() without waiting for the thread: it is told to finish (stop() then joins it).
    void requestStop();

    struct State;

  private:
    explicit LimitWatch(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
    std::thread m_thread;
};

} // namespace sb
