// Live file events of a running session: inotify on the overlay's upper layer (on the host),
// every folder of it watched and new ones added as they appear, on a thread of its own so that
// nothing here ever delays the supervisor's loop (which answers exec approvals). Changes are
// classified against the real project and batched by FileEventBatcher.
#pragma once

#include "base/Error.h"
#include "workspace/FileEvents.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

namespace sb {

class WorkspaceWatch {
  public:
    // Called on the watch's thread with each window's events ({"kind": "file", …}).
    using Sink = std::function<void(std::vector<nlohmann::json>)>;

    // Watches `upper` (the session's upper layer) against `project` (the real folder).
    // With `startAfter`, the watch begins that much later, on its thread, and first reports what
    // the layer holds by then (a rename made meanwhile reads as an addition and a deletion); if
    // stop() comes first, one look at the layer replaces the watch. A short session then never
    // creates an inotify instance, whose release costs an RCU grace period (8–24 ms) at exit.
    // beginNow() starts a late watch at once.
    static Result<std::unique_ptr<WorkspaceWatch>> start(const std::filesystem::path& upper,
                                                         const std::filesystem::path& project,
                                                         Sink sink, FileBatchOptions options = {},
                                                         std::chrono::milliseconds startAfter = {});
    // What a watch stopped before it began reports, without a thread: one look at the layer.
    // For a session that ended before its watch was started.
    static Status lookOnce(const std::filesystem::path& upper, const std::filesystem::path& project,
                           Sink sink, FileBatchOptions options = {});
    ~WorkspaceWatch(); // stop()
    WorkspaceWatch(const WorkspaceWatch&) = delete;
    WorkspaceWatch& operator=(const WorkspaceWatch&) = delete;

    // Reports what the kernel still holds (the sandbox's last writes), without waiting for the
    // window, and ends the thread. Idempotent.
    void stop();
    // stop() without waiting for the thread: it is told to finish (stop() then joins it).
    void requestStop();

    // Begins a late watch now, if it has not begun, and returns once it watches (or gave up).
    void beginNow();

    // Folders the watch could not add (the user's inotify watch limit): their changes are only
    // in the end-of-session summary. Read after stop().
    std::size_t unwatchedFolders() const;

    // Why a late watch could not begin (no inotify instance or watch left); read after stop().
    std::optional<Error> notWatched() const;

    struct State;

  private:
    explicit WorkspaceWatch(std::unique_ptr<State> state);

    std::unique_ptr<State> m_state;
    std::thread m_thread;
};

} // namespace sb
