// A session's on-disk home: $XDG_STATE_HOME/sandbench/sessions/ID/
//   session.json  what ran, over which project, since when, in which state
//   upper/        the overlay's upper layer: every change the agent made to the project
//   work/         overlayfs scratch space
//   lock          held (flock) by the supervisor while the session runs
// Beside them, sessions/.spare+ is such a folder without session.json, made by a running session
// for the next one (prepareSpareSession).
#pragma once

#include "base/Error.h"
#include "base/UniqueFd.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sb {

enum class SessionState { Running, Ended, Interrupted };

struct SessionInfo {
    std::string id;
    std::filesystem::path project; // the real folder, canonical
    std::vector<std::string> command;
    std::int64_t startedNs = 0; // CLOCK_REALTIME; real files changed after this conflict on apply
    std::int64_t endedNs = 0;
    int exitStatus = -1;
    SessionState state = SessionState::Running;
    // Resuming (run/start --resume): the ended session whose layer of changes this one took
    // over, and in the ended one, the session that continues it. The changes then date from the
    // first session's start: a real file changed since then is a conflict at apply.
    std::string resumedFrom, continuedIn;
    std::string forkedFrom; // `fork`: "SESSION" or "SESSION@SNAPSHOT" whose layer this copies
    std::int64_t changesSinceNs = 0; // 0: since startedNs

    // Since when real files changed under this session's layer are conflicts.
    std::int64_t changesBaseNs() const { return changesSinceNs != 0 ? changesSinceNs : startedNs; }
    std::filesystem::path directory() const;
    std::filesystem::path upperDir() const { return directory() / "upper"; }
    std::filesystem::path workDir() const { return directory() / "work"; }
    std::filesystem::path lockFile() const { return directory() / "lock"; }
};

std::filesystem::path sessionsDirectory();

// A fresh id: "YYYYMMDD-HHMMSS-xxxx" (random suffix). Ids are [A-Za-z0-9_.-]{1,64}, not
// starting with '-' or '.'.
std::string newSessionId();
bool isValidSessionId(const std::string& id);
// Whether `id` (one asked for, not generated) may name a new session: an error saying why not
// (its form, or a session of that name). createSession() checks again, as it takes the name.
Status checkNewSessionId(const std::string& id);

// Creates the session directory (mode 0700) and writes session.json atomically. The directory
// is the spare one (below) renamed, when there is one.
Result<SessionInfo> createSession(const std::filesystem::path& project,
                                  std::vector<std::string> command, std::string id = {});
// Makes a spare session directory (upper/, work/ and lock, empty) for the next createSession(),
// unless one is waiting already. Making a folder's inodes is the slowest step of a start on a
// disk (0.3-1 ms on ext4); a running session makes the next one's instead. Its name is no valid
// session id, so nothing lists it.
void prepareSpareSession();
Result<SessionInfo> loadSession(const std::string& id);
Status saveSession(const SessionInfo& session);
std::vector<SessionInfo> listSessions();

// The running supervisor holds an exclusive flock on lockFile() for the session's lifetime.
// Returns the lock to keep (held until its descriptor closes), or an error if another process
// holds it.
Result<UniqueFd> lockSession(const SessionInfo& session);
// True while a supervisor holds the lock.
bool sessionIsLive(const SessionInfo& session);
// Blocks until no supervisor holds the lock; returns the lock, held until it closes.
Result<UniqueFd> waitForSessionEnd(const SessionInfo& session);
// Deletes the session's folder and everything in it (the layer of changes too: the caller
// decides whether they may go), never following a symlink, making each folder writable first
// (overlayfs leaves its work folder at mode 000). Refuses while the session runs.
Status removeSessionFolder(const SessionInfo& session);

// A folder in sessionsDirectory() named like a session but without a valid session.json: what a
// start that failed after making it left (older versions did), or a damaged record. Such a
// folder blocks its id, and neither `rm` nor `gc` saw it as a session.
struct LeftoverSessionFolder {
    std::string id;
    std::string problem;     // why its session.json does not count: missing, not valid, …
    bool live = false;       // a supervisor holds its lock
    bool holdsFiles = false; // its upper layer holds something (or cannot be read)
};
// NotFound when `id` names no such folder (a valid session, or nothing).
Result<LeftoverSessionFolder> leftoverSessionFolder(const std::string& id);
std::vector<LeftoverSessionFolder> leftoverSessionFolders();
// Removes it with its lock held; refused while a supervisor holds the lock. The caller decides
// whether files in its upper layer may go.
Status removeLeftoverSessionFolder(const LeftoverSessionFolder& left);

} // namespace sb
