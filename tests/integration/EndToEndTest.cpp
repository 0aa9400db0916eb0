// The pieces together, through the real CLI: a sandboxed client reaching the host only through
// the filtering proxy, and a real session found again in the recordings.
#include "IntegrationSupport.h"
#include "ProxyTestSupport.h"

#include <arpa/inet.h>
#include <map>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <set>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using sbit::contains;
using sbit::dump;

class EndToEnd : public ::testing::Test {
  protected:
    sbit::Sandbench sb;
};

// A file served by a host server on 127.0.0.1 that the policy names: reachable through the
// proxy, and only through it.
TEST_F(EndToEnd, SandboxedCurlReachesAnAllowedHostServerOnlyThroughTheProxy)
{
    sbtest::TempDir site;
    sbtest::writeFile(site / "hello.txt", "hello from the host\n");
    sbproxytest::PythonServer server("http", site.path());
    std::string port = std::to_string(server.port());
    auto policy = sb.writePolicy(R"({"version": 1, "network": {"mode": "filtered",
        "default": "deny", "rules": [{"action": "allow", "host": "127.0.0.1", "ports": [)" +
                                 port + "]}]}}");
    // NO_PROXY covers loopback inside (the sandbox's own); this host is outside, so bypass it.
    auto r = sb.attempt("unset NO_PROXY no_proxy; "
                        "echo via-proxy $(curl -s http://127.0.0.1:" +
                            port +
                            "/hello.txt); "
                            "echo other-port $(curl -s -o /dev/null -w '%{http_code}' "
                            "http://127.0.0.1:1/); "
                            "echo direct $(curl -s --max-time 5 --noproxy '*' -o /dev/null -w "
                            "'%{http_code}' http://127.0.0.1:" +
                            port + "/hello.txt)",
                        sbit::withOptions({"--policy", policy.string()}, 60));
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "via-proxy hello from the host\n")) << dump(r);
    EXPECT_TRUE(contains(r.out, "other-port 403\n")) << "loopback not named by a rule\n" << dump(r);
    EXPECT_TRUE(contains(r.out, "direct 000\n")) << "no way around the proxy\n" << dump(r);
}

// What the agent's network stack sends without the proxy (DNS over UDP, raw datagrams) stays
// inside its namespace: a host listener on 127.0.0.1 hears nothing.
TEST_F(EndToEnd, DatagramsFromTheSandboxNeverReachTheHost)
{
    int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    socklen_t len = sizeof addr;
    ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    std::string port = std::to_string(ntohs(addr.sin_port));
    auto r =
        sb.attempt("python3 -c \"import socket; s = socket.socket(socket.AF_INET, "
                   "socket.SOCK_DGRAM); [s.sendto(b'query', ('127.0.0.1', " +
                   port + ")) for _ in range(3)]\"; getent hosts example.invalid; echo dns $?");
    SB_ASSERT_RAN(r);
    EXPECT_TRUE(contains(r.out, "dns 2\n")) << "no name resolves inside\n" << dump(r);
    pollfd p{fd, POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 500), 0) << "a datagram from the sandbox reached the host";
    ::close(fd);
}

// A real session lands in the recordings: listed, summarised, searchable, exportable.
TEST_F(EndToEnd, ARealSessionIsRecordedAndFoundAgain)
{
    std::string marker = "recorded-" + sbit::uniqueToken();
    std::string id = sb.nextSession();
    auto r = sb.run(id, {"bash", "-c", "/bin/echo " + marker + "; ls >/dev/null; touch made"});
    ASSERT_EQ(r.status, 0) << dump(r);

    auto list = sb.cli({"sessions", "--json"});
    ASSERT_EQ(list.status, 0) << dump(list);
    EXPECT_TRUE(contains(list.out, "\"" + id + "\"")) << dump(list);

    auto show = sb.cli({"show", id});
    ASSERT_EQ(show.status, 0) << dump(show);
    EXPECT_TRUE(contains(show.out, "/bin/echo " + marker)) << dump(show);
    EXPECT_TRUE(contains(show.out, "touch made")) << dump(show);
    EXPECT_TRUE(contains(show.out, "made")) << "the change left for review\n" << dump(show);

    auto search = sb.cli({"search", marker});
    ASSERT_EQ(search.status, 0) << dump(search);
    EXPECT_TRUE(contains(search.out, id)) << dump(search);

    auto cast = sb.cli({"export", id, "--format", "jsonl"});
    ASSERT_EQ(cast.status, 0) << dump(cast);
    EXPECT_TRUE(contains(cast.out, marker)) << dump(cast);
}

// libvterm and zstd are opened when first needed (core/base/LazyLibrary.h). Where one cannot be
// (here a stand-in of the same name without its functions, found first through
// LD_LIBRARY_PATH), the session is still recorded whole, and only what needs the library says
// so: without libvterm there are no screen keyframes and no replay from the middle; without
// zstd the output is stored uncompressed, and compressed output cannot be read back.
TEST_F(EndToEnd, ALibraryThatCannotBeOpenedFailsOnlyWhatNeedsIt)
{
    sbtest::TempDir fakes;
    sbtest::writeFile(fakes / "empty.c", "int sandbench_stand_in;\n");
    for (const char* soname : {"libvterm.so.0", "libzstd.so.1"}) {
        auto cc = sbtest::run({"cc", "-shared", "-fPIC", "-o", (fakes / soname).string(),
                               (fakes / "empty.c").string()});
        ASSERT_EQ(cc.status, 0) << dump(cc);
    }
    const auto standIns = sbit::withEnv({{"LD_LIBRARY_PATH", fakes.path().string()}});
    const std::vector<std::string> printing = {"sh", "-c", "seq 1 400; sleep 0.4; echo later"};

    std::string id = sb.nextSession();
    auto r = sb.run(id, printing, standIns);
    ASSERT_EQ(r.status, 0) << dump(r);
    const std::string noVterm = "cannot load libvterm: libvterm.so.0 has no vterm_color_is_equal";
    EXPECT_TRUE(contains(r.err, "recording without screen keyframes: " + noVterm)) << dump(r);
    auto replay = sb.cli({"replay", id, "--from", "0.2"}, standIns);
    EXPECT_NE(replay.status, 0) << dump(replay);
    EXPECT_TRUE(contains(replay.err, noVterm)) << dump(replay);
    // Stored uncompressed: read back without zstd, and whole with both libraries.
    auto events = sb.cli({"export", id, "--format", "jsonl"}, standIns);
    ASSERT_EQ(events.status, 0) << dump(events);
    // (Its output came through a pipe: recorded as a terminal shows it, newlines as CRLF.)
    EXPECT_TRUE(contains(events.out, "399\\r\\n400\\r\\n")) << events.out;
    replay = sb.cli({"replay", id, "--from", "0.2"});
    ASSERT_EQ(replay.status, 0) << dump(replay);
    EXPECT_TRUE(contains(replay.out, "400")) << dump(replay);
    EXPECT_TRUE(contains(replay.out, "later")) << dump(replay);

    // Recorded with zstd, its output is compressed: without zstd it cannot be read back.
    id = sb.nextSession();
    r = sb.run(id, printing);
    ASSERT_EQ(r.status, 0) << dump(r);
    events = sb.cli({"export", id, "--format", "jsonl"}, standIns);
    EXPECT_NE(events.status, 0) << dump(events);
    EXPECT_TRUE(contains(events.err, "recording: cannot read a compressed chunk: cannot load "
                                     "zstd: libzstd.so.1 has no ZSTD_compressBound"))
        << dump(events);
}

// A session over in milliseconds without output never goes live (no control socket, no watch
// threads), yet its recording holds the same events as a watched one: the file it made (as a
// live event, which timelines show, besides the final summary) and its command.
TEST_F(EndToEnd, AShortSilentSessionIsRecordedAsAWatchedOneWould)
{
    std::string id = sb.nextSession();
    auto r = sb.run(id, {"sh", "-c", "touch made"});
    ASSERT_EQ(r.status, 0) << dump(r);
    auto events = sb.cli({"export", id, "--format", "jsonl"});
    ASSERT_EQ(events.status, 0) << dump(events);
    EXPECT_TRUE(contains(events.out, "\"change\":\"added\",\"kind\":\"file\",\"path\":\"made\""))
        << events.out;
    EXPECT_TRUE(contains(events.out, "\"final\":true,\"kind\":\"added\",\"path\":\"made\""))
        << events.out;
    EXPECT_TRUE(contains(events.out, "\"argv\":[\"touch\",\"made\"]")) << events.out;
}

// Each command is recorded with the folder it ran in, short ones too (read before the exec is
// let go: after, a command like `true` may be gone before its folder is read); the misses of a
// PATH search (execvp trying each folder in turn) are no commands and are not recorded.
TEST_F(EndToEnd, CommandsAreRecordedWithTheirFolderAndPathSearchMissesAreNot)
{
    std::string id = sb.nextSession();
    auto r = sb.run(id, {"bash", "-c",
                         "mkdir sub && cd sub && env PATH=/missing-a:/missing-b:/usr/bin true && "
                         "for i in $(seq 100); do /usr/bin/true; done"});
    ASSERT_EQ(r.status, 0) << dump(r);
    auto events = sb.cli({"export", id, "--format", "jsonl"});
    ASSERT_EQ(events.status, 0) << dump(events);
    std::map<std::string, std::multiset<std::string>> foldersOf; // program -> folders
    std::istringstream lines(events.out);
    for (std::string line; std::getline(lines, line);) {
        auto event = nlohmann::json::parse(line);
        if (event.value("type", "") == "exec_decision")
            foldersOf[event["payload"]["program"]].insert(event["payload"]["cwd"]);
    }
    const std::string project = sb.workspace().string(), sub = project + "/sub";
    EXPECT_EQ(foldersOf["/usr/bin/mkdir"], std::multiset<std::string>{project}) << events.out;
    EXPECT_EQ(foldersOf["/usr/bin/env"], std::multiset<std::string>{sub}) << events.out;
    EXPECT_EQ(foldersOf["/usr/bin/true"].size(), 101u) << events.out;
    EXPECT_EQ(foldersOf["/usr/bin/true"].count(sub), 101u) << events.out;
    EXPECT_EQ(foldersOf.count("/missing-a/true") + foldersOf.count("/missing-b/true"), 0u)
        << events.out;
}

// A second run with the same id is refused with the reason, starts nothing and leaves the
// first session as it was.
TEST_F(EndToEnd, ARunWithAnIdInUseIsRefusedAndTheSessionKept)
{
    std::string id = sb.nextSession();
    auto first = sb.run(id, {"bash", "-c", "echo first > kept"});
    ASSERT_EQ(first.status, 0) << dump(first);
    auto before = sbtest::readFile(sb.sessions() / id / "session.json");

    auto again = sb.run(id, {"bash", "-c", "echo second > kept"});
    EXPECT_NE(again.status, 0) << dump(again);
    EXPECT_TRUE(contains(again.err, "session '" + id + "' already exists")) << dump(again);
    EXPECT_FALSE(contains(again.err, "started")) << dump(again);
    EXPECT_EQ(sbtest::readFile(sb.sessions() / id / "session.json"), before);
    EXPECT_EQ(sbtest::readFile(sb.upper(id) / "kept"), "first\n");
}

// An id already in the recordings (its session folder removed since) is refused by the
// recording's thread, which opens the database while init builds the sandbox and stops it
// then or right after: either way the run says why, not that the sandbox failed.
TEST_F(EndToEnd, ARunWhoseIdIsAlreadyRecordedSaysWhyItDidNotRun)
{
    std::string id = sb.nextSession();
    auto first = sb.run(id, {"true"});
    ASSERT_EQ(first.status, 0) << dump(first);
    std::error_code ec;
    fs::remove_all(sb.sessions() / id, ec);
    ASSERT_FALSE(ec) << ec.message();

    auto again = sb.run(id, {"true"});
    EXPECT_EQ(again.status, 125) << dump(again);
    EXPECT_TRUE(contains(again.err, "cannot record the session, so it was ")) << dump(again);
    EXPECT_TRUE(contains(again.err, "session '" + id + "' is already recorded")) << dump(again);
    EXPECT_FALSE(contains(again.err, "sandbox setup failed")) << dump(again);
}

// overlayfs leaves its scratch folders mode 000; the session keeps them, opened up, so that its
// owner (not only root) can remove the whole session folder.
TEST_F(EndToEnd, AFinishedSessionsFolderCanBeRemovedByItsOwner)
{
    std::string id = sb.nextSession();
    auto r = sb.run(id, {"bash", "-c", "mkdir -p new/deep && echo x > new/deep/f"});
    ASSERT_EQ(r.status, 0) << dump(r);
    ASSERT_TRUE(fs::exists(sb.upper(id) / "new/deep/f"));
    std::error_code ec;
    fs::remove_all(sb.sessions() / id, ec);
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_FALSE(fs::exists(sb.sessions() / id));
}

} // namespace
