// Shared by the Workspace*.cpp files, not part of the core's interface: file-descriptor
// helpers that never follow a symlink, and the scan of an overlay upper layer.
#pragma once

#include "base/UniqueFd.h"
#include "workspace/Workspace.h"

#include <optional>
#include <string>
#include <sys/stat.h>
#include <utility>
#include <vector>

namespace sb::ws {

// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS): `rel` ("" = the
// directory itself) is resolved inside `dirfd` and no component may be a symlink, so a
// symlink planted anywhere on the way (even one pointing inside) fails with ELOOP instead of
// being followed. Returns -1 with errno set on failure.
int openBeneath(int dirfd, const std::string& rel, int flags, mode_t mode = 0);

// A directory beneath `root`, read-only, as a base for *at() calls.
Result<UniqueFd> openDirBeneath(int root, const std::string& rel);
// The root of an upper layer or project, which the caller names by absolute path.
Result<UniqueFd> openRoot(const std::filesystem::path& dir, const char* what);

// The target of the symlink at `rel` beneath `root`, never following it.
Result<std::string> readLinkBeneath(int root, const std::string& rel);

// lstat-like: the entry `name` in `dirfd`, never following it. nullopt if absent.
std::optional<struct statx> statAt(int dirfd, const std::string& name);
std::int64_t ctimeNs(const struct statx& st);

EntryType entryType(mode_t mode);
const char* describeType(mode_t mode);   // "a directory", "a FIFO"… for messages
bool isWhiteout(const struct statx& st); // a 0/0 character device: the path was deleted
bool isOpaque(int dirfd);

// Entry names of a directory (no "." or ".."), sorted.
Result<std::vector<std::string>> listDir(int dirfd);
// rm -rf of `name` inside `parentFd`, descending only through real directories (O_NOFOLLOW).
Status removeTree(int parentFd, const std::string& name);
// All of the file `from`'s content (from its offset) appended to `to`: copy_file_range, or read
// and write where the two file systems cannot.
Status copyContent(int from, int to);

// Path helpers for '/'-separated relative paths.
std::pair<std::string, std::string> splitParent(const std::string& rel); // {"a/b", "c"}
std::string joinPath(const std::string& dir, const std::string& name);
bool isUnder(const std::string& path, const std::string& dir); // path == dir or inside it
bool pathLess(const std::string& a, const std::string& b);     // a directory before its contents
std::size_t depth(const std::string& rel);

struct ScannedChange {
    Change change;
    bool whiteout = false;      // Deleted through a whiteout, not implied by an opaque directory
    bool opaqueContext = false; // inside an opaque directory: upper entries hide real ones
    mode_t upperMode = 0;       // st_mode of the upper entry (0 for Deleted)
};

struct Scan {
    std::vector<ScannedChange> changes; // sorted with pathLess
    std::vector<std::string> opaqueDirs;
};

Result<Scan> scanWorkspace(int upperFd, int projectFd);

// Indices into `changes` of those the requested paths select (empty = all). A requested path
// must be relative, free of "." and "..", and be a change or a directory holding changes.
Result<std::vector<std::size_t>> selectChanges(const std::vector<ScannedChange>& changes,
                                               const std::vector<std::string>& paths);
// The same validation for one requested path; returns it without trailing slashes.
Result<std::string> normalizeRequest(const std::string& path);

} // namespace sb::ws
