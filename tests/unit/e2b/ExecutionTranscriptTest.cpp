// What serve gathers of one /execute for the session's recording (issue 36, item 5): the lines the
// SDK hears, turned into an execution record that the supervisor's check accepts.
#include "base/Bytes.h"
#include "e2b/ExecutionRecord.h"
#include "recording/CodeExecution.h"

#include <gtest/gtest.h>

using json = nlohmann::json;

TEST(ExecutionTranscript, GathersWhatTheSdkHeardByMimeType)
{
    sb::e2b::ExecutionTranscript t("df", "ctx-1", "");
    t.add({{"type", "stdout"}, {"text", "a\n"}});
    t.add({{"type", "stdout"}, {"text", "b\n"}});
    t.add({{"type", "result"},
           {"is_main_result", true},
           {"text", "   a\n0  1"},
           {"html", "<table><tr><td>1</td></tr></table>"},
           {"data", {{"a", {1}}}}});
    t.add({{"type", "result"}, {"is_main_result", false}, {"png", sb::base64("PNG")}});
    t.add({{"type", "number_of_executions"}, {"execution_count", 7}});
    const json r = t.record();
    EXPECT_EQ(r["code"], "df");
    EXPECT_EQ(r["context"], "ctx-1");
    EXPECT_EQ(r["stdout"], "a\nb\n");
    EXPECT_EQ(r["execution_count"], 7);
    ASSERT_EQ(r["results"].size(), 2u);
    json mimes = json::array();
    for (const json& p : r["results"][0]["parts"])
        mimes.push_back(p["mime"]);
    EXPECT_EQ(mimes, json({"text/plain", "text/html", "e2b/data"}));
    EXPECT_EQ(r["results"][1]["parts"][0],
              json({{"mime", "image/png"}, {"base64", sb::base64("PNG")}}));
    EXPECT_EQ(r["results"][0]["main"], true);

    auto recorded = sb::recordedExecution(r);
    ASSERT_TRUE(recorded) << recorded.error().describe();
    EXPECT_EQ((*recorded)["results"][1]["parts"][0]["bytes"], 3);
}

TEST(ExecutionTranscript, KeepsTheError)
{
    sb::e2b::ExecutionTranscript t("1/0", "", "python");
    t.add({{"type", "error"},
           {"name", "ZeroDivisionError"},
           {"value", "division by zero"},
           {"traceback", "Traceback …"}});
    const json r = t.record();
    EXPECT_EQ(r["error"]["name"], "ZeroDivisionError");
    EXPECT_EQ(r["language"], "python");
    EXPECT_TRUE(sb::recordedExecution(r));
}

TEST(ExecutionTranscript, AHugeResultIsLeftOutNotSent)
{
    sb::e2b::ExecutionTranscript t("big", "", "");
    t.add({{"type", "result"}, {"text", std::string(5u << 20, 'x')}});
    const json r = t.record();
    const json& part = r["results"][0]["parts"][0];
    EXPECT_FALSE(part.contains("text"));
    EXPECT_EQ(part["bytes"], 5u << 20);
    EXPECT_TRUE(part.contains("omitted"));
    EXPECT_TRUE(sb::recordedExecution(r));
}
