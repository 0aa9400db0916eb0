#include "base/Session.h"

#include "base/AtomicFile.h"
#include "base/Bytes.h"
#include "base/FolderTree.h"
#include "base/Paths.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <linux/fs.h>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace sb {
namespace {

std::string_view stateName(SessionState state)
{
    switch (state) {
    case SessionState::Running:
        return "running";
    case SessionState::Ended:
        return "ended";
    case SessionState::Interrupted:
        return "interrupted";
    }
    return "ended";
}

SessionState stateFromName(const std::string& name)
{
    if (name == "running") return SessionState::Running;
    if (name == "interrupted") return SessionState::Interrupted;
    return SessionState::Ended;
}

// Paths and arguments are bytes: what is not UTF-8 is kept exactly beside the shown text.
json toJson(const SessionInfo& s)
{
    json j{{"id", s.id},
           {"started_ns", s.startedNs},
           {"ended_ns", s.endedNs},
           {"exit_status", s.exitStatus},
           {"state", stateName(s.state)}};
    putBytes(j, "project", s.project.string());
    putBytesList(j, "command", s.command);
    if (!s.resumedFrom.empty()) j["resumed_from"] = s.resumedFrom;
    if (!s.continuedIn.empty()) j["continued_in"] = s.continuedIn;
    if (!s.forkedFrom.empty()) j["forked_from"] = s.forkedFrom;
    if (s.changesSinceNs != 0) j["changes_since_ns"] = s.changesSinceNs;
    return j;
}

std::int64_t nowNs()
{
    using namespace std::chrono;
    return duration_cast<nanoseconds>(system_clock::now().time_since_epoch()).count();
}

Result<UniqueFd> openLock(const SessionInfo& session)
{
    UniqueFd fd(::open(session.lockFile().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!fd) return sysError("open " + session.lockFile().string());
    return fd;
}

} // namespace

fs::path SessionInfo::directory() const
{
    return sessionsDirectory() / id;
}

fs::path sessionsDirectory()
{
    return stateDirectory() / "sessions";
}

bool isValidSessionId(const std::string& id)
{
    // Not starting with '-' (it would read as an option on every command line that names it)
    // nor '.' (hidden folders, "." and "..").
    if (id.empty() || id.size() > 64 || id[0] == '-' || id[0] == '.') return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
}

std::string newSessionId()
{
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    localtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    // 24 random bits: starts in the same second (scripts, benchmarks: dozens) stay apart.
    std::random_device rd;
    char suffix[8];
    std::snprintf(suffix, sizeof suffix, "%06x", rd() & 0xffffffu);
    return std::string(stamp) + "-" + suffix;
}

namespace {

// Asks ext4's allocator (Orlov) to treat each session folder as the top of a hierarchy, as it
// does home folders, and spread them over the block groups instead of packing them into the
// sessions folder's group. Without a journal, ext4 skips every inode of a group freed in the
// last minute (up to six while its inode table is not yet written back) each time it makes an
// inode there, and overlayfs frees three at every mount: sessions packed into one group slowed
// each other's start by several milliseconds. A hint only: other file systems refuse the flag
// (tmpfs) or ignore it, and nothing depends on it. Checked where session folders are made: on
// the spare's thread, or by a start that found no spare.
void spreadSessionFolders(const fs::path& sessions)
{
    const UniqueFd fd(::open(sessions.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd) return;
    int flags = 0;
    if (::ioctl(fd.get(), FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_TOPDIR_FL) == 0) {
        flags |= FS_TOPDIR_FL;
        (void)::ioctl(fd.get(), FS_IOC_SETFLAGS, &flags);
    }
}

// Not a valid session id ('+'), so never a session's name.
constexpr const char* kSpare = ".spare+";

// What a session folder holds from the start, besides session.json.
Status fillSessionFolder(const fs::path& dir)
{
    for (const char* sub : {"upper", "work"})
        if (::mkdir((dir / sub).c_str(), 0755) != 0)
            return sysError("create " + (dir / sub).string());
    if (!UniqueFd(::open((dir / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)))
        return sysError("create " + (dir / "lock").string());
    return {};
}

// session.json in `dir` (the session's folder unless given), replaced whole. Never synced: see
// createSession() and saveSession().
Status writeSessionFile(const SessionInfo& session, const fs::path& dir = {})
{
    return writeFileAtomically((dir.empty() ? session.directory() : dir) / "session.json",
                               dumpJson(toJson(session), 2) + "\n",
                               {.newFileMode = 0600, .durable = false});
}

void removeSessionFolder(const fs::path& dir)
{
    std::error_code ec;
    fs::remove_all(dir, ec);
}

} // namespace

void prepareSpareSession()
{
    const fs::path sessions = sessionsDirectory();
    std::error_code ec;
    if (fs::exists(sessions / kSpare, ec)) return;
    fs::path tmp = sessions / (std::string(kSpare) + "tmp-" + std::to_string(::getpid()));
    removeSessionFolder(tmp); // one of this name is left by a killed process that had our pid
    spreadSessionFolders(sessions);
    if (::mkdir(tmp.c_str(), 0700) != 0) return;
    if (fillSessionFolder(tmp)) return removeSessionFolder(tmp);
    // Another supervisor may have made one meanwhile: one spare is enough. (A rename never
    // replaces a folder that is not empty, and a spare never is.)
    if (::rename(tmp.c_str(), (sessions / kSpare).c_str()) != 0) removeSessionFolder(tmp);
}

namespace {

Error invalidNewSessionId(const std::string& id)
{
    return inputError("invalid session id '" + id +
                      "': use 1 to 64 letters, digits, '-', '_' or '.', not starting "
                      "with '-' or '.'");
}

Error sessionIdTaken(const std::string& id)
{
    return inputError("session '" + id + "' already exists in " + sessionsDirectory().string());
}

} // namespace

Status checkNewSessionId(const std::string& id)
{
    if (!isValidSessionId(id)) return invalidNewSessionId(id);
    SessionInfo probe;
    probe.id = id;
    std::error_code ec;
    if (fs::symlink_status(probe.directory(), ec).type() != fs::file_type::not_found)
        return sessionIdTaken(id);
    return {};
}

namespace {

// Not a valid session id either: a folder being made, given its session's name once session.json
// is in it, so that no session folder ever exists without its record. One per process at a
// time (createSession's mutex); one left by a killed process of the same pid goes at the next.
std::string freshFolderName()
{
    return ".new+" + std::to_string(::getpid());
}

// Gives `from` the name `to` unless something has that name (EEXIST, ENOTEMPTY).
int renameNoReplace(const fs::path& from, const fs::path& to)
{
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL) return -1;
    // A file system without RENAME_NOREPLACE: rename() still refuses a folder that is not empty.
    std::error_code ec;
    if (fs::symlink_status(to, ec).type() != fs::file_type::not_found) {
        errno = EEXIST;
        return -1;
    }
    return ::rename(from.c_str(), to.c_str());
}

} // namespace

Result<SessionInfo> createSession(const fs::path& project, std::vector<std::string> command,
                                  std::string id)
{
    const bool generated = id.empty();
    if (!generated && !isValidSessionId(id)) return invalidNewSessionId(id);
    SessionInfo s;
    s.project = project;
    s.command = std::move(command);
    s.startedNs = nowNs();

    std::error_code ec;
    const fs::path sessions = sessionsDirectory();
    fs::create_directories(sessions, ec);
    if (ec) return sysError("create " + sessions.string(), ec.value());
    if (!generated)
        if (auto e = checkNewSessionId(id)) return *e; // before the spare is taken for nothing
    static std::mutex freshFolder;
    std::lock_guard lock(freshFolder);
    const fs::path fresh = sessions / freshFolderName();
    removeSessionFolder(fresh);
    // The spare, if one waits (two starts may race for it: one gets it, the other makes its own).
    if (::rename((sessions / kSpare).c_str(), fresh.c_str()) != 0) {
        spreadSessionFolders(sessions);
        if (::mkdir(fresh.c_str(), 0700) != 0) return sysError("create " + fresh.string());
        if (auto e = fillSessionFolder(fresh)) {
            removeSessionFolder(fresh);
            return *e;
        }
    }
    // A name given is refused when taken; a generated one is drawn again.
    for (int attempt = 1;; ++attempt) {
        s.id = generated ? newSessionId() : id;
        // Not synced: the session's start is on the cold-start path, and a machine crash before
        // the next sync loses a session that had not done anything yet.
        if (auto e = writeSessionFile(s, fresh)) {
            removeSessionFolder(fresh);
            return e->within("cannot create session " + s.id);
        }
        if (renameNoReplace(fresh, s.directory()) == 0) return s;
        const int err = errno;
        if (err != EEXIST && err != ENOTEMPTY) {
            removeSessionFolder(fresh);
            return sysError("create " + s.directory().string(), err);
        }
        if (!generated || attempt == 10) {
            removeSessionFolder(fresh);
            return sessionIdTaken(s.id);
        }
    }
}

Status saveSession(const SessionInfo& session)
{
    // Not synced either (an fsync here cost 0.4-7 ms at every session's end): after a machine
    // crash the file holds the old record or the new one, as rename is atomic and ext4
    // (auto_da_alloc, the default) and btrfs write a file's data before a rename over another.
    // The old record says "running" with no lock holder, which loadSession() reads as
    // interrupted. The upper layer it describes is not synced either (the overlay is volatile,
    // see Mounts.cpp): durability of the record alone would promise nothing.
    return writeSessionFile(session);
}

Result<SessionInfo> loadSession(const std::string& id)
{
    if (!isValidSessionId(id)) return inputError("invalid session id '" + id + "'");
    SessionInfo probe;
    probe.id = id;
    fs::path file = probe.directory() / "session.json";
    std::ifstream in(file);
    if (!in)
        return Error{ErrorCode::NotFound, 0,
                     "no session '" + id + "' (looked in " + sessionsDirectory().string() + ")"};
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return inputError(file.string() + ": not a valid session file");
    try {
        SessionInfo s;
        s.id = j.at("id").get<std::string>();
        auto project = getBytes(j, "project");
        auto command = getBytesList(j, "command");
        if (!project || !command)
            return inputError(file.string() + ": no readable \"project\" or \"command\"");
        s.project = *project;
        s.command = std::move(*command);
        s.startedNs = j.at("started_ns").get<std::int64_t>();
        s.endedNs = j.value("ended_ns", std::int64_t{0});
        s.exitStatus = j.value("exit_status", -1);
        s.state = stateFromName(j.value("state", std::string("ended")));
        s.resumedFrom = j.value("resumed_from", std::string());
        s.continuedIn = j.value("continued_in", std::string());
        s.forkedFrom = j.value("forked_from", std::string());
        s.changesSinceNs = j.value("changes_since_ns", std::int64_t{0});
        if (s.id != id)
            return inputError(file.string() + ": id '" + s.id + "' does not match its folder");
        // A "running" session whose supervisor is gone died without saying so.
        if (s.state == SessionState::Running && !sessionIsLive(s))
            s.state = SessionState::Interrupted;
        return s;
    } catch (const json::exception& e) {
        return inputError(file.string() + ": " + e.what());
    }
}

std::vector<SessionInfo> listSessions()
{
    std::vector<SessionInfo> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(sessionsDirectory(), ec)) {
        if (auto s = loadSession(entry.path().filename().string()))
            out.push_back(std::move(s.value()));
    }
    std::sort(out.begin(), out.end(),
              [](const SessionInfo& a, const SessionInfo& b) { return a.startedNs < b.startedNs; });
    return out;
}

Result<UniqueFd> lockSession(const SessionInfo& session)
{
    auto fd = openLock(session);
    if (!fd) return fd;
    if (::flock(fd->get(), LOCK_EX | LOCK_NB) != 0)
        return errno == EWOULDBLOCK ? inputError("session '" + session.id + "' is already running")
                                    : sysError("lock " + session.lockFile().string());
    return fd;
}

bool sessionIsLive(const SessionInfo& session)
{
    const UniqueFd fd(::open(session.lockFile().c_str(), O_RDONLY | O_CLOEXEC));
    return fd && ::flock(fd.get(), LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
}

Result<UniqueFd> waitForSessionEnd(const SessionInfo& session)
{
    auto fd = openLock(session);
    if (!fd) return fd;
    while (::flock(fd->get(), LOCK_EX) != 0)
        if (errno != EINTR) return sysError("wait for session " + session.id);
    return fd;
}

Status removeSessionFolder(const SessionInfo& session)
{
    if (sessionIsLive(session))
        return Error{ErrorCode::Conflict, 0,
                     "session " + session.id + " is running: stop it first"};
    return removeFolderTree(session.directory());
}

Result<LeftoverSessionFolder> leftoverSessionFolder(const std::string& id)
{
    SessionInfo probe;
    probe.id = id;
    std::error_code ec;
    auto loaded = loadSession(id);
    if (loaded || !isValidSessionId(id) || !fs::is_directory(probe.directory(), ec))
        return Error{ErrorCode::NotFound, 0, "no leftover folder of a session '" + id + "'"};
    LeftoverSessionFolder left;
    left.id = id;
    left.problem = loaded.error().code == ErrorCode::NotFound ? "it has no session.json"
                                                              : loaded.error().message;
    left.live = sessionIsLive(probe);
    left.holdsFiles = mayHoldFiles(probe.upperDir());
    return left;
}

std::vector<LeftoverSessionFolder> leftoverSessionFolders()
{
    std::vector<LeftoverSessionFolder> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(sessionsDirectory(), ec))
        if (auto left = leftoverSessionFolder(entry.path().filename().string()))
            out.push_back(std::move(left.value()));
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return out;
}

Status removeLeftoverSessionFolder(const LeftoverSessionFolder& left)
{
    SessionInfo probe;
    probe.id = left.id;
    // Held while the folder goes: a supervisor that takes it meanwhile is refused its lock.
    auto lock = lockSession(probe);
    if (!lock)
        return Error{ErrorCode::Conflict, 0,
                     "the folder of session " + left.id + " is in use by a running supervisor"};
    return removeFolderTree(probe.directory());
}

} // namespace sb
