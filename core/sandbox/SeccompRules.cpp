#include "sandbox/SeccompRules.h"

#include "base/UniqueFd.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <memory>
#include <sched.h>
#include <seccomp.h>
#include <string>
#include <string_view>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>
#include <vector>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

namespace sb {
namespace {

constexpr std::uint64_t kLow32 = 0xffffffffULL;

// clone's flags are its first argument everywhere but on s390, where the stack comes first.
#if defined(__s390__) || defined(__s390x__)
constexpr unsigned kCloneFlagsArg = 1;
#else
constexpr unsigned kCloneFlagsArg = 0;
#endif

scmp_arg_cmp arg(unsigned index, scmp_compare op, std::uint64_t a, std::uint64_t b = 0)
{
    return scmp_arg_cmp{index, op, a, b};
}

// int and unsigned int arguments: the kernel reads the low 32 bits of the register and ignores
// the rest, so the filter must too, or 0x1'0000'5412 would slip past a rule written for 0x5412.
scmp_arg_cmp low32Is(unsigned index, std::uint64_t value)
{
    return arg(index, SCMP_CMP_MASKED_EQ, kLow32, value);
}

scmp_arg_cmp hasBit(unsigned index, std::uint64_t bit)
{
    return arg(index, SCMP_CMP_MASKED_EQ, bit, bit);
}

// One line of the deny list. The rule holds when every comparison in `when` holds and, if
// `onlyArg` is set, the low 32 bits of that argument are none of the values in `only`.
struct Rule {
    const char* syscall;
    int err;
    std::vector<scmp_arg_cmp> when = {};
    int onlyArg = -1;
    std::vector<std::uint32_t> only = {};
    // A deliberate act a program would not merely probe for: with a listener, the supervisor
    // answers it (EPERM) and records what was refused, and by whom.
    bool report = false;
};

Rule reported(Rule rule)
{
    rule.report = true;
    return rule;
}

Rule deny(const char* syscall, int err, std::vector<scmp_arg_cmp> when = {})
{
    return Rule{syscall, err, std::move(when)};
}

Rule denyUnlessArgIn(const char* syscall, int err, unsigned argIndex,
                     std::vector<std::uint32_t> allowed, std::vector<scmp_arg_cmp> when = {})
{
    return Rule{syscall, err, std::move(when), static_cast<int>(argIndex), std::move(allowed)};
}

std::vector<Rule> denyList()
{
    std::vector<Rule> rules = {
        // ENOSYS, not EPERM, so that callers fall back to the older calls we *can* judge:
        // glibc retries clone3 (flags hidden in memory) as clone (flags in a register), and
        // tools retry the new mount API as mount(2), which then fails plainly below.
        deny("clone3", ENOSYS),
        deny("open_tree", ENOSYS),
        deny("open_tree_attr", ENOSYS),
        deny("move_mount", ENOSYS),
        deny("fsopen", ENOSYS),
        deny("fsconfig", ENOSYS),
        deny("fsmount", ENOSYS),
        deny("fspick", ENOSYS),
        deny("mount_setattr", ENOSYS),

        // The sandbox's namespaces and mounts are its boundary: nothing inside may rearrange
        // them, nor make a nested user namespace, which hands out a fresh set of capabilities
        // and with them most of the kernel's rarely audited code.
        reported(deny("mount", EPERM)),
        reported(deny("umount", EPERM)),
        reported(deny("umount2", EPERM)),
        reported(deny("pivot_root", EPERM)),
        reported(deny("chroot", EPERM)),
        reported(deny("unshare", EPERM)),
        reported(deny("setns", EPERM)),

        // Large kernel attack surface that coding tools do without (Docker denies them all
        // too); io_uring would also let file operations bypass this filter.
        deny("io_uring_setup", EPERM),
        deny("io_uring_enter", EPERM),
        deny("io_uring_register", EPERM),
        reported(deny("bpf", EPERM)),
        deny("userfaultfd", EPERM),
        reported(deny("perf_event_open", EPERM)),
        // Keyrings are not namespaced: they could reach the user's keys outside the sandbox.
        reported(deny("keyctl", EPERM)),
        reported(deny("add_key", EPERM)),
        reported(deny("request_key", EPERM)),

        // Reading or steering other processes: debuggers stay outside the sandbox.
        reported(deny("ptrace", EPERM)),
        reported(deny("process_vm_readv", EPERM)),
        reported(deny("process_vm_writev", EPERM)),
        deny("process_madvise", EPERM),
        deny("pidfd_getfd", EPERM),
        deny("kcmp", EPERM),

        // Whole-machine administration; the kernel refuses most of it without host
        // capabilities anyway, the filter keeps it so if a capability leaks.
        reported(deny("kexec_load", EPERM)),
        reported(deny("kexec_file_load", EPERM)),
        reported(deny("init_module", EPERM)),
        reported(deny("finit_module", EPERM)),
        reported(deny("delete_module", EPERM)),
        reported(deny("reboot", EPERM)),
        reported(deny("swapon", EPERM)),
        reported(deny("swapoff", EPERM)),
        reported(deny("acct", EPERM)),
        deny("quotactl", EPERM),
        deny("quotactl_fd", EPERM),
        deny("syslog", EPERM),
        deny("vhangup", EPERM),
        reported(deny("sethostname", EPERM)),
        reported(deny("setdomainname", EPERM)),
        deny("iopl", EPERM),
        deny("ioperm", EPERM),
        deny("vm86", EPERM),
        deny("vm86old", EPERM),
        deny("uselib", EPERM),
        deny("lookup_dcookie", EPERM),
        deny("nfsservctl", EPERM),

        // Clocks are not namespaced (time namespaces only offset monotonic/boottime). adjtimex
        // and clock_adjtime read *and* set, chosen by a field in memory the filter cannot see,
        // so both go: the read-only use (ntp_gettime) is rare in development tools.
        reported(deny("settimeofday", EPERM)),
        reported(deny("stime", EPERM)),
        reported(deny("clock_settime", EPERM)),
        reported(deny("clock_settime64", EPERM)),
        deny("clock_adjtime", EPERM),
        deny("clock_adjtime64", EPERM),
        deny("adjtimex", EPERM),

        // File handles open any inode of a mounted file system, past the mount layout.
        deny("name_to_handle_at", EPERM),
        reported(deny("open_by_handle_at", EPERM)),
        deny("fanotify_init", EPERM),

        // NUMA placement affects the whole machine (Docker requires CAP_SYS_NICE).
        deny("get_mempolicy", EPERM),
        deny("set_mempolicy", EPERM),
        deny("set_mempolicy_home_node", EPERM),
        deny("mbind", EPERM),
        deny("migrate_pages", EPERM),
        deny("move_pages", EPERM),

        // personality: the values Docker allows (Linux, 32-bit Linux, each with UNAME26, and
        // 0xffffffff, which only queries). The others switch off ASLR (ADDR_NO_RANDOMIZE),
        // make data executable (READ_IMPLIES_EXEC) or map page zero.
        denyUnlessArgIn("personality", EPERM, 0, {0x0, 0x8, 0x20000, 0x20008, 0xffffffff}),

        // Pushing characters into the terminal's input queue runs commands in whoever reads
        // it next; cmd is an unsigned int, hence the 32-bit match.
        deny("ioctl", EPERM, {low32Is(1, TIOCSTI)}),
        deny("ioctl", EPERM, {low32Is(1, TIOCLINUX)}),

        // Sockets: local, IP (through the proxy) and routing netlink (getifaddrs, ip addr).
        // The other families are rarely needed and often buggy (AF_PACKET, AF_VSOCK, AF_ALG,
        // bluetooth…); audit and other netlink protocols talk to host-wide subsystems.
        denyUnlessArgIn("socket", EAFNOSUPPORT, 0, {AF_UNIX, AF_INET, AF_INET6, AF_NETLINK}),
        deny("socket", EAFNOSUPPORT, {low32Is(0, AF_NETLINK), arg(2, SCMP_CMP_NE, NETLINK_ROUTE)}),
        denyUnlessArgIn("socketpair", EAFNOSUPPORT, 0, {AF_UNIX}),
    };

    // Raw IP sockets craft arbitrary packets; SOCK_PACKET on AF_INET is the kernel's old spelling
    // of AF_PACKET. The type carries SOCK_NONBLOCK/SOCK_CLOEXEC above its low four bits.
    for (std::uint64_t family : {AF_INET, AF_INET6})
        for (std::uint64_t type : {SOCK_RAW, SOCK_PACKET})
            rules.push_back(reported(deny(
                "socket", EPERM, {low32Is(0, family), arg(1, SCMP_CMP_MASKED_EQ, 0xf, type)})));

    // clone may not create namespaces either: one masked test per flag, any one of them denies.
    // CLONE_NEWTIME shares its bit with clone's exit signal, where no valid signal sets it, so
    // denying it costs nothing.
    for (std::uint64_t flag : {CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                               CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME})
        rules.push_back(reported(deny("clone", EPERM, {hasBit(kCloneFlagsArg, flag)})));

    return rules;
}

// Adds the aligned power-of-two blocks covering [lo, hi] (inclusive, within 32 bits) as
// (mask, value) pairs: x is in a block when (x & mask) == value.
void coverRange(std::uint64_t lo, std::uint64_t hi,
                std::vector<std::pair<std::uint64_t, std::uint64_t>>& blocks)
{
    while (lo <= hi) {
        std::uint64_t size = lo == 0 ? kLow32 + 1 : (lo & (~lo + 1));
        while (lo + size - 1 > hi)
            size >>= 1;
        blocks.emplace_back(kLow32 & ~(size - 1), lo);
        lo += size;
    }
}

// "Argument is none of these values" needs several comparisons of one argument in one rule,
// which libseccomp 2.5 refuses (EINVAL). Instead the complement of the allowed set is split into
// aligned blocks, each one masked comparison, one rule per block: up to 32 rules per gap between
// allowed values (82 for personality, 37 for socket), all on that syscall's branch of the BPF
// tree, so other syscalls do not pay for them; the whole filter is about 570 instructions of
// the kernel's 4096. Only the low 32 bits count, as in the kernel.
std::vector<std::pair<std::uint64_t, std::uint64_t>>
complementBlocks(std::vector<std::uint32_t> allowed)
{
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks;
    std::uint64_t next = 0;
    for (std::uint32_t value : allowed) {
        if (value > next) coverRange(next, value - 1ULL, blocks);
        next = value + 1ULL;
    }
    if (next <= kLow32) coverRange(next, kLow32, blocks);
    return blocks;
}

// Syscalls newer than the libseccomp in Debian 12, by their number on this architecture.
int resolveSyscall(const char* name)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr != __NR_SCMP_ERROR) return nr;
#if defined(__x86_64__)
    if (std::string_view(name) == "open_tree_attr") return 467; // Linux 6.15
#endif
    return __NR_SCMP_ERROR;
}

struct FilterDeleter {
    void operator()(void* ctx) const { seccomp_release(ctx); }
};
using Filter = std::unique_ptr<void, FilterDeleter>;

struct BuiltFilter {
    Filter ctx;
    unsigned ruleCount = 0;
};

Status addRule(void* ctx, const char* name, int nr, std::uint32_t action,
               std::vector<scmp_arg_cmp> conds)
{
    int rc =
        seccomp_rule_add_array(ctx, action, nr, static_cast<unsigned>(conds.size()), conds.data());
    if (rc < 0) return sysError(std::string("seccomp rule for ") + name, -rc);
    return std::nullopt;
}

Result<BuiltFilter> buildFilter(SeccompNotify notify)
{
    BuiltFilter built{Filter(seccomp_init(SCMP_ACT_ALLOW))};
    void* ctx = built.ctx.get();
    if (ctx == nullptr) return sysError("seccomp_init", ENOMEM);

    // Foreign ABIs are killed rather than answered with ENOSYS: the filter only knows native
    // syscall numbers, and in a 64-bit sandbox the only callers of `int $0x80` or x32 numbers
    // are 32-bit binaries (which cannot work here anyway) and attempts to slip past the filter.
    // A SIGSYS death is loud and immediate where ENOSYS would leave a half-working program.
    // libseccomp also sends x32 numbers (nr | 0x40000000) on x86_64 to this action.
    const std::pair<scmp_filter_attr, std::uint32_t> attributes[] = {
        {SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS},
        {SCMP_FLTATR_CTL_NNP, 0},      // the caller owns no_new_privs (see the header)
        {SCMP_FLTATR_API_SYSRAWRC, 1}, // report the kernel's errno from seccomp_load
        {SCMP_FLTATR_CTL_OPTIMIZE, 2}, // binary search over syscalls, not a linear scan
    };
    for (const auto& [attribute, value] : attributes) {
        if (int rc = seccomp_attr_set(ctx, attribute, value); rc < 0)
            return sysError("seccomp filter attribute " + std::to_string(attribute), -rc);
    }

    // Command approval: every exec waits for the supervisor's answer on the listener fd.
    if (notify != SeccompNotify::None) {
        for (int nr : {SCMP_SYS(execve), SCMP_SYS(execveat)}) {
            if (int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0); rc < 0)
                return sysError("seccomp notify rule for exec", -rc);
        }
    }
    // The supervised network: every call that can open a connection or send a datagram to an
    // address of its own choosing waits too. The filter cannot read the address (it is in the
    // caller's memory), so every connect comes, a local one too; a send only with an address
    // (sendto's fifth argument) or MSG_FASTOPEN (sendmsg, sendmmsg: their address is inside a
    // structure). A datagram sent with sendmsg to an address is left to the firewall, which
    // drops it without a word (docs/network.md).
    if (notify == SeccompNotify::ExecAndOutbound) {
        const std::pair<int, std::vector<scmp_arg_cmp>> outbound[] = {
            {SCMP_SYS(connect), {}},
            {SCMP_SYS(sendto), {arg(4, SCMP_CMP_NE, 0)}},
            {SCMP_SYS(sendmsg), {hasBit(2, MSG_FASTOPEN)}},
            {SCMP_SYS(sendmmsg), {hasBit(3, MSG_FASTOPEN)}},
        };
        for (const auto& [nr, conds] : outbound) {
            if (int rc = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr,
                                                static_cast<unsigned>(conds.size()), conds.data());
                rc < 0)
                return sysError("seccomp notify rule for outbound traffic", -rc);
        }
    }

    for (const Rule& rule : denyList()) {
        int nr = resolveSyscall(rule.syscall);
        if (nr == __NR_SCMP_ERROR)
            return Error{ErrorCode::Internal, 0,
                         std::string("seccomp deny list names an unknown syscall: ") +
                             rule.syscall};
        if (nr < 0) continue; // libseccomp's placeholder for a syscall this architecture lacks
        // The supervisor answers a reported call with EPERM whatever the rule (SeccompRules.h).
        if (rule.report && rule.err != EPERM)
            return Error{ErrorCode::Internal, 0,
                         std::string("a reported seccomp rule must refuse with EPERM: ") +
                             rule.syscall};
        const std::uint32_t action = rule.report && notify != SeccompNotify::None
                                         ? SCMP_ACT_NOTIFY
                                         : SCMP_ACT_ERRNO(static_cast<std::uint32_t>(rule.err));
        if (rule.onlyArg < 0) {
            if (auto e = addRule(ctx, rule.syscall, nr, action, rule.when)) return *e;
            ++built.ruleCount;
            continue;
        }
        for (const auto& [mask, value] : complementBlocks(rule.only)) {
            std::vector<scmp_arg_cmp> conds = rule.when;
            conds.push_back(
                arg(static_cast<unsigned>(rule.onlyArg), SCMP_CMP_MASKED_EQ, mask, value));
            if (auto e = addRule(ctx, rule.syscall, nr, action, std::move(conds))) return *e;
            ++built.ruleCount;
        }
    }
    return built;
}

} // namespace

std::vector<std::pair<int, std::string>> reportedSyscalls()
{
    std::vector<std::pair<int, std::string>> out;
    for (const Rule& rule : denyList()) {
        const int nr = rule.report ? resolveSyscall(rule.syscall) : -1;
        if (nr < 0) continue;
        if (std::none_of(out.begin(), out.end(), [nr](const auto& r) { return r.first == nr; }))
            out.emplace_back(nr, rule.syscall);
    }
    return out;
}

Result<SeccompProgram> compileSeccompFilter(SeccompNotify notify)
{
    auto built = buildFilter(notify);
    if (!built) return built.error();
    const UniqueFd fd(::memfd_create("sandbench-seccomp", MFD_CLOEXEC));
    if (!fd) return sysError("memfd for the seccomp filter");
    SeccompProgram program;
    program.ruleCount = built->ruleCount;
    if (int rc = seccomp_export_bpf(built->ctx.get(), fd.get()); rc < 0)
        return sysError("export the seccomp filter", -rc);
    off_t size = ::lseek(fd.get(), 0, SEEK_END);
    program.code.resize(static_cast<size_t>(size) / sizeof(sock_filter));
    ssize_t n =
        ::pread(fd.get(), program.code.data(), program.code.size() * sizeof(sock_filter), 0);
    if (size <= 0 || size % sizeof(sock_filter) != 0 || n != size)
        return Error{ErrorCode::Internal, 0, "seccomp filter export: unexpected size"};
    return program;
}

} // namespace sb
