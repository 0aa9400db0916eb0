// Input and signals a client sends right after exec_start, before the process exists (its pid
// and its terminal come a moment later from the sandbox), reach it once it runs: a client that
// types or presses Ctrl-C at once must not lose either. A real session and a raw control client.
#include "IntegrationSupport.h"
#include "control/ControlClient.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

using sbit::dump;

namespace {

using sb::proto::MsgType;

class ExecStart : public ::testing::Test {
  protected:
    sbit::Sandbench sb;

    std::unique_ptr<sb::ControlClient> startSession()
    {
        auto started = sb.cli({"start", "--workspace", sb.workspace().string(), "--json"});
        EXPECT_EQ(started.status, 0) << dump(started);
        if (started.status != 0) return nullptr;
        m_session = nlohmann::json::parse(started.out)["id"].get<std::string>();
        auto client = sb::ControlClient::connectPath(
            nlohmann::json::parse(started.out)["socket"].get<std::string>(), "exec-start-test",
            sb::proto::Role::Interactive);
        EXPECT_TRUE(client) << client.error().describe();
        return client ? std::move(*client) : nullptr;
    }

    void TearDown() override
    {
        if (!m_session.empty()) (void)sb.cli({"stop", m_session});
    }

    // What exec `id` printed, and its exit message, waiting at most 20 s.
    std::pair<std::string, nlohmann::json> until(sb::ControlClient& client, std::uint64_t id)
    {
        std::string out;
        for (int i = 0; i < 200; ++i) {
            auto m = client.receive(100);
            if (!m) continue;
            if (m->type == MsgType::ExecOutput && m->seq / 256 == id) out += m->bytes;
            if (m->type == MsgType::ExecExit && m->body.value("id", std::uint64_t{0}) == id)
                return {out, m->body};
        }
        return {out, nlohmann::json()};
    }

    const std::string& session() const { return m_session; }

  private:
    std::string m_session;
};

TEST_F(ExecStart, InputSentAtOnceReachesATerminalProcess)
{
    auto client = startSession();
    ASSERT_TRUE(client);
    ASSERT_FALSE(client->send(sb::proto::jsonMessage(
        MsgType::ExecStart, {{"id", 1},
                             {"argv", {"bash", "-c", "read line; echo got:$line"}},
                             {"tty", {{"rows", 24}, {"cols", 80}}}})));
    // No wait for exec_started: the terminal does not exist yet.
    ASSERT_FALSE(client->sendFrame(sb::proto::encodeBytes(MsgType::ExecInput, 1, "hello\n")));
    auto [out, exit] = until(*client, 1);
    ASSERT_FALSE(exit.is_null()) << "no exit within 20 s; output: " << out;
    EXPECT_NE(out.find("got:hello"), std::string::npos) << out;
    EXPECT_EQ(exit.value("exit_code", -1), 0) << exit.dump();
}

TEST_F(ExecStart, ASignalSentAtOnceReachesTheProcess)
{
    auto client = startSession();
    ASSERT_TRUE(client);
    for (std::uint64_t id : {2, 3}) {
        nlohmann::json start = {{"id", id}, {"argv", {"sleep", "30"}}, {"stdin", true}};
        if (id == 3) start["tty"] = {{"rows", 24}, {"cols", 80}};
        ASSERT_FALSE(client->send(sb::proto::jsonMessage(MsgType::ExecStart, start)));
        ASSERT_FALSE(client->send(
            sb::proto::jsonMessage(MsgType::ExecControl, {{"id", id}, {"signal", SIGINT}})));
        auto [out, exit] = until(*client, id);
        ASSERT_FALSE(exit.is_null())
            << "the signal was lost: still running after 20 s (exec " << id << ")";
        EXPECT_EQ(exit.value("signal", std::string()), "SIGINT") << exit.dump();
    }
}

// A process whose stdout is a protocol (the code interpreter's gateway) asks to keep it out of
// the session's terminal: its client still gets it, the recording's terminal does not, and its
// stderr stays there as any process's does.
TEST_F(ExecStart, StdoutKeptOutOfTheTerminalWhenAsked)
{
    auto client = startSession();
    ASSERT_TRUE(client);
    ASSERT_FALSE(client->send(sb::proto::jsonMessage(
        MsgType::ExecStart,
        {{"id", 4},
         {"argv", {"sh", "-c", "echo proto-$((6*7))-line; echo diag-$((6*7))-line >&2"}},
         {"stdout_transcript", false}})));
    auto [out, exit] = until(*client, 4);
    ASSERT_FALSE(exit.is_null()) << "no exit within 20 s; output: " << out;
    EXPECT_NE(out.find("proto-42-line"), std::string::npos)
        << "the client lost its stdout: " << out;
    // The terminal's recording is written as it comes: wait for the stderr line in it, then the
    // stdout line must not be there.
    bool diagnosed = false;
    for (int i = 0; i < 100 && !diagnosed; ++i) {
        auto found = sb.cli({"search", "diag-42-line"});
        diagnosed = found.status == 0 && found.out.find(session()) != std::string::npos;
        if (!diagnosed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(diagnosed) << "its stderr never reached the session's terminal";
    auto leaked = sb.cli({"search", "proto-42-line"});
    EXPECT_EQ(leaked.out.find(session()), std::string::npos) << dump(leaked);

    // Anything but true or false is refused by name, and nothing runs.
    ASSERT_FALSE(client->send(sb::proto::jsonMessage(
        MsgType::ExecStart, {{"id", 5}, {"argv", {"touch", "ran"}}, {"stdout_transcript", "no"}})));
    std::string refusal;
    for (int i = 0; i < 100 && refusal.empty(); ++i)
        if (auto m = client->receive(100);
            m && m->body.dump().find("stdout_transcript") != std::string::npos)
            refusal = m->body.dump();
    EXPECT_NE(refusal.find("must be true or false"), std::string::npos) << refusal;
    EXPECT_FALSE(std::filesystem::exists(sb.workspace() / "ran"));
}

} // namespace
