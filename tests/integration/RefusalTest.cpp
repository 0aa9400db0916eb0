// What the sandbox's system call filter refuses a program that asks on purpose (a mount, a new
// namespace, a debugger's call) is recorded: which call, which process, under the command that
// made it; `show` lists it. The program still gets EPERM, as from the filter itself. Real
// sandboxes, started by the real CLI, as root and as an unprivileged user.
#include "IntegrationSupport.h"

#include <nlohmann/json.hpp>
#include <sstream>

using sbit::contains;
using sbit::dump;

namespace {

std::vector<nlohmann::json> exported(const sbit::Sandbench& sb, const std::string& id,
                                     const std::string& type)
{
    auto r = sb.cli({"export", id, "--format", "jsonl"});
    std::vector<nlohmann::json> out;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_discarded() && j.value("type", "") == type) out.push_back(j["payload"]);
    }
    return out;
}

TEST(Refusals, RecordedUnderTheCommandThatMadeThem)
{
    sbit::Sandbench sb;
    // Three mounts in a row are one record; the unshare is another, a raw socket (ping's) a
    // third.
    auto r = sb.run("refusals", {"python3", "-c", R"(
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for _ in range(3):
    print("mount", libc.mount(b"none", b"/mnt", b"tmpfs", 0, None), ctypes.get_errno())
print("unshare", libc.unshare(0x10000000), ctypes.get_errno())
import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    print("RAW SOCKET")
except OSError as e:
    print("raw socket", e.errno)
)"});
    ASSERT_EQ(r.status, 0) << dump(r);
    std::size_t mounts = 0;
    for (auto at = r.out.find("mount -1 1\n"); at != std::string::npos;
         at = r.out.find("mount -1 1\n", at + 1))
        ++mounts;
    EXPECT_EQ(mounts, 3u) << "EPERM each time\n" << dump(r);
    EXPECT_TRUE(contains(r.out, "unshare -1 1")) << dump(r);
    EXPECT_TRUE(contains(r.out, "raw socket 1")) << "a ping's socket\n" << dump(r);

    std::int64_t python = -1;
    for (const auto& c : exported(sb, "refusals", "exec_decision"))
        if (contains(c.value("program", ""), "python3")) python = c.value("id", -1);
    ASSERT_GE(python, 0);
    auto refusals = exported(sb, "refusals", "refusal");
    ASSERT_EQ(refusals.size(), 3u) << sb.cli({"export", "refusals", "--format", "jsonl"}).out;
    EXPECT_EQ(refusals[0].value("syscall", ""), "mount") << refusals[0].dump();
    EXPECT_EQ(refusals[1].value("syscall", ""), "unshare") << refusals[1].dump();
    EXPECT_EQ(refusals[2].value("syscall", ""), "socket") << refusals[2].dump();
    for (const auto& refusal : refusals) {
        EXPECT_EQ(refusal.value("command_id", -1), python) << refusal.dump();
        ASSERT_TRUE(refusal.contains("process") && !refusal["process"].empty()) << refusal.dump();
        EXPECT_TRUE(contains(refusal["process"][0].value("program", ""), "python3"))
            << refusal.dump();
        EXPECT_EQ(refusal["process"][0].value("pid", 0), refusal.value("pid", -1));
    }

    auto show = sb.cli({"show", "refusals"});
    EXPECT_TRUE(contains(show.out, "refused by the sandbox")) << dump(show);
    EXPECT_TRUE(contains(show.out, "mount by python3 -c")) << dump(show);
}

} // namespace
