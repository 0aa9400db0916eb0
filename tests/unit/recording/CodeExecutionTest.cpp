// A code interpreter's executions in the recording (issue 36, item 5): what the supervisor keeps
// of an execution_record (checked, bounded, saying what it left out), and that it is stored and
// read back as a code_execution event.
#include "recording/CodeExecution.h"

#include "RecordingTestSupport.h"
#include "base/Bytes.h"

#include <gtest/gtest.h>

using json = nlohmann::json;

namespace {

// A tiny PNG's bytes (only the signature matters to the record: it is bytes in base64).
const std::string kPng = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(100, '\x01');

json chartExecution()
{
    return {
        {"language", "python"},
        {"context", ""},
        {"execution_count", 3},
        {"code", "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"},
        {"stdout", "plotting\n"},
        {"results",
         json::array({{{"main", false},
                       {"parts", json::array({{{"mime", "image/png"}, {"base64", sb::base64(kPng)}},
                                              {{"mime", "text/plain"},
                                               {"text", "<Figure size 640x480 with 1 Axes>"}}})}},
                      {{"main", true},
                       {"parts", json::array({{{"mime", "e2b/data"},
                                               {"json", {{"a", {1, 2}}, {"b", {"x", "y"}}}}}})}}})},
        {"duration_ms", 120}};
}

} // namespace

TEST(CodeExecution, KeepsCodeResultsByMimeTypeAndTheirSizes)
{
    auto recorded = sb::recordedExecution(chartExecution());
    ASSERT_TRUE(recorded) << recorded.error().describe();
    const json& r = *recorded;
    EXPECT_EQ(r["kind"], "execution");
    EXPECT_EQ(r["execution_count"], 3);
    EXPECT_EQ(r["code"], chartExecution()["code"]);
    EXPECT_EQ(r["stdout"], "plotting\n");
    ASSERT_EQ(r["results"].size(), 2u);
    const json& png = r["results"][0]["parts"][0];
    EXPECT_EQ(png["mime"], "image/png");
    EXPECT_EQ(sb::fromBase64(png["base64"].get<std::string>()), kPng);
    EXPECT_EQ(png["bytes"], kPng.size()); // decoded
    // As Jupyter sends it: with a newline at the end (kept, as the SDK got it).
    json lined = chartExecution();
    lined["results"][0]["parts"][0]["base64"] = sb::base64(kPng) + "\n";
    auto again = sb::recordedExecution(lined);
    ASSERT_TRUE(again);
    EXPECT_EQ((*again)["results"][0]["parts"][0]["bytes"], kPng.size());
    EXPECT_EQ((*again)["results"][0]["parts"][0]["base64"], sb::base64(kPng) + "\n");
    EXPECT_EQ(r["results"][0]["parts"][1]["text"], "<Figure size 640x480 with 1 Axes>");
    EXPECT_EQ(r["results"][1]["main"], true);
    EXPECT_EQ(r["results"][1]["parts"][0]["json"]["b"][1], "y");
    EXPECT_FALSE(r.contains("error"));
}

TEST(CodeExecution, KeepsTheErrorWithItsTraceback)
{
    json x = {{"code", "1/0"},
              {"error",
               {{"name", "ZeroDivisionError"},
                {"value", "division by zero"},
                {"traceback", "Traceback (most recent call last):\n  1/0\nZeroDivisionError"}}}};
    auto recorded = sb::recordedExecution(x);
    ASSERT_TRUE(recorded) << recorded.error().describe();
    EXPECT_EQ((*recorded)["error"]["name"], "ZeroDivisionError");
    EXPECT_NE((*recorded)["error"]["traceback"].get<std::string>().find("1/0"), std::string::npos);
    EXPECT_TRUE((*recorded)["results"].empty());
}

TEST(CodeExecution, AHugePictureIsLeftOutAndSaysSo)
{
    sb::ExecutionLimits limits;
    limits.part = 4096;
    json x = chartExecution();
    x["results"][0]["parts"][0]["base64"] = sb::base64(std::string(10000, 'p'));
    auto recorded = sb::recordedExecution(x, limits);
    ASSERT_TRUE(recorded) << recorded.error().describe();
    const json& png = (*recorded)["results"][0]["parts"][0];
    EXPECT_FALSE(png.contains("base64"));
    EXPECT_EQ(png["bytes"], 10000);
    EXPECT_NE(png["omitted"].get<std::string>().find("4 KiB"), std::string::npos);
    // The text beside it is still there.
    EXPECT_EQ((*recorded)["results"][0]["parts"][1]["mime"], "text/plain");
}

TEST(CodeExecution, LongTextsAreCutAndSaySo)
{
    sb::ExecutionLimits limits;
    limits.code = 2000;
    limits.part = 3000;
    json x = chartExecution();
    x["code"] = std::string(5000, 'c');
    x["stdout"] = std::string(5000, 'o');
    x["results"][0]["parts"][1]["text"] = std::string(8000, 't');
    auto recorded = sb::recordedExecution(x, limits);
    ASSERT_TRUE(recorded) << recorded.error().describe();
    EXPECT_LE((*recorded)["code"].get<std::string>().size(), 2000u + 3);
    EXPECT_EQ((*recorded)["code_bytes"], 5000);
    EXPECT_EQ((*recorded)["stdout_bytes"], 5000);
    const json& text = (*recorded)["results"][0]["parts"][1];
    EXPECT_EQ(text["truncated"], true);
    EXPECT_EQ(text["bytes"], 8000);
    EXPECT_LE(text["text"].get<std::string>().size(), 3000u + 3);
}

TEST(CodeExecution, AllResultsTogetherAreBounded)
{
    sb::ExecutionLimits limits;
    limits.total = 50'000;
    json x = {{"code", "for i in range(5): display(image)"}, {"results", json::array()}};
    for (int i = 0; i < 5; ++i)
        x["results"].push_back(
            {{"parts", json::array({{{"mime", "image/jpeg"},
                                     {"base64", sb::base64(std::string(15000, 'j'))}}})}});
    auto recorded = sb::recordedExecution(x, limits);
    ASSERT_TRUE(recorded) << recorded.error().describe();
    int kept = 0, omitted = 0;
    for (const json& result : (*recorded)["results"])
        (result["parts"][0].contains("base64") ? kept : omitted)++;
    EXPECT_EQ(kept, 2); // 20,000 characters of base64 each
    EXPECT_EQ(omitted, 3);
    EXPECT_NE((*recorded)["results"][4]["parts"][0]["omitted"].get<std::string>().find("execution"),
              std::string::npos);
}

TEST(CodeExecution, MalformedRecordsAreRefusedNamingTheField)
{
    auto refused = [](json x) {
        auto r = sb::recordedExecution(x);
        return r ? std::string() : r.error().message;
    };
    EXPECT_NE(refused(json::array()), "");
    EXPECT_NE(refused({{"code", 1}}).find("execution.code"), std::string::npos);
    EXPECT_NE(refused({{"code", ""}, {"colour", "red"}}).find("'colour'"), std::string::npos);
    EXPECT_NE(refused({{"results", {{{"parts", {{{"mime", "nonsense"}, {"text", "x"}}}}}}}})
                  .find("results[0].parts[0].mime"),
              std::string::npos);
    EXPECT_NE(refused({{"results", {{{"parts", {{{"mime", "image/png"}, {"text", "x"}}}}}}}})
                  .find("\"base64\""),
              std::string::npos);
    EXPECT_NE(refused({{"execution_count", -1}}).find("execution_count"), std::string::npos);
    // A picture that is no base64 is said to be left out; the rest of the record stays.
    auto r = sb::recordedExecution(
        {{"results", {{{"parts", {{{"mime", "image/png"}, {"base64", "not base64!"}}}}}}}});
    ASSERT_TRUE(r);
    EXPECT_EQ((*r)["results"][0]["parts"][0]["omitted"], "not base64");
}

TEST(CodeExecution, IsRecordedAndReadBackInOrder)
{
    sbtest::TempDir dir;
    const auto db = dir.path() / "rec.db";
    auto writer = sb::RecordingWriter::start(db, sbtest::recordInfo("exec-1"));
    ASSERT_TRUE(writer) << writer.error().describe();
    auto recorded = sb::recordedExecution(chartExecution());
    ASSERT_TRUE(recorded);
    (*writer)->terminalOutput("hello\n");
    (*writer)->event(sb::EventKind::CodeExecution, *recorded);
    ASSERT_FALSE((*writer)->finish(0));

    auto store = sb::RecordingStore::open(db);
    ASSERT_TRUE(store) << store.error().describe();
    std::vector<json> executions;
    ASSERT_FALSE(store->forEachStructuredEvent("exec-1", [&](const sb::RecordedEvent& e) {
        if (e.kind == sb::EventKind::CodeExecution) executions.push_back(json::parse(e.data));
        return true;
    }));
    ASSERT_EQ(executions.size(), 1u);
    EXPECT_EQ(executions[0], *recorded);
    EXPECT_EQ(sb::eventKindName(sb::EventKind::CodeExecution), "code_execution");
    EXPECT_EQ(sb::eventKindFromName("code_execution"), sb::EventKind::CodeExecution);
}
