// A code interpreter's execution handed to a real session (execution_record, issue 36 item 5):
// the supervisor answers, sends it to subscribed clients as the activity event "execution" and
// records it as code_execution; a secret's value in its texts is recorded as its name, never as
// itself; a malformed record is refused naming the field. A real session started by the real
// sandbench-cli with a policy that has a secret, and a control client as serve is one.
#include "IntegrationSupport.h"
#include "base/Bytes.h"
#include "control/ControlClient.h"
#include "recording/RecordingStore.h"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;
using sb::proto::MsgType;
using sbit::dump;

namespace {

const std::string kValue = "tok-THEREALVALUE-" + sbit::uniqueToken() + "0123456789";

// The next message of `type` within 20 s; events on the way are kept in `events`.
std::optional<sb::proto::Message> next(sb::ControlClient& client, MsgType type,
                                       std::vector<json>& events)
{
    for (int i = 0; i < 200; ++i) {
        auto m = client.receive(100);
        if (!m) continue;
        if (m->type == MsgType::Event) events.push_back(m->body);
        if (m->type == type) return *m;
    }
    return std::nullopt;
}

} // namespace

TEST(ExecutionRecord, IsPublishedAndRecordedWithTheSecretsValuesTakenOut)
{
    sbit::Sandbench sb;
    const fs::path policy = sb.writePolicy(R"({"version": 1,
      "network": {"mode": "filtered", "default": "deny"},
      "secrets": {"token": {"from": {"env": "THE_TOKEN"}, "hosts": ["api.test.example"],
                            "env": "API_TOKEN"}}})");
    auto started = sb.cli(
        {"start", "--workspace", sb.workspace().string(), "--policy", policy.string(), "--json"},
        sbit::withEnv({{"THE_TOKEN", kValue}}));
    ASSERT_EQ(started.status, 0) << dump(started);
    const json info = json::parse(started.out);
    const std::string id = info["id"].get<std::string>();
    auto client = sb::ControlClient::connectPath(info["socket"].get<std::string>(), "serve-test",
                                                 sb::proto::Role::Viewer);
    ASSERT_TRUE(client) << client.error().describe();
    ASSERT_FALSE((*client)->subscribe());

    const std::string png = sb::base64(std::string("\x89PNG\r\n\x1a\n", 8) + "pixels");
    const json execution = {
        {"language", "python"},
        {"context", ""},
        {"execution_count", 1},
        {"code", "import os\nprint(os.environ['API_TOKEN'])  # " + kValue},
        {"stdout", kValue + "\n"},
        {"results",
         {{{"main", false},
           {"parts",
            {{{"mime", "image/png"}, {"base64", png}},
             {{"mime", "text/plain"}, {"text", "a chart of " + kValue}}}}}}},
        {"error", {{"name", "KeyError"}, {"value", kValue}, {"traceback", "at " + kValue}}}};
    ASSERT_FALSE((*client)->send(
        sb::proto::jsonMessage(MsgType::ExecutionRecord, {{"id", 7}, {"execution", execution}})));
    std::vector<json> events;
    auto recorded = next(**client, MsgType::ExecutionRecorded, events);
    ASSERT_TRUE(recorded) << "no execution_recorded within 20 s";
    EXPECT_EQ(recorded->body["id"], 7);
    EXPECT_EQ(recorded->body["ok"], true);
    // The answer comes once the execution is in the database: read at once, the session running.
    {
        auto now = sb::RecordingStore::open(fs::path(sb.env().at("XDG_DATA_HOME")) / "sandbench" /
                                            "recordings.db");
        ASSERT_TRUE(now) << now.error().describe();
        int found = 0;
        ASSERT_FALSE(now->forEachEvent(id, 0, INT64_MAX, [&](const sb::RecordedEvent& event) {
            found += event.kind == sb::EventKind::CodeExecution ? 1 : 0;
            return true;
        }));
        EXPECT_EQ(found, 1) << "execution_recorded came before the execution was committed";
    }

    // Malformed: refused, naming the field; the session goes on.
    ASSERT_FALSE((*client)->send(sb::proto::jsonMessage(
        MsgType::ExecutionRecord, {{"id", 8}, {"execution", {{"code", 1}}}})));
    auto refused = next(**client, MsgType::Error, events);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->body["ref"], "execution_record") << refused->body.dump();
    EXPECT_EQ(refused->body["id"], 8);
    EXPECT_NE(refused->body["message"].get<std::string>().find("execution.code"), std::string::npos)
        << refused->body.dump();

    // The event clients hear (it came before the answer).
    const json* published = nullptr;
    for (const json& e : events)
        if (e.value("kind", "") == "execution") published = &e;
    ASSERT_TRUE(published) << "no execution event";
    EXPECT_EQ((*published)["by"], "serve-test");
    EXPECT_EQ((*published)["results"][0]["parts"][0]["base64"], png);
    EXPECT_EQ((*published)["stdout"], "[secret token]\n");
    EXPECT_EQ(published->dump().find(kValue), std::string::npos) << published->dump();

    client->reset();
    auto stopped = sb.cli({"stop", id});
    ASSERT_EQ(stopped.status, 0) << dump(stopped);
    ASSERT_TRUE(sb.waitUntilEnded(id, 20000));

    auto store = sb::RecordingStore::open(fs::path(sb.env().at("XDG_DATA_HOME")) / "sandbench" /
                                          "recordings.db");
    ASSERT_TRUE(store) << store.error().describe();
    std::vector<json> executions;
    std::string everything;
    ASSERT_FALSE(store->forEachEvent(id, 0, INT64_MAX, [&](const sb::RecordedEvent& event) {
        everything += event.data;
        if (event.kind == sb::EventKind::CodeExecution)
            executions.push_back(json::parse(event.data, nullptr, false));
        return true;
    }));
    ASSERT_EQ(executions.size(), 1u);
    const json& x = executions[0];
    EXPECT_EQ(x["kind"], "execution");
    EXPECT_EQ(x["execution_count"], 1);
    EXPECT_NE(x["code"].get<std::string>().find("# [secret token]"), std::string::npos)
        << x["code"];
    EXPECT_EQ(x["results"][0]["parts"][0]["mime"], "image/png");
    EXPECT_EQ(x["results"][0]["parts"][0]["base64"], png);
    EXPECT_EQ(x["results"][0]["parts"][1]["text"], "a chart of [secret token]");
    EXPECT_EQ(x["error"]["value"], "[secret token]");
    EXPECT_EQ(everything.find(kValue), std::string::npos) << "the value is in the recording";
}
