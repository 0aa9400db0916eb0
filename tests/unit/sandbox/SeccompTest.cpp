// The syscall filter, seen from inside: the probe program runs under it (and without it) and
// reports what each syscall answered.
#include "sandbox/Seccomp.h"

#include "TestSupport.h"
#include "sandbox/SeccompRules.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <linux/capability.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

// What each probe must answer under the filter.
const std::map<std::string, std::string> kBlocked = {
    // ENOSYS so that callers fall back to calls the filter can judge.
    {"clone3", "ENOSYS"},
    {"open_tree", "ENOSYS"},
    {"open_tree_attr", "ENOSYS"},
    {"fsopen", "ENOSYS"},
    {"move_mount", "ENOSYS"},
    {"mount_setattr", "ENOSYS"},
    // Namespaces and mounts.
    {"clone_newuser", "EPERM"},
    {"unshare_newuser", "EPERM"},
    {"unshare_newns", "EPERM"},
    {"setns", "EPERM"},
    {"mount", "EPERM"},
    {"umount", "EPERM"},
    {"pivot_root", "EPERM"},
    {"chroot", "EPERM"},
    // Kernel attack surface, other processes, machine administration.
    {"io_uring_setup", "EPERM"},
    {"bpf", "EPERM"},
    {"userfaultfd", "EPERM"},
    {"perf_event_open", "EPERM"},
    {"keyctl", "EPERM"},
    {"add_key", "EPERM"},
    {"request_key", "EPERM"},
    {"ptrace", "EPERM"},
    {"process_vm_readv", "EPERM"},
    {"process_vm_writev", "EPERM"},
    {"kcmp", "EPERM"},
    {"pidfd_getfd", "EPERM"},
    {"kexec_load", "EPERM"},
    {"kexec_file_load", "EPERM"},
    {"init_module", "EPERM"},
    {"finit_module", "EPERM"},
    {"delete_module", "EPERM"},
    {"reboot", "EPERM"},
    {"swapon", "EPERM"},
    {"swapoff", "EPERM"},
    {"settimeofday", "EPERM"},
    {"clock_settime", "EPERM"},
    {"clock_adjtime", "EPERM"},
    {"adjtimex", "EPERM"},
    {"acct", "EPERM"},
    {"syslog", "EPERM"},
    {"sethostname", "EPERM"},
    {"iopl", "EPERM"},
    {"ioperm", "EPERM"},
    {"name_to_handle_at", "EPERM"},
    {"open_by_handle_at", "EPERM"},
    {"fanotify_init", "EPERM"},
    {"get_mempolicy", "EPERM"},
    {"personality_addr_no_randomize", "EPERM"},
    {"personality_high_addr_no_randomize", "EPERM"},
    // Terminal injection, including the spelling with high bits set in cmd.
    {"tiocsti", "EPERM"},
    {"tiocsti_high", "EPERM"},
    {"tioclinux", "EPERM"},
    // Socket families and raw sockets.
    {"socket_packet", "EAFNOSUPPORT"},
    {"socket_packet_high", "EAFNOSUPPORT"},
    {"socket_vsock", "EAFNOSUPPORT"},
    {"socket_alg", "EAFNOSUPPORT"},
    {"socket_key", "EAFNOSUPPORT"},
    {"socket_netlink_audit", "EAFNOSUPPORT"},
    {"socketpair_inet", "EAFNOSUPPORT"},
    {"socket_raw", "EPERM"},
    {"socket_raw6", "EPERM"},
    {"socket_inet_packet", "EPERM"},
    // Foreign ABIs.
    {"int80", "KILLED"},
    {"x32", "KILLED"},
};

// What must keep working under the filter.
const std::set<std::string> kAllowed = {
    "socket_inet_ok",
    "socket_unix_ok",
    "socket_netlink_route_ok",
    "socketpair_unix_ok",
    "thread_ok",
    "fork_ok",
    "spawn_ok",
    "ioctl_ok",
    "personality_query_ok",
    "personality_linux32_ok",
    "exec_argv_page_cross", // denied only by a command rule (EscapeTest)
};

// Probes whose answer is the kernel's own, with the filter or without: they are there for the
// exec supervisor (EscapeTest), and the filter must not change them.
const std::map<std::string, std::string> kKernelAnswer = {
    {"exec_argv_bad", "EFAULT"},
};

// Probes the kernel answers without the filter differently from the filter, as root and as an
// ordinary user alike: invalid flags or bad pointers it checks before any permission. They
// prove that the filter's answer comes from the filter and that the probe reaches the kernel.
const std::set<std::string> kKernelAnswersItself = {
    "clone3",
    "clone_newuser",
    "unshare_newuser",
    "unshare_newns",
    "setns",
    "mount",
    "umount",
    "chroot",
    "open_tree",
    "mount_setattr",
    "userfaultfd",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "name_to_handle_at",
    "get_mempolicy",
    "personality_addr_no_randomize",
    "personality_high_addr_no_randomize",
    "tiocsti",
    "tiocsti_high",
    "tioclinux",
    "socketpair_inet",
    "int80",
    "x32",
};

struct ProbeRun {
    int status = -1; // exit code, or 128+signal
    std::map<std::string, std::string> results;
    std::string output;
};

std::vector<std::string> probeNames()
{
    auto listed = sbtest::run({sbtest::trySyscallPath(), "--list"});
    std::vector<std::string> names;
    std::istringstream in(listed.out);
    for (std::string name; std::getline(in, name);)
        if (!name.empty()) names.push_back(name);
    return names;
}

// Runs the probe with stdin on /dev/null (the terminal probes then see no terminal), under the
// filter when asked, the way the sandbox child will: no_new_privs, filter, execve.
ProbeRun runProbes(bool filtered, const std::vector<std::string>& names)
{
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    std::string path = sbtest::trySyscallPath();
    std::vector<char*> argv{path.data()};
    std::vector<std::string> copies(names);
    for (auto& name : copies)
        argv.push_back(name.data());
    argv.push_back(nullptr);

    pid_t pid = ::fork();
    if (pid == 0) {
        int devNull = ::open("/dev/null", O_RDONLY);
        ::dup2(devNull, 0);
        ::dup2(out[1], 1);
        if (filtered) {
            if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ::_exit(125);
            if (auto e = sb::installSeccompFilter()) {
                std::fprintf(stderr, "installSeccompFilter: %s\n", e->describe().c_str());
                ::_exit(126);
            }
        }
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(out[1]);
    ProbeRun run;
    char buffer[4096];
    for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        run.output.append(buffer, static_cast<size_t>(n));
    }
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::istringstream in(run.output);
    for (std::string name, result; in >> name >> result;)
        run.results[name] = result;
    return run;
}

TEST(Seccomp, EveryProbeHasAnExpectation)
{
    auto names = probeNames();
    ASSERT_FALSE(names.empty());
    for (const auto& name : names)
        EXPECT_TRUE(kBlocked.count(name) + kAllowed.count(name) + kKernelAnswer.count(name) == 1)
            << "probe " << name << " has no expected result in this test";
}

TEST(Seccomp, FilterBlocksDeniedCallsAndKeepsOrdinaryOnes)
{
    auto names = probeNames();
    auto run = runProbes(true, names);
    ASSERT_EQ(run.status, 0) << run.output;
    ASSERT_EQ(run.results.size(), names.size()) << run.output;
    for (const auto& name : names) {
        const std::string& got = run.results[name];
        if (auto it = kBlocked.find(name); it != kBlocked.end())
            EXPECT_EQ(got, it->second) << "probe " << name << " under the filter";
        else if (auto kernel = kKernelAnswer.find(name); kernel != kKernelAnswer.end())
            EXPECT_EQ(got, kernel->second) << "probe " << name << " under the filter";
        else
            EXPECT_EQ(got, "0") << "probe " << name << " must keep working under the filter";
    }
}

TEST(Seccomp, WithoutTheFilterTheKernelAnswersItself)
{
    auto names = probeNames();
    auto run = runProbes(false, names);
    ASSERT_EQ(run.status, 0) << run.output;
    ASSERT_EQ(run.results.size(), names.size()) << run.output;
    for (const auto& name : kKernelAnswersItself) {
        if (run.results.count(name) == 0)
            continue; // not built on this architecture (int80, x32, open_tree_attr)
        EXPECT_NE(run.results[name], kBlocked.at(name))
            << "probe " << name << " gives the filter's answer without the filter: it does "
            << "not reach the code the filter is meant to guard";
    }
    // Nothing but a seccomp filter kills with SIGSYS.
    for (const auto& [name, result] : run.results)
        EXPECT_NE(result, "KILLED") << name;
    for (const auto& name : kAllowed)
        EXPECT_EQ(run.results[name], "0") << name;
    for (const auto& [name, answer] : kKernelAnswer)
        EXPECT_EQ(run.results[name], answer) << name;
}

TEST(Seccomp, LoadingNeedsNoNewPrivsOrCapability)
{
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        // Root (also root of a user namespace) holds CAP_SYS_ADMIN, which would let the filter
        // in without no_new_privs: drop every capability first (a no-op for a normal user).
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        __user_cap_data_struct data[2] = {};
        if (::syscall(SYS_capset, &header, data) != 0) ::_exit(2);
        auto e = sb::installSeccompFilter();
        ::_exit(e && e->sysErrno == EACCES ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "loading without no_new_privs must fail with EACCES";
}

TEST(Seccomp, SummaryDescribesTheFilter)
{
    std::string summary = sb::seccompSummary();
    EXPECT_NE(summary.find("deny rules"), std::string::npos) << summary;
    EXPECT_NE(summary.find("foreign ABIs killed"), std::string::npos) << summary;
    std::string notif =
        sb::seccompUserNotifSupported() ? "notification available" : "notification unavailable";
    EXPECT_NE(summary.find(notif), std::string::npos) << summary;
}

} // namespace

TEST(Seccomp, TheFilterBuiltAtBuildTimeIsWhatLibseccompMakesNow)
{
    // The build compiles the filter once (SeccompBpf.h); a changed rule list or libseccomp
    // without a rebuild would load a stale program.
    for (auto notify :
         {sb::SeccompNotify::None, sb::SeccompNotify::Exec, sb::SeccompNotify::ExecAndOutbound}) {
        const int which = static_cast<int>(notify);
        auto now = sb::compileSeccompFilter(notify);
        ASSERT_TRUE(now) << now.error().describe();
        auto built = sb::precompiledSeccompFilter(notify);
        ASSERT_EQ(built.size(), now->code.size()) << "variant " << which;
        for (size_t i = 0; i < built.size(); ++i) {
            const sock_filter &a = built[i], &b = now->code[i];
            ASSERT_TRUE(a.code == b.code && a.jt == b.jt && a.jf == b.jf && a.k == b.k)
                << "instruction " << i << " differs (variant " << which << ")";
        }
        EXPECT_GT(now->ruleCount, 50u);
    }
}
