// The code interpreter's parts in core (core/e2b/CodeInterpreter.h): what clients may send to
// /execute and /contexts, what of the gateway's lines reaches them, and the gateway's process
// over a session's control connection (a scripted supervisor here; tests/js/code-interpreter
// runs the real one with real kernels).
#include "E2bTestSupport.h"
#include "e2b/CodeInterpreter.h"

#include <gtest/gtest.h>

namespace {

using namespace sb::e2b;
using nlohmann::json;

TEST(CodeInterpreterRequests, AnExecutionNeedsItsCodeAndTakesAContextOrALanguage)
{
    auto plain = parseExecute({{"code", "x = 1; x"}});
    ASSERT_TRUE(plain) << plain.error().message;
    EXPECT_EQ(plain->code, "x = 1; x");
    EXPECT_TRUE(plain->contextId.empty());
    EXPECT_TRUE(plain->language.empty());

    auto full = parseExecute(
        {{"code", "1"}, {"context_id", "c1"}, {"language", nullptr}, {"env_vars", {{"A", "b"}}}});
    ASSERT_TRUE(full) << full.error().message;
    EXPECT_EQ(full->contextId, "c1");
    EXPECT_EQ(full->envVars.at("A"), "b");

    auto python = parseExecute({{"code", "1"}, {"language", " Python "}});
    ASSERT_TRUE(python);
    EXPECT_EQ(python->language, "python");
    auto bash = parseExecute({{"code", "pwd"}, {"language", "bash"}});
    ASSERT_TRUE(bash);
    EXPECT_EQ(bash->language, "bash");
    auto r = languageOf("R");
    ASSERT_TRUE(r);
    EXPECT_EQ(*r, "r");

    EXPECT_FALSE(parseExecute({{"context_id", "c1"}}));
    EXPECT_FALSE(parseExecute({{"code", 1}}));
    EXPECT_FALSE(parseExecute(json::array()));
    auto both = parseExecute({{"code", "1"}, {"context_id", "c1"}, {"language", "python"}});
    ASSERT_FALSE(both);
    EXPECT_NE(both.error().message.find("not both"), std::string::npos);
    EXPECT_FALSE(parseExecute({{"code", "1"}, {"env_vars", {{"A", 1}}}}));
    EXPECT_FALSE(parseExecute({{"code", "1"}, {"env_vars", {{"A=B", "c"}}}}));
}

TEST(CodeInterpreterRequests, WhatIsNotServedIsRefusedByName)
{
    auto unknown = parseExecute({{"code", "1"}, {"background", true}});
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message.find("'background'"), std::string::npos);

    auto java = parseExecute({{"code", "1"}, {"language", "java"}});
    ASSERT_FALSE(java);
    EXPECT_NE(java.error().message.find("language 'java' is not served"), std::string::npos);
    auto js = languageOf("js");
    ASSERT_FALSE(js);
    EXPECT_NE(js.error().message.find("'javascript'"), std::string::npos) << "named unaliased";

    auto context = parseCreateContext({{"language", "java"}}, "/home/user");
    ASSERT_FALSE(context);
    EXPECT_NE(context.error().message.find("'java'"), std::string::npos);
    EXPECT_FALSE(parseCreateContext({{"cwd", "/tmp"}, {"kernel", "x"}}, "/home/user"));
}

TEST(CodeInterpreterRequests, AContextsFolderIsAbsoluteFromHome)
{
    auto none = parseCreateContext(json::object(), "/home/user");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->language, "python");
    EXPECT_EQ(none->cwd, "/home/user");
    auto relative = parseCreateContext({{"cwd", "data/../work"}, {"language", nullptr}}, "/home/user");
    ASSERT_TRUE(relative);
    EXPECT_EQ(relative->cwd, "/home/user/work");
    EXPECT_EQ(parseCreateContext({{"cwd", "/tmp"}}, "/home/user")->cwd, "/tmp");
    EXPECT_FALSE(parseCreateContext({{"cwd", 3}}, "/home/user"));
}

TEST(CodeInterpreterLines, OnlyTheLineTypesTheSdkReadsPassWithTheirFields)
{
    auto out = executeLine({{"type", "stdout"}, {"text", "hi\n"}, {"secret", "x"}});
    ASSERT_TRUE(out);
    EXPECT_EQ(*out, (json{{"type", "stdout"}, {"text", "hi\n"}})) << "unknown fields dropped";
    auto result = executeLine({{"type", "result"},
                               {"is_main_result", true},
                               {"text", "1"},
                               {"png", "iVBOR"},
                               {"data", {{"a", {1, 2}}}}});
    ASSERT_TRUE(result);
    EXPECT_EQ((*result)["png"], "iVBOR");
    EXPECT_EQ((*result)["data"]["a"][1], 2);
    EXPECT_TRUE(executeLine({{"type", "number_of_executions"}, {"execution_count", 3}}));
    EXPECT_TRUE(
        executeLine({{"type", "error"}, {"name", "E"}, {"value", "v"}, {"traceback", "t"}}));

    EXPECT_FALSE(executeLine({{"type", "end_of_execution"}})) << "the server ends the stream";
    EXPECT_FALSE(executeLine({{"type", "stdout"}, {"text", 3}}));
    EXPECT_FALSE(executeLine({{"type", "result"}, {"png", json::object()}}));
    EXPECT_FALSE(executeLine({{"type", "result"}, {"data", "x"}}));
    EXPECT_FALSE(executeLine({{"type", "result"}, {"is_main_result", "1"}})) << "found by fuzzing";
    EXPECT_FALSE(executeLine({{"type", "error"}, {"name", "E"}}));
    EXPECT_FALSE(executeLine({{"type", "number_of_executions"}, {"execution_count", "2"}}));
}

TEST(CodeInterpreterLines, AGatewayLineNamesItsRequest)
{
    auto out = parseGatewayLine(R"({"id":"4","out":{"type":"stderr","text":"e"}})");
    ASSERT_TRUE(out);
    EXPECT_EQ(out->kind, GatewayMessage::Kind::Output);
    EXPECT_EQ(out->id, "4");
    auto fail = parseGatewayLine(R"({"id":"5","fail":{"status":404,"message":"no context"}})");
    ASSERT_TRUE(fail);
    EXPECT_EQ(fail->kind, GatewayMessage::Kind::Fail);
    EXPECT_EQ(fail->status, 404);
    EXPECT_EQ(fail->body, "no context");
    auto odd = parseGatewayLine(R"({"id":"5","fail":{"status":200}})");
    ASSERT_TRUE(odd);
    EXPECT_EQ(odd->status, 500) << "the gateway cannot make a failure a success";
    EXPECT_EQ(parseGatewayLine(R"({"id":"6","end":true})")->kind, GatewayMessage::Kind::End);
    EXPECT_EQ(parseGatewayLine(R"({"ready":true})")->kind, GatewayMessage::Kind::Ready);

    EXPECT_FALSE(parseGatewayLine("Traceback (most recent call last):"));
    EXPECT_FALSE(parseGatewayLine(R"({"id":7,"end":true})"));
    EXPECT_FALSE(parseGatewayLine(R"({"id":"7","out":{"type":"keepalive"}})"));
    EXPECT_FALSE(parseGatewayLine(R"({"id":"7"})"));
}

// A session's other end that runs a scripted gateway: each request line it is sent is answered
// on the process's stdout (an execution with a stray line, a malformed one, its output and its
// end, in pieces), "cancel" is remembered, and "exit" ends the process.
class ScriptedSession {
  public:
    ScriptedSession() : m_link(m_peer.link()) {}
    ~ScriptedSession() { m_link.reset(); }
    std::shared_ptr<SessionLink> link() { return m_link; }
    std::string script() const { return m_script; }
    json started() const { return m_started; }
    std::vector<std::string> cancelled() const
    {
        std::lock_guard lock(m_mutex);
        return m_cancelled;
    }

  private:
    void send(const sb::proto::Message& m) { m_peer.send(m); }
    void output(std::string bytes)
    {
        sb::proto::Message out;
        out.type = sb::proto::MsgType::ExecOutput;
        out.seq = m_exec << 8 | sb::proto::kExecStdout;
        out.bytes = std::move(bytes);
        send(out);
    }
    void request(const json& r)
    {
        const std::string id = r.value("id", std::string());
        const std::string op = r.value("op", std::string());
        if (op == "cancel") {
            std::lock_guard lock(m_mutex);
            m_cancelled.push_back(id);
        } else if (op == "execute") {
            const std::string line =
                json{{"id", id}, {"out", {{"type", "stdout"}, {"text", r["code"]}}}}.dump();
            output("stray text\n{\"id\":\"" + id + "\",\"out\":{\"type\":\"bad\"}}\n" +
                   line.substr(0, 10));
            output(line.substr(10) + "\n{\"id\":\"" + id + "\",\"end\":true}\n");
        } else if (op == "list") {
            output(json{{"id", id}, {"reply", json::array()}}.dump() + "\n");
        } else if (op == "exit") {
            send(sb::proto::jsonMessage(sb::proto::MsgType::ExecExit,
                                        {{"id", m_exec}, {"exit_code", 1}, {"signal", nullptr}}));
        }
    }
    void answer(const sb::proto::Message& m)
    {
        using sb::proto::MsgType;
        const auto id = m.body.value("id", std::uint64_t{0});
        if (m.type == MsgType::FileRequest) {
            m_script = sb::fromBase64(m.body.value("data_base64", "")).value_or("");
            send(sb::proto::jsonMessage(MsgType::FileReply, {{"id", id}, {"ok", true}}));
        } else if (m.type == MsgType::ExecStart) {
            m_exec = id;
            m_started = m.body;
            send(sb::proto::jsonMessage(MsgType::ExecStarted, {{"id", id}, {"pid", 77}}));
        } else if (m.type == MsgType::ExecInput) {
            m_stdin += m.bytes;
            for (std::size_t nl; (nl = m_stdin.find('\n')) != std::string::npos;) {
                request(json::parse(m_stdin.substr(0, nl)));
                m_stdin.erase(0, nl + 1);
            }
        }
    }

    std::uint64_t m_exec = 0;
    std::string m_stdin;
    std::string m_script;
    json m_started;
    mutable std::mutex m_mutex;
    std::vector<std::string> m_cancelled;
    sbtest::ControlPeer m_peer{[this](const sb::proto::Message& m) { answer(m); }};
    std::shared_ptr<SessionLink> m_link;
};

// Everything a call hears until its last message (at most `ms`).
std::vector<GatewayMessage> hear(KernelGateway::Call& call, int ms = 10000)
{
    std::vector<GatewayMessage> heard;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) {
        for (GatewayMessage& m : call.take(std::chrono::milliseconds(100))) {
            heard.push_back(std::move(m));
            if (heard.back().kind != GatewayMessage::Kind::Output) return heard;
        }
    }
    return heard;
}

TEST(KernelGateway, StartsItsScriptInTheSandboxAndRoutesItsLinesToTheirRequests)
{
    ScriptedSession session;
    auto gateway = KernelGateway::start(session.link(), "/home/user", {{"SANDBOX_VAR", "1"}});
    ASSERT_TRUE(gateway) << gateway.error().describe();
    EXPECT_EQ(session.script(), kernelGatewayScript());
    EXPECT_NE(session.script().find(kernelGatewayExtras()), std::string::npos) << "with its extras";
    const json started = session.started();
    EXPECT_EQ(started["argv"][0], "/usr/bin/python3");
    EXPECT_EQ(started["env"]["SANDBOX_VAR"], "1") << "the sandbox's variables reach the kernels";
    EXPECT_EQ(started["stdin"], true);
    EXPECT_EQ(started["origin"], "e2b:code-interpreter") << "recorded as the interpreter's";

    auto first = (*gateway)->call({{"op", "execute"}, {"code", "first"}});
    auto second = (*gateway)->call({{"op", "execute"}, {"code", "second"}});
    ASSERT_TRUE(first && second);
    const auto a = hear(**first);
    const auto b = hear(**second);
    ASSERT_EQ(a.size(), 2u) << "a stray line and a malformed one never reach the client";
    EXPECT_EQ(a[0].body, (json{{"type", "stdout"}, {"text", "first"}}));
    EXPECT_EQ(a[1].kind, GatewayMessage::Kind::End);
    ASSERT_EQ(b.size(), 2u);
    EXPECT_EQ(b[0].body["text"], "second");

    auto list = (*gateway)->call({{"op", "list"}});
    ASSERT_TRUE(list);
    const auto l = hear(**list);
    ASSERT_EQ(l.size(), 1u);
    EXPECT_EQ(l[0].kind, GatewayMessage::Kind::Reply);

    auto cancelled = (*gateway)->call({{"op", "wait"}});
    ASSERT_TRUE(cancelled);
    (*gateway)->cancel(*cancelled);
    auto sync = (*gateway)->call({{"op", "list"}});
    ASSERT_TRUE(sync);
    hear(**sync);
    EXPECT_EQ(session.cancelled(), std::vector<std::string>{(*cancelled)->id()});
}

TEST(KernelGateway, ItsEndEndsTheRequestsWaitingAndItSaysItIsGone)
{
    ScriptedSession session;
    auto gateway = KernelGateway::start(session.link(), "/home/user", {});
    ASSERT_TRUE(gateway) << gateway.error().describe();
    auto waiting = (*gateway)->call({{"op", "wait"}});
    ASSERT_TRUE(waiting);
    ASSERT_TRUE((*gateway)->call({{"op", "exit"}}));
    const auto heard = hear(**waiting);
    ASSERT_EQ(heard.size(), 1u);
    EXPECT_EQ(heard[0].kind, GatewayMessage::Kind::Gone);
    EXPECT_FALSE((*gateway)->alive());
    EXPECT_FALSE((*gateway)->call({{"op", "list"}})) << "a new gateway is needed";
}

} // namespace
