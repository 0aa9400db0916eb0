// Who the sandbox runs as, and the steps that take privileges away.
#pragma once

#include "base/Error.h"

#include <string>
#include <sys/types.h>

namespace sb {

struct SandboxIdentity {
    bool privileged = false; // Sandbench runs as real root: set up mounts first, then drop
    uid_t uid = 0;           // inside and outside the sandbox (mapped to itself)
    gid_t gid = 0;
};

// The caller's uid/gid, or kRootSandboxUid/Gid when the caller is root.
SandboxIdentity sandboxIdentity();

// Unprivileged path: the supervisor maps the child's user namespace "uid uid 1".
Status writeIdMaps(pid_t child, uid_t uid, gid_t gid);

// A user namespace whose only mapping sends fromUid/fromGid to toUid/toGid, for idmapped mounts:
// files the project owner owns appear owned by the sandbox user. Returns an O_CLOEXEC ns fd.
// `procRoot` is a proc mount of the caller's pid namespace.
Result<int> makeIdmapNamespace(uid_t fromUid, gid_t fromGid, uid_t toUid, gid_t toGid,
                               const std::string& procRoot = "/proc");

// Privileged path: become the sandbox user for good (groups, gid, uid), then enter a fresh user
// namespace that maps only that user, so nothing inside can claim any other identity.
Status becomeSandboxUser(const SandboxIdentity& id);

// Drops every capability: bounding set, ambient, inheritable, permitted and effective.
Status dropCapabilities();

} // namespace sb
