// The name the sandbox's own user goes by inside (E2B's templates: `user`): its /etc/passwd and
// /etc/group are those of its system root with the sandbox's uid and gid renamed, so `whoami`,
// `id` and `ls -l` inside say that name. Text files bound read-only: nothing else changes.
#pragma once

#include "sandbox/Mounts.h"

#include <string>
#include <string_view>
#include <sys/types.h>

namespace sb {

// `passwd` with every entry of `uid` or named `name` left out and `name` added for uid/gid, with
// `home` and the shell of the entry it replaces (else /bin/sh).
std::string passwdWithUser(std::string_view passwd, std::string_view name, uid_t uid, gid_t gid,
                           const std::string& home);
// `group` with every group of `gid` or named `name` left out and `name` added for gid.
std::string groupWithUser(std::string_view group, std::string_view name, gid_t gid);

// The two files for the sandbox, from systemRoot's (missing ones read as empty).
EtcFiles sandboxUserEtcFiles(const std::filesystem::path& systemRoot, std::string_view name,
                             uid_t uid, gid_t gid, const std::string& home);

} // namespace sb
