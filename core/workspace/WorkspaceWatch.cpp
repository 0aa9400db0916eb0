#include "workspace/WorkspaceWatch.h"

#include "base/SignalFreeThread.h"
#include "workspace/WorkspaceInternal.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <optional>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <unistd.h>
#include <unordered_map>

namespace sb {

namespace {

constexpr std::uint32_t kMask = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB |
                                IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR | IN_EXCL_UNLINK;
// Folders a lookup keeps open for the next paths (they come sorted, siblings together).
constexpr std::size_t kOpenFolders = 128;

long long nowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// The keys of `map` naming `folder` or something inside it.
template <class Map> std::vector<std::string> subtree(const Map& map, const std::string& folder)
{
    std::vector<std::string> out;
    if (folder.empty()) {
        for (const auto& entry : map)
            out.push_back(entry.first);
        return out;
    }
    if (map.count(folder) != 0) out.push_back(folder);
    const std::string prefix = folder + "/";
    for (auto it = map.lower_bound(prefix);
         it != map.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
        out.push_back(it->first);
    return out;
}

// A path's state on both sides, for one flush: the folders on the way stay open for the next
// path (bounded), so a window of 10,000 files in 50 folders costs about a statx per file.
class LayerLookup {
  public:
    LayerLookup(int upperRoot, int projectRoot) : m_upperRoot(upperRoot), m_projectRoot(projectRoot)
    {
    }
    ~LayerLookup() = default;
    LayerLookup(const LayerLookup&) = delete;
    LayerLookup& operator=(const LayerLookup&) = delete;

    PathState operator()(const std::string& rel)
    {
        if (m_upper.size() + m_real.size() > kOpenFolders) {
            m_upper.clear(); // the next paths open their folders again
            m_real.clear();
        }
        auto [parent, name] = ws::splitParent(rel);
        PathState s;
        if (int real = realFolder(parent); real >= 0)
            if (auto st = ws::statAt(real, name)) s.real = ws::entryType(st->stx_mode);
        const Folder& upper = upperFolder(parent);
        if (upper.hidden) return s;
        if (upper.fd.valid()) {
            if (auto st = ws::statAt(upper.fd.get(), name)) {
                if (ws::isWhiteout(*st)) return s;
                s.view = ws::entryType(st->stx_mode);
                s.upperEntry = true;
                return s;
            }
            if (upper.opaque) return s; // the real entry is hidden
        }
        s.view = s.real;
        return s;
    }

  private:
    // A folder of the session's view as the upper layer shapes it.
    struct Folder {
        UniqueFd fd;         // the upper folder; invalid when the upper layer has none
        bool hidden = false; // deleted or replaced on the way: nothing below is visible
        bool opaque = false; // the real folder's entries are hidden below
    };

    const Folder& upperFolder(const std::string& rel)
    {
        if (auto it = m_upper.find(rel); it != m_upper.end()) return it->second;
        Folder f;
        if (rel.empty()) {
            f.fd.reset(::fcntl(m_upperRoot, F_DUPFD_CLOEXEC, 3));
            f.opaque = f.fd.valid() && ws::isOpaque(f.fd.get());
        } else {
            auto [parentRel, name] = ws::splitParent(rel);
            const Folder& parent = upperFolder(parentRel);
            if (parent.hidden) {
                f.hidden = true;
            } else if (!parent.fd.valid()) {
                // No upper folder: the real one shows through unchanged.
            } else if (auto st = ws::statAt(parent.fd.get(), name)) {
                if (!S_ISDIR(st->stx_mode)) {
                    f.hidden = true; // a whiteout, or a file in the folder's place
                } else {
                    f.fd.reset(::openat(parent.fd.get(), name.c_str(),
                                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
                    f.opaque = f.fd.valid() && ws::isOpaque(f.fd.get());
                }
            } else {
                f.hidden = parent.opaque;
            }
        }
        return m_upper.emplace(rel, std::move(f)).first->second;
    }

    int realFolder(const std::string& rel)
    {
        if (auto it = m_real.find(rel); it != m_real.end()) return it->second.get();
        UniqueFd fd(ws::openBeneath(m_projectRoot, rel, O_PATH | O_DIRECTORY));
        return m_real.emplace(rel, std::move(fd)).first->second.get();
    }

    int m_upperRoot, m_projectRoot;
    std::map<std::string, Folder> m_upper;
    std::map<std::string, UniqueFd> m_real;
};

} // namespace

struct WorkspaceWatch::State {
    UniqueFd upper, project, inotify, stop;
    UniqueFd begin; // eventfd: beginNow() asks a late watch to begin
    std::mutex settling;
    std::condition_variable settledChanged;
    bool settled = false; // watching, or never will
    Sink sink;
    FileEventBatcher batcher;
    std::unordered_map<int, std::string> folders; // watch descriptor → folder
    std::map<std::string, int> watches;           // folder → watch descriptor
    std::atomic<std::size_t> unwatched{0};
    std::optional<Error> notWatched; // the watch could not begin
    bool rescan = false;
    struct MovedFrom {
        std::uint32_t cookie;
        std::string path;
        bool folder;
    };
    std::optional<MovedFrom> movedFrom; // waits for its IN_MOVED_TO

    explicit State(FileBatchOptions options) : batcher(options) {}

    void addWatch(const std::string& rel, int dirFd)
    {
        if (!inotify.valid()) return; // one look only: the session ended before the watch began
        std::string proc = "/proc/self/fd/" + std::to_string(dirFd);
        int wd = ::inotify_add_watch(inotify.get(), proc.c_str(), kMask);
        if (wd < 0) {
            ++unwatched; // ENOSPC: the user's watch limit; the end-of-session summary has it all
            return;
        }
        if (auto old = folders.find(wd); old != folders.end() && old->second != rel)
            watches.erase(old->second); // the same folder under a new name
        folders[wd] = rel;
        watches[rel] = wd;
    }

    // Watches `rel` and every folder below it. Entries already there are noted: they were made
    // before their folder was watched. The watch comes first, so nothing falls in between.
    void addTree(const std::string& rel, bool noteEntries, bool onlyIfChanged)
    {
        std::vector<std::pair<std::string, UniqueFd>> stack;
        UniqueFd root(ws::openBeneath(upper.get(), rel, O_RDONLY | O_DIRECTORY));
        if (!root.valid()) return; // gone again
        stack.emplace_back(rel, std::move(root));
        while (!stack.empty()) {
            auto [folder, fd] = std::move(stack.back());
            stack.pop_back();
            addWatch(folder, fd.get());
            auto names = ws::listDir(fd.get());
            if (!names) continue;
            for (const std::string& name : *names) {
                std::string child = ws::joinPath(folder, name);
                if (noteEntries) batcher.note(child, nowMs(), onlyIfChanged);
                auto st = ws::statAt(fd.get(), name);
                if (!st || !S_ISDIR(st->stx_mode)) continue;
                UniqueFd sub(::openat(fd.get(), name.c_str(),
                                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
                if (sub.valid()) stack.emplace_back(std::move(child), std::move(sub));
            }
        }
    }

    void forgetTree(const std::string& rel)
    {
        for (const std::string& path : subtree(watches, rel)) {
            int wd = watches[path];
            ::inotify_rm_watch(inotify.get(), wd);
            folders.erase(wd);
            watches.erase(path);
        }
    }

    void renameTree(const std::string& from, const std::string& to)
    {
        std::vector<std::pair<std::string, int>> moved;
        for (const std::string& path : subtree(watches, from)) {
            moved.emplace_back(to + path.substr(from.size()), watches[path]);
            watches.erase(path);
        }
        for (auto& [path, wd] : moved) {
            folders[wd] = path;
            watches[path] = wd;
        }
    }

    // An IN_MOVED_FROM whose IN_MOVED_TO did not follow: moved out of the layer (overlayfs
    // moves entries through its work folder), so gone from here.
    void settleMovedFrom()
    {
        if (!movedFrom) return;
        batcher.note(movedFrom->path, nowMs());
        if (movedFrom->folder) forgetTree(movedFrom->path);
        movedFrom.reset();
    }

    void onEvent(const inotify_event& ev)
    {
        if (ev.mask & IN_Q_OVERFLOW) {
            rescan = true;
            return;
        }
        auto folder = folders.find(ev.wd);
        if (ev.mask & IN_IGNORED) {
            if (folder != folders.end()) {
                if (auto w = watches.find(folder->second); w != watches.end() && w->second == ev.wd)
                    watches.erase(w);
                folders.erase(folder);
            }
            return;
        }
        if (folder == folders.end() || ev.len == 0) return; // the folder's own attributes
        std::string rel = ws::joinPath(folder->second, ev.name);
        const bool isFolder = (ev.mask & IN_ISDIR) != 0;
        const long long now = nowMs();
        if (movedFrom && !((ev.mask & IN_MOVED_TO) && ev.cookie == movedFrom->cookie))
            settleMovedFrom();
        if (ev.mask & IN_MOVED_FROM) {
            movedFrom = MovedFrom{ev.cookie, std::move(rel), isFolder};
            return;
        }
        if ((ev.mask & IN_MOVED_TO) && movedFrom) {
            batcher.noteRename(movedFrom->path, rel, now);
            if (movedFrom->folder) renameTree(movedFrom->path, rel);
            movedFrom.reset();
            return;
        }
        batcher.note(rel, now);
        if (isFolder && (ev.mask & (IN_CREATE | IN_MOVED_TO))) addTree(rel, true, false);
    }

    // Everything the inotify queue holds now.
    void readEvents()
    {
        alignas(inotify_event) char buf[64 * 1024];
        for (;;) {
            ssize_t n = ::read(inotify.get(), buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            for (char* p = buf; p < buf + n;) {
                auto* ev = reinterpret_cast<inotify_event*>(p);
                onEvent(*ev);
                p += sizeof(inotify_event) + ev->len;
            }
        }
    }

    void flush()
    {
        settleMovedFrom();
        if (rescan) {
            // Notes were lost: look at every entry of the layer and everything reported so far,
            // and report what is not as it was reported.
            rescan = false;
            addTree("", true, true);
            batcher.noteKnown(nowMs());
        }
        if (batcher.empty()) return;
        LayerLookup lookup(upper.get(), project.get());
        auto events = batcher.flush([&](const std::string& rel) { return lookup(rel); });
        if (!events.empty()) sink(std::move(events));
    }

    // Watches the whole layer from now on; with `noteExisting`, what it holds already is reported
    // (made while nothing watched).
    Status beginWatching(bool noteExisting)
    {
        inotify.reset(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
        if (!inotify.valid()) return sysError("inotify_init1");
        addTree("", noteExisting, noteExisting);
        if (watches.count("") == 0) {
            inotify.reset();
            return sysError("watch the workspace's upper directory", ENOSPC);
        }
        return {};
    }

    // Instead of a watch that never began: what the layer holds, reported at once.
    void lookAtLayer()
    {
        addTree("", true, true);
        flush();
    }

    void settle()
    {
        std::lock_guard lock(settling);
        settled = true;
        settledChanged.notify_all();
    }

    // Waits `startAfter` before it watches; a session over by then gets one look at the layer.
    void run(std::chrono::milliseconds startAfter)
    {
        // Background work: the loop that answers exec approvals, and the agent, go first.
        ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 5);
        if (!inotify.valid()) {
            pollfd wait[2] = {{stop.get(), POLLIN, 0}, {begin.get(), POLLIN, 0}};
            int n = ::poll(wait, 2, static_cast<int>(startAfter.count()));
            if (n > 0 && (wait[0].revents & POLLIN)) {
                settle();
                lookAtLayer();
                return;
            }
            if (auto e = beginWatching(true)) notWatched = *e;
            settle();
            if (notWatched) return;
        }
        for (;;) {
            long long due = batcher.dueMs();
            int timeout = due < 0 ? -1 : static_cast<int>(std::max(0LL, due - nowMs()));
            pollfd fds[2] = {{inotify.get(), POLLIN, 0}, {stop.get(), POLLIN, 0}};
            if (::poll(fds, 2, timeout) < 0 && errno != EINTR) return;
            if (fds[0].revents & POLLIN) readEvents();
            if (fds[1].revents & POLLIN) {
                readEvents(); // the sandbox is gone: what it did last is all queued by now
                flush();
                return;
            }
            due = batcher.dueMs();
            if (rescan || (due >= 0 && nowMs() >= due)) flush();
        }
    }
};

WorkspaceWatch::WorkspaceWatch(std::unique_ptr<State> state) : m_state(std::move(state)) {}

namespace {

// The layers opened, before any watching.
Result<std::unique_ptr<WorkspaceWatch::State>> openLayers(const std::filesystem::path& upper,
                                                          const std::filesystem::path& project,
                                                          WorkspaceWatch::Sink sink,
                                                          FileBatchOptions options)
{
    auto state = std::make_unique<WorkspaceWatch::State>(options);
    auto upperFd = ws::openRoot(upper, "workspace upper directory");
    if (!upperFd) return upperFd.error();
    auto projectFd = ws::openRoot(project, "project directory");
    if (!projectFd) return projectFd.error();
    state->upper = std::move(*upperFd);
    state->project = std::move(*projectFd);
    state->sink = std::move(sink);
    return state;
}

} // namespace

Status WorkspaceWatch::lookOnce(const std::filesystem::path& upper,
                                const std::filesystem::path& project, Sink sink,
                                FileBatchOptions options)
{
    auto state = openLayers(upper, project, std::move(sink), options);
    if (!state) return state.error();
    (*state)->lookAtLayer();
    return {};
}

Result<std::unique_ptr<WorkspaceWatch>> WorkspaceWatch::start(const std::filesystem::path& upper,
                                                              const std::filesystem::path& project,
                                                              Sink sink, FileBatchOptions options,
                                                              std::chrono::milliseconds startAfter)
{
    auto opened = openLayers(upper, project, std::move(sink), options);
    if (!opened) return opened.error();
    std::unique_ptr<State> state = std::move(*opened);
    state->stop.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    state->begin.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!state->stop.valid() || !state->begin.valid()) return sysError("eventfd");
    if (startAfter.count() <= 0) {
        if (auto e = state->beginWatching(false)) return *e;
        state->settled = true;
    }

    std::unique_ptr<WorkspaceWatch> watch(new WorkspaceWatch(std::move(state)));
    State* s = watch->m_state.get();
    auto thread = startThread("the thread that watches the workspace",
                              [s, startAfter] { s->run(startAfter); });
    if (!thread) return thread.error();
    watch->m_thread = std::move(thread.value());
    return watch;
}

WorkspaceWatch::~WorkspaceWatch()
{
    stop();
}

void WorkspaceWatch::requestStop()
{
    if (!m_thread.joinable()) return;
    std::uint64_t one = 1;
    (void)!::write(m_state->stop.get(), &one, sizeof one);
}

void WorkspaceWatch::stop()
{
    requestStop();
    if (m_thread.joinable()) m_thread.join();
}

void WorkspaceWatch::beginNow()
{
    if (!m_thread.joinable()) return;
    std::unique_lock lock(m_state->settling);
    if (m_state->settled) return;
    std::uint64_t one = 1;
    (void)!::write(m_state->begin.get(), &one, sizeof one);
    m_state->settledChanged.wait(lock, [this] { return m_state->settled; });
}

std::size_t WorkspaceWatch::unwatchedFolders() const
{
    return m_state->unwatched.load();
}

std::optional<Error> WorkspaceWatch::notWatched() const
{
    return m_state->notWatched;
}

} // namespace sb
