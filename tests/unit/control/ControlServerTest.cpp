// A real server on a real socket in a private XDG_RUNTIME_DIR, a fake session behind it, real
// clients in front of it.
#include "base/Paths.h"
#include "control/ControlHarness.h"

#include <chrono>
#include <future>
#include <sys/stat.h>
#include <sys/wait.h>

using namespace sbtest;
using sb::ControlClient;
using sb::proto::Message;
using sb::proto::MsgType;
using sb::proto::Role;

namespace {

std::unique_ptr<ControlClient> connectAs(const ServerHarness& h, Role role,
                                         const std::string& name = "test")
{
    auto c = ControlClient::connectPath(h.socketPath(), name, role);
    EXPECT_TRUE(c) << c.error().describe();
    return c ? std::move(*c) : nullptr;
}

void publish(ServerHarness& h, std::string bytes)
{
    h.onLoop([b = std::move(bytes)](sb::ControlServer& s) { s.publishOutput(b); });
}

} // namespace

TEST(ControlServer, HandshakeDescribesTheSessionOnAPrivateSocket)
{
    IsolatedXdg xdg;
    ServerHarness h;
    h.backend.pending[7] = commandRequest(7, {"git", "push", "origin"});
    publish(h, "abc");

    struct stat st {};
    ASSERT_EQ(::stat(h.socketPath().c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    ASSERT_EQ(::stat(sb::runtimeDirectory().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_EQ(h.socketPath(), sb::runtimeDirectory() / "sess-1.sock");

    auto c = connectAs(h, Role::Viewer, "gui");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->welcome()["version"], sb::proto::kVersion);
    EXPECT_EQ(c->welcome()["role"], "viewer");
    EXPECT_EQ(c->welcome()["output"]["next_seq"], 3);
    EXPECT_EQ(c->session().id, "sess-1");
    EXPECT_EQ(c->session().command, (std::vector<std::string>{"agent", "--flag"}));
    EXPECT_EQ(c->session().workspace, "/home/u/project");
    EXPECT_EQ(c->session().cols, 80u);
    EXPECT_EQ(c->session().policy["network"], "none");
    ASSERT_EQ(c->pendingAtWelcome().size(), 1u);
    EXPECT_EQ(c->pendingAtWelcome()[0].argv[1], "push");
}

TEST(ControlServer, VersionMismatchIsRefusedWithAReason)
{
    IsolatedXdg xdg;
    ServerHarness h;
    RawConnection raw(h.socketPath());
    ASSERT_TRUE(raw.connected());
    raw.send(sb::proto::encodeJson(MsgType::Hello, {{"version", 0}, {"client", "past"}}));
    std::vector<Message> got;
    ASSERT_TRUE(raw.readUntilClosed(got)) << "the server closes a client it cannot speak to";
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].type, MsgType::Error);
    EXPECT_TRUE(got[0].body["fatal"].get<bool>());
    EXPECT_NE(got[0].body["message"].get<std::string>().find("protocol version 0 is not supported"),
              std::string::npos);
    EXPECT_TRUE(connectAs(h, Role::Viewer)) << "and keeps serving others";
}

// Found by fuzz_control: a field of an unexpected type threw out of the supervisor's loop.
TEST(ControlServer, AFieldOfTheWrongTypeIsAnErrorNamingTheMessage)
{
    IsolatedXdg xdg;
    ServerHarness h;
    RawConnection raw(h.socketPath());
    ASSERT_TRUE(raw.connected());
    raw.send(sb::proto::encodeJson(MsgType::Hello, {{"version", 2}, {"client", true}}));
    Message reply;
    ASSERT_TRUE(raw.read(reply));
    ASSERT_EQ(reply.type, MsgType::Error);
    EXPECT_EQ(reply.body["message"], "bad hello: type must be string, but is boolean");
    EXPECT_EQ(reply.body["ref"], "hello");
    // The connection stays: a hello of the right shape is still taken on it.
    raw.send(sb::proto::encodeJson(MsgType::Hello, {{"version", 2}, {"client", "fixed"}}));
    ASSERT_TRUE(raw.read(reply));
    EXPECT_EQ(reply.type, MsgType::Welcome);
    raw.send(sb::proto::encodeJson(MsgType::Subscribe, {{"live", "yes"}}));
    ASSERT_TRUE(raw.read(reply));
    ASSERT_EQ(reply.type, MsgType::Error);
    EXPECT_EQ(reply.body["message"], "bad subscribe: type must be boolean, but is string");
    EXPECT_TRUE(connectAs(h, Role::Viewer)) << "and the server keeps serving others";
}

TEST(ControlServer, TheNewestVersionBothSpeakIsAgreed)
{
    IsolatedXdg xdg;
    ServerHarness h;
    for (auto [asked, agreed] : {std::pair{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}, {9, 6}}) {
        RawConnection raw(h.socketPath());
        ASSERT_TRUE(raw.connected());
        raw.send(sb::proto::encodeJson(MsgType::Hello, {{"version", asked}, {"client", "c"}}));
        Message welcome;
        ASSERT_TRUE(raw.read(welcome));
        EXPECT_EQ(welcome.type, MsgType::Welcome);
        EXPECT_EQ(welcome.body["version"], agreed) << "asked for " << asked;
        // The fake session runs no processes: no features.
        EXPECT_EQ(welcome.body["features"], nlohmann::json::array());
    }
}

TEST(ControlServer, AVersionTwoClientMayNotSendPortRequests)
{
    IsolatedXdg xdg;
    ServerHarness h;
    RawConnection raw(h.socketPath());
    ASSERT_TRUE(raw.connected());
    raw.send(sb::proto::encodeJson(MsgType::Hello, {{"version", 2}, {"client", "v2"}}));
    raw.send(sb::proto::encodeJson(MsgType::PortRequest, {{"id", 1}, {"op", "list"}}));
    std::vector<Message> got;
    ASSERT_TRUE(raw.readUntilClosed(got));
    ASSERT_EQ(got.back().type, MsgType::Error);
    EXPECT_NE(got.back().body["message"].get<std::string>().find("needs protocol version 3"),
              std::string::npos);
}

TEST(ControlServer, AVersionThreeClientMayNotSendFileData)
{
    IsolatedXdg xdg;
    ServerHarness h;
    RawConnection raw(h.socketPath());
    ASSERT_TRUE(raw.connected());
    raw.send(sb::proto::encodeJson(MsgType::Hello, {{"version", 3}, {"client", "v3"}}));
    raw.send(sb::proto::encodeBytes(MsgType::FileData, 1, "content"));
    std::vector<Message> got;
    ASSERT_TRUE(raw.readUntilClosed(got));
    ASSERT_EQ(got.back().type, MsgType::Error);
    EXPECT_NE(got.back().body["message"].get<std::string>().find("needs protocol version 4"),
              std::string::npos);
}

TEST(ControlServer, AVersionFiveClientMayNotSendExecutionRecords)
{
    IsolatedXdg xdg;
    ServerHarness h;
    RawConnection raw(h.socketPath());
    ASSERT_TRUE(raw.connected());
    raw.send(sb::proto::encodeJson(MsgType::Hello, {{"version", 5}, {"client", "v5"}}));
    raw.send(sb::proto::encodeJson(MsgType::ExecutionRecord,
                                   {{"id", 1}, {"execution", {{"code", "1"}}}}));
    std::vector<Message> got;
    ASSERT_TRUE(raw.readUntilClosed(got));
    ASSERT_EQ(got.back().type, MsgType::Error);
    EXPECT_NE(got.back().body["message"].get<std::string>().find("version"), std::string::npos)
        << got.back().body.dump();
}

TEST(ControlServer, AVersionOneClientMayNotSendVersionTwoMessages)
{
    IsolatedXdg xdg;
    ServerHarness h;
    RawConnection raw(h.socketPath());
    ASSERT_TRUE(raw.connected());
    raw.send(sb::proto::encodeJson(MsgType::Hello, {{"version", 1}, {"client", "old"}}));
    raw.send(sb::proto::encodeJson(MsgType::ExecStart, {{"id", 1}, {"argv", {"true"}}}));
    std::vector<Message> got;
    ASSERT_TRUE(raw.readUntilClosed(got));
    ASSERT_EQ(got.back().type, MsgType::Error);
    EXPECT_NE(got.back().body["message"].get<std::string>().find("needs protocol version 2"),
              std::string::npos);
}

TEST(ControlServer, ASessionWithoutProgramsRefusesExecWithoutClosing)
{
    IsolatedXdg xdg;
    ServerHarness h;
    auto client = connectAs(h, Role::Viewer);
    ASSERT_TRUE(client);
    EXPECT_EQ(client->version(), sb::proto::kVersion);
    EXPECT_FALSE(client->servesPrograms());
    EXPECT_FALSE(client->servesPorts());
    auto ports = client->ports({{"op", "list"}});
    ASSERT_FALSE(ports);
    EXPECT_NE(ports.error().message.find("forwards no ports"), std::string::npos);
    ASSERT_FALSE(
        client->send(sb::proto::jsonMessage(MsgType::ExecStart, {{"id", 5}, {"argv", {"true"}}})));
    auto reply = client->receive(5000);
    ASSERT_TRUE(reply) << reply.error().message;
    EXPECT_EQ(reply->type, MsgType::Error);
    EXPECT_EQ(reply->body["id"], 5);
    EXPECT_EQ(reply->body["ref"], "exec_start");
    EXPECT_FALSE(reply->body["fatal"].get<bool>());
}

TEST(ControlServer, CatchUpFromASequenceNumber)
{
    IsolatedXdg xdg;
    sb::ControlServerOptions options;
    options.ringBytes = 1000;
    ServerHarness h(options);
    std::string all;
    for (int i = 0; i < 10; ++i)
        all += std::string(50, static_cast<char>('a' + i));
    publish(h, all.substr(0, 250));
    publish(h, all.substr(250));

    auto full = connectAs(h, Role::Viewer);
    ASSERT_TRUE(full->subscribe(0) == std::nullopt);
    auto sub = waitFor(*full, MsgType::Subscribed);
    ASSERT_TRUE(sub);
    EXPECT_EQ(sub->body["from_seq"], 0);
    EXPECT_FALSE(sub->body["truncated"].get<bool>());
    std::string got;
    while (got.size() < 500) {
        auto m = full->receive(5000);
        ASSERT_TRUE(m) << m.error().describe();
        ASSERT_EQ(m->type, MsgType::Output);
        EXPECT_EQ(m->seq, got.size()) << "seq is the byte offset of the chunk";
        got += m->bytes;
    }
    EXPECT_EQ(got, all);

    auto partial = connectAs(h, Role::Viewer);
    ASSERT_FALSE(partial->subscribe(420));
    std::string tail;
    ASSERT_TRUE(waitFor(*partial, MsgType::Subscribed, &tail));
    publish(h, "LIVE");
    while (tail.size() < 84) {
        auto m = waitFor(*partial, MsgType::Output);
        ASSERT_TRUE(m);
        tail += m->bytes;
    }
    EXPECT_EQ(tail, all.substr(420) + "LIVE");

    publish(h, std::string(1000, 'z')); // everything before seq 504 is gone now
    auto old = connectAs(h, Role::Viewer);
    ASSERT_FALSE(old->subscribe(10));
    auto tooOld = waitFor(*old, MsgType::Subscribed);
    ASSERT_TRUE(tooOld);
    EXPECT_TRUE(tooOld->body["truncated"].get<bool>()) << tooOld->body.dump();
    EXPECT_EQ(tooOld->body["from_seq"], 504);
    auto first = waitFor(*old, MsgType::Output);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->seq, 504u);
}

TEST(ControlServer, TwoClientsRaceToAnswerAndBothLearnTheOutcome)
{
    IsolatedXdg xdg;
    ServerHarness h;
    auto a = connectAs(h, Role::Viewer, "gui");
    auto b = connectAs(h, Role::Viewer, "cli");
    auto request = commandRequest(3, {"git", "push", "origin"});
    h.onLoop([&](sb::ControlServer& s) {
        std::lock_guard lock(h.backend.mu);
        h.backend.pending[3] = request;
        s.publishApprovalRequest(request);
    });
    for (auto* c : {a.get(), b.get()}) {
        auto m = waitFor(*c, MsgType::ApprovalRequest);
        ASSERT_TRUE(m);
        auto r = sb::proto::approvalRequestFromJson(m->body);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->id, 3u);
        EXPECT_EQ(r->argv, request.argv);
    }
    sb::ApprovalAnswer allow{true, sb::ApprovalScope::Subcommand, sb::ApprovalDuration::Session,
                             ""};
    EXPECT_EQ(a->answer(3, allow), std::nullopt);
    sb::ApprovalAnswer deny{false, sb::ApprovalScope::ExactCommand, sb::ApprovalDuration::Once, ""};
    auto second = b->answer(3, deny);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->code, sb::ErrorCode::Conflict);
    EXPECT_NE(second->message.find("already answered"), std::string::npos);

    for (auto* c : {a.get(), b.get()}) {
        auto m = waitFor(*c, MsgType::ApprovalOutcome);
        ASSERT_TRUE(m);
        auto o = sb::proto::approvalOutcomeFromJson(m->body);
        ASSERT_TRUE(o);
        EXPECT_TRUE(o->allow);
        EXPECT_EQ(o->answer.scope, sb::ApprovalScope::Subcommand);
        EXPECT_EQ(o->answer.answeredBy, "gui") << "named after the client that answered";
    }
    std::lock_guard lock(h.backend.mu);
    ASSERT_EQ(h.backend.answers.size(), 1u);
    EXPECT_TRUE(h.backend.answers[0].second.allow);
}

TEST(ControlServer, AClientVanishingMidPromptChangesNothing)
{
    IsolatedXdg xdg;
    ServerHarness h;
    auto gone = connectAs(h, Role::Interactive);
    auto request = commandRequest(9, {"curl", "x"});
    h.onLoop([&](sb::ControlServer& s) {
        std::lock_guard lock(h.backend.mu);
        h.backend.pending[9] = request;
        s.publishApprovalRequest(request);
    });
    ASSERT_TRUE(waitFor(*gone, MsgType::ApprovalRequest));
    gone.reset();
    for (int i = 0; i < 100 && h.onLoop([](sb::ControlServer& s) { return s.clientCount(); }); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(h.onLoop([](sb::ControlServer& s) { return s.clientCount(); }), 0u);
    {
        std::lock_guard lock(h.backend.mu);
        EXPECT_EQ(h.backend.pending.count(9), 1u);
        EXPECT_TRUE(h.backend.answers.empty());
        EXPECT_TRUE(h.backend.stops.empty());
    }
    auto later = connectAs(h, Role::Viewer);
    ASSERT_EQ(later->pendingAtWelcome().size(), 1u) << "still pending for whoever comes next";
    EXPECT_EQ(later->answer(
                  9, {false, sb::ApprovalScope::ExactCommand, sb::ApprovalDuration::Once, "cli"}),
              std::nullopt);
}

TEST(ControlServer, OnlyInteractiveClientsTypeAndResize)
{
    IsolatedXdg xdg;
    ServerHarness h;
    auto viewer = connectAs(h, Role::Viewer);
    auto typist = connectAs(h, Role::Interactive);
    ASSERT_FALSE(viewer->sendInput("rm -rf ~\r"));
    auto refused = waitFor(*viewer, MsgType::Error);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->body["ref"], "input");
    EXPECT_FALSE(refused->body["fatal"].get<bool>()) << "the viewer stays attached";
    EXPECT_NE(refused->body["message"].get<std::string>().find("--interactive"), std::string::npos);
    ASSERT_FALSE(viewer->resize(10, 10));
    EXPECT_TRUE(waitFor(*viewer, MsgType::Error));

    std::string keys("ls\r\x03\0", 5);
    ASSERT_FALSE(typist->sendInput(keys));
    ASSERT_FALSE(typist->resize(50, 132));
    ASSERT_EQ(typist->stop(false), std::nullopt); // a round trip: everything before has landed
    std::lock_guard lock(h.backend.mu);
    EXPECT_EQ(h.backend.input, keys);
    ASSERT_EQ(h.backend.resizes.size(), 1u);
    EXPECT_EQ(h.backend.resizes[0], std::make_pair(50u, 132u));
}

TEST(ControlServer, StopAndKillReachTheSession)
{
    IsolatedXdg xdg;
    ServerHarness h;
    auto c = connectAs(h, Role::Viewer, "cli");
    EXPECT_EQ(c->stop(false), std::nullopt);
    EXPECT_EQ(c->stop(true), std::nullopt);
    std::lock_guard lock(h.backend.mu);
    EXPECT_EQ(h.backend.stops, (std::vector<bool>{false, true}));
    EXPECT_TRUE(h.logged("kill requested by cli"));
}

TEST(ControlServer, BadFramesCloseOnlyTheirClient)
{
    IsolatedXdg xdg;
    ServerHarness h;
    auto good = connectAs(h, Role::Viewer);
    ASSERT_FALSE(good->subscribe());
    ASSERT_TRUE(waitFor(*good, MsgType::Subscribed));

    struct Case {
        std::string bytes;
        bool greet;
        std::string logged;
    };
    std::string hello = sb::proto::encodeJson(MsgType::Hello, {{"version", 1}});
    std::string garbage = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    std::string oversize("\xf0\xff\xff\x0f\x05", 5);
    std::string truncated = sb::proto::encodeBytes(MsgType::Input, 0, "abcdef").substr(0, 9);
    for (const Case& k :
         {Case{garbage, false, "exceeds the limit"}, Case{oversize, true, "exceeds the limit"},
          Case{truncated, true, "in the middle of a frame"},
          Case{sb::proto::encodeJson(MsgType::Stop, {}), false, "hello first"},
          Case{sb::proto::encodeJson(MsgType::Output, {}), true, "sequence"}}) {
        RawConnection raw(h.socketPath());
        ASSERT_TRUE(raw.connected());
        raw.send((k.greet ? hello : "") + k.bytes);
        if (k.bytes == truncated) raw.shutdownWrite(); // the peer hangs up halfway through a frame
        std::vector<Message> got;
        EXPECT_TRUE(raw.readUntilClosed(got)) << "not closed after: " << k.logged;
        EXPECT_TRUE(h.logged(k.logged)) << "no log line with '" << k.logged << "'";
    }
    publish(h, "still here");
    auto out = waitFor(*good, MsgType::Output);
    ASSERT_TRUE(out) << out.error().describe();
    EXPECT_EQ(out->bytes, "still here");
    EXPECT_TRUE(connectAs(h, Role::Viewer));
    std::lock_guard lock(h.backend.mu);
    EXPECT_TRUE(h.backend.input.empty()) << "nothing of a broken frame reached the terminal";
}

TEST(ControlServer, ExitReachesEveryClientAfterTheOutput)
{
    IsolatedXdg xdg;
    ServerHarness h;
    auto watcher = connectAs(h, Role::Viewer);
    auto idle = connectAs(h, Role::Viewer);
    ASSERT_FALSE(watcher->subscribe());
    ASSERT_TRUE(waitFor(*watcher, MsgType::Subscribed));
    h.onLoop([](sb::ControlServer& s) {
        s.publishOutput("last words");
        s.publishExit(3);
    });
    std::string out;
    auto exit = waitFor(*watcher, MsgType::Exit, &out);
    ASSERT_TRUE(exit);
    EXPECT_EQ(out, "last words") << "the exit comes after all the output";
    EXPECT_EQ(exit->body["status"], 3);
    EXPECT_FALSE(watcher->receive(5000)) << "then the server closes the connection";
    auto idleExit = waitFor(*idle, MsgType::Exit);
    ASSERT_TRUE(idleExit);

    auto late = connectAs(h, Role::Viewer);
    ASSERT_TRUE(late);
    EXPECT_TRUE(late->welcome()["exited"].get<bool>());
    EXPECT_TRUE(waitFor(*late, MsgType::Exit));
}

TEST(ControlServer, DrainDeliversTheLastOutputBeforeTheSupervisorEnds)
{
    IsolatedXdg xdg;
    ServerHarness h;
    auto c = connectAs(h, Role::Viewer);
    ASSERT_FALSE(c->subscribe());
    ASSERT_TRUE(waitFor(*c, MsgType::Subscribed));
    auto reader = std::async(std::launch::async, [&] {
        std::string out;
        auto exit = waitFor(*c, MsgType::Exit, &out, 10000);
        return exit ? out.size() : 0;
    });
    std::string big(3 << 20, 'q'); // more than the socket buffers hold
    std::size_t left = h.onLoop([&](sb::ControlServer& s) {
        s.publishOutput(big);
        s.publishExit(0);
        s.drain(10000);
        return s.clientCount();
    });
    EXPECT_EQ(left, 0u) << "every client had its exit when drain() returned";
    EXPECT_EQ(reader.get(), big.size());
}

// A file reply of 8 MiB (11 MiB of base64) is larger than the queue's limit by itself: a
// client that reads gets it; only what still waits when another message is due counts.
TEST(ControlServer, AMessageLargerThanTheQueueLimitReachesAClientThatReads)
{
    IsolatedXdg xdg;
    sb::ControlServerOptions options;
    options.maxControlQueueBytes = 64 * 1024;
    ServerHarness h(options);
    auto reader = connectAs(h, Role::Viewer); // client 1
    ASSERT_TRUE(reader);
    const std::string big(1 << 20, 'b');
    h.onLoop([&](sb::ControlServer& s) {
        return s.sendTo(1, sb::proto::encodeJson(MsgType::FileReply, {{"id", 1}, {"data", big}}));
    });
    auto reply = reader->receive(5000);
    ASSERT_TRUE(reply) << reply.error().describe();
    EXPECT_EQ(reply->type, MsgType::FileReply);
    EXPECT_EQ(reply->body["data"].get<std::string>().size(), big.size());

    // A client that never reads is let go once more than the limit waits for it.
    RawConnection idle(h.socketPath());
    idle.send(sb::proto::encodeJson(MsgType::Hello, {{"version", 2}, {"client", "idle"}}));
    bool dropped = false;
    for (int i = 0; i < 64 && !dropped; ++i)
        dropped = !h.onLoop([&](sb::ControlServer& s) {
            return s.sendTo(2, sb::proto::encodeJson(MsgType::FileReply, {{"data", big}}));
        });
    EXPECT_TRUE(dropped) << "64 MiB queued for a client that reads nothing";
}

TEST(ControlServer, ASlowClientSkipsAheadAndNeverHoldsTheAgent)
{
    IsolatedXdg xdg;
    sb::ControlServerOptions options;
    options.ringBytes = 64 * 1024;
    ServerHarness h(options);
    auto slow = connectAs(h, Role::Viewer);
    ASSERT_FALSE(slow->subscribe());
    ASSERT_TRUE(waitFor(*slow, MsgType::Subscribed));

    // 32 MiB while the client reads nothing: every call returns at once.
    std::string chunk(64 * 1024, 'x');
    auto start = std::chrono::steady_clock::now();
    h.onLoop([&](sb::ControlServer& s) {
        for (int i = 0; i < 512; ++i)
            s.publishOutput(chunk);
        s.publishOutput("END");
    });
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));

    bool lagged = false;
    std::uint64_t expect = 0;
    std::string tail;
    while (tail.size() < 3 || tail.substr(tail.size() - 3) != "END") {
        auto m = slow->receive(5000);
        ASSERT_TRUE(m) << m.error().describe();
        if (m->type == MsgType::Lagged) {
            lagged = true;
            EXPECT_GT(m->body["lost_bytes"].get<std::uint64_t>(), 0u);
            expect = m->body["resume_seq"].get<std::uint64_t>();
            continue;
        }
        ASSERT_EQ(m->type, MsgType::Output);
        EXPECT_EQ(m->seq, expect) << "contiguous after a resume";
        expect = m->seq + m->bytes.size();
        tail = m->bytes;
    }
    EXPECT_TRUE(lagged);
    EXPECT_EQ(expect, 512u * 64 * 1024 + 3);
}

TEST(ControlServer, StaleSocketsAreReplacedLiveOnesAreNot)
{
    IsolatedXdg xdg;
    std::filesystem::create_directories(sb::runtimeDirectory());
    std::filesystem::permissions(sb::runtimeDirectory(), std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace);
    { // a supervisor that died: the file stays, nobody listens
        int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s",
                      sb::proto::socketPath("sess-1").c_str());
        ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        ::close(fd);
    }
    ServerHarness h;
    EXPECT_TRUE(connectAs(h, Role::Viewer));
    FakeBackend other;
    auto second = sb::ControlServer::listen("sess-1", other);
    ASSERT_FALSE(second);
    EXPECT_EQ(second.error().code, sb::ErrorCode::Conflict);
    EXPECT_NE(second.error().message.find("already has a live supervisor"), std::string::npos);
}

// Peers of another uid are refused by SO_PEERCRED even when file modes would let them in.
TEST(ControlServer, PeersOfAnotherUserAreRefused)
{
    IsolatedXdg xdg;
    if (::geteuid() != 0) {
        // Not root: no other uid to connect as. The owner seam makes this process the
        // "other user"; the real accept/SO_PEERCRED path refuses it.
        sb::ControlServerOptions options;
        options.ownerUid = ::geteuid() + 1;
        ServerHarness h(options);
        auto c = ControlClient::connectPath(h.socketPath(), "intruder", Role::Viewer);
        ASSERT_FALSE(c);
        EXPECT_NE(c.error().message.find("peer uid " + std::to_string(::geteuid())),
                  std::string::npos)
            << c.error().message;
        EXPECT_TRUE(h.logged("refused pid"));
        return;
    }
    ServerHarness h;
    // Simulate a permissions mistake so that only the credential check stands in the way.
    ::chmod(xdg.root().c_str(), 0755);
    ::chmod((xdg.root() / "XDG_RUNTIME_DIR").c_str(), 0755);
    ::chmod(sb::runtimeDirectory().c_str(), 0755);
    ::chmod(h.socketPath().c_str(), 0666);
    const std::string socket = h.socketPath().string();
    pid_t pid = ::fork();
    if (pid == 0) {
        // Only async-signal-safe calls: the parent has threads.
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(10);
        ::_exit(refusedAtOnce(socket.c_str()));
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setuid, 11: connect, 12: not refused";
    EXPECT_TRUE(h.logged("peer uid 65534"));
    EXPECT_TRUE(connectAs(h, Role::Viewer)) << "the owner still gets in";
}
