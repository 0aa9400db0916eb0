#include "sandbox/Landlock.h"

#include "base/UniqueFd.h"

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// Debian 12's kernel headers stop at ABI 2; the values are fixed by the kernel's ABI.
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) // ABI 3
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) // ABI 5
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

namespace sb {
namespace {

// The rights the kernel accepts on a rule for a single file rather than a directory.
constexpr std::uint64_t kFileRights =
    LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV;

// Every right that changes the file system, as far as the running ABI knows them. Read, read_dir
// and execute are left unhandled, so the kernel keeps allowing them everywhere.
std::uint64_t writeRightsFor(int abi)
{
    std::uint64_t rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                           LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                           LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                           LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                           LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    // From ABI 2 the kernel refuses renames and links across directories (EXDEV) unless REFER is
    // handled and granted, so it must be handled for `mv a/x b/` to work inside the workspace.
    if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
    // Before ABI 3 truncate(2) was not covered at all: a gap the kernel closed, not us.
    if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
    // Device ioctls can change device state; the devices the agent needs live under /dev.
    if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return rights;
}

} // namespace

int landlockAbi()
{
    long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : static_cast<int>(abi);
}

Result<int> restrictWritesTo(const std::vector<std::filesystem::path>& writableDirs)
{
    const int abi = landlockAbi();
    if (abi == 0) return 0;
    const std::uint64_t handled = writeRightsFor(abi);

    landlock_ruleset_attr attr{};
    attr.handled_access_fs = handled;
    UniqueFd ruleset(static_cast<int>(
        ::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, std::uint32_t{0})));
    if (ruleset.get() < 0) return sysError("landlock_create_ruleset");

    for (const auto& dir : writableDirs) {
        UniqueFd fd(::open(dir.c_str(), O_PATH | O_CLOEXEC));
        if (fd.get() < 0) {
            if (errno == ENOENT || errno == ENOTDIR)
                continue; // optional locations (say ~/.cache) need not exist in every sandbox
            return sysError("open " + dir.string() + " for Landlock");
        }
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) return sysError("stat " + dir.string() + " for Landlock");

        landlock_path_beneath_attr beneath{};
        beneath.allowed_access = S_ISDIR(st.st_mode) ? handled : (handled & kFileRights);
        beneath.parent_fd = fd.get();
        if (::syscall(SYS_landlock_add_rule, ruleset.get(), LANDLOCK_RULE_PATH_BENEATH, &beneath,
                      std::uint32_t{0}) != 0)
            return sysError("landlock_add_rule " + dir.string());
    }

    if (::syscall(SYS_landlock_restrict_self, ruleset.get(), std::uint32_t{0}) != 0) {
        if (errno == EPERM)
            return sysError("landlock_restrict_self (needs PR_SET_NO_NEW_PRIVS or CAP_SYS_ADMIN)",
                            EPERM);
        return sysError("landlock_restrict_self");
    }
    return abi;
}

} // namespace sb
