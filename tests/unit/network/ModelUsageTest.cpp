// The model gateway's reader (network/ModelUsage.h) and what it stands on: the bounded JSON
// picker (JsonPicker.h) and the server-sent events reader (SseReader.h). Every exchange is also
// fed one byte at a time, as a slow upstream would send it.
#include "network/ModelUsage.h"

#include <gtest/gtest.h>

using namespace sb;

namespace {

struct Exchange {
    std::string api;
    std::string request;
    int status = 200;
    std::string contentType;
    std::string body;
};

ModelUsage read(const Exchange& e, std::size_t piece = 0)
{
    ModelUsageReader reader(e.api);
    auto feed = [piece](std::string_view all, auto&& to) {
        const std::size_t step = piece == 0 ? std::max<std::size_t>(all.size(), 1) : piece;
        for (std::size_t i = 0; i < all.size(); i += step)
            to(all.substr(i, step));
    };
    feed(e.request, [&](std::string_view b) { reader.requestBody(b); });
    reader.responseHead(e.status, e.contentType);
    feed(e.body, [&](std::string_view b) { reader.responseBody(b); });
    return reader.finish();
}

// The same usage however the bytes are cut.
ModelUsage readEveryWay(const Exchange& e)
{
    const ModelUsage whole = read(e);
    for (std::size_t piece : {1, 2, 3, 7, 64}) {
        SCOPED_TRACE("pieces of " + std::to_string(piece));
        const ModelUsage cut = read(e, piece);
        EXPECT_EQ(cut.model, whole.model);
        EXPECT_EQ(cut.inputTokens, whole.inputTokens);
        EXPECT_EQ(cut.outputTokens, whole.outputTokens);
        EXPECT_EQ(cut.cacheReadTokens, whole.cacheReadTokens);
        EXPECT_EQ(cut.cacheWriteTokens, whole.cacheWriteTokens);
        EXPECT_EQ(cut.found, whole.found);
        EXPECT_EQ(cut.streamed, whole.streamed);
    }
    return whole;
}

void expectTokens(const ModelUsage& u, std::uint64_t in, std::uint64_t out, std::uint64_t read,
                  std::uint64_t write)
{
    EXPECT_TRUE(u.found);
    EXPECT_EQ(u.inputTokens, in);
    EXPECT_EQ(u.outputTokens, out);
    EXPECT_EQ(u.cacheReadTokens, read);
    EXPECT_EQ(u.cacheWriteTokens, write);
}

const std::string kAnthropicRequest =
    R"({"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,)"
    R"("messages":[{"role":"user","content":"Say \"model\": {\"usage\": 1}"}]})";

} // namespace

TEST(ModelApi, KnowsTheThreeFormatsByMethodAndPath)
{
    EXPECT_EQ(modelApiOf("POST", "/v1/messages"), "anthropic-messages");
    EXPECT_EQ(modelApiOf("POST", "/v1/messages?beta=true"), "anthropic-messages");
    EXPECT_EQ(modelApiOf("POST", "/api/anthropic/v1/messages/"), "anthropic-messages");
    EXPECT_EQ(modelApiOf("POST", "/v1/chat/completions"), "openai-chat");
    EXPECT_EQ(modelApiOf("POST", "/openai/deployments/d/chat/completions?api-version=1"),
              "openai-chat");
    EXPECT_EQ(modelApiOf("POST", "/v1/responses"), "openai-responses");
    EXPECT_EQ(modelApiOf("POST", "https://api.example.com/v1/responses"), "openai-responses");

    EXPECT_EQ(modelApiOf("GET", "/v1/messages"), std::nullopt);
    EXPECT_EQ(modelApiOf("post", "/v1/messages"), std::nullopt);
    EXPECT_EQ(modelApiOf("POST", "/v1/messages/count_tokens"), std::nullopt);
    EXPECT_EQ(modelApiOf("POST", "/v1/messages/batches"), std::nullopt);
    EXPECT_EQ(modelApiOf("POST", "/v1/mymessages"), std::nullopt);
    EXPECT_EQ(modelApiOf("POST", "/v1/responses/resp_1/cancel"), std::nullopt);
    EXPECT_EQ(modelApiOf("POST", "/v1/embeddings"), std::nullopt);
    EXPECT_EQ(modelApiOf("POST", "/"), std::nullopt);
    EXPECT_EQ(modelApiOf("POST", ""), std::nullopt);
}

TEST(ModelUsage, AnthropicMessageBody)
{
    auto u = readEveryWay(
        {"anthropic-messages", R"({"model":"claude-x","messages":[]})", 200, "application/json",
         R"({"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",)"
         R"("content":[{"type":"text","text":"{\"usage\":{\"input_tokens\":999}}"}],)"
         R"("stop_reason":"end_turn","usage":{"input_tokens":12,"cache_creation_input_tokens":300,)"
         R"("cache_read_input_tokens":4000,"output_tokens":56,"service_tier":"standard"}})"});
    EXPECT_EQ(u.api, "anthropic-messages");
    EXPECT_EQ(u.model, "claude-sonnet-4-5-20250929");
    EXPECT_FALSE(u.streamed);
    expectTokens(u, 12, 56, 4000, 300);
}

TEST(ModelUsage, AnthropicStreamTakesTheStartAndTheLastDelta)
{
    const std::string body =
        "event: message_start\r\n"
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
        "\"model\":\"claude-haiku-4-5\",\"content\":[],\"usage\":{\"input_tokens\":25,"
        "\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":2048,"
        "\"output_tokens\":1}}}\r\n\r\n"
        "event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n"
        ": a comment the reader skips\r\n"
        "event: content_block_delta\r\n"
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\","
        "\"text\":\"usage: {\\\"output_tokens\\\": 7}\"}}\r\n\r\n"
        "event: message_delta\r\n"
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
        "\"usage\":{\"output_tokens\":15}}\r\n\r\n"
        "event: message_delta\r\n"
        "data: {\"type\":\"message_delta\",\"delta\":{},\"usage\":{\"output_tokens\":42}}\r\n\r\n"
        "event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n";
    auto u = readEveryWay(
        {"anthropic-messages", kAnthropicRequest, 200, "text/event-stream; charset=utf-8", body});
    EXPECT_EQ(u.model, "claude-haiku-4-5");
    EXPECT_TRUE(u.streamed);
    expectTokens(u, 25, 42, 2048, 0);

    // The same with LF and with CR line ends.
    std::string lf = body, cr = body;
    for (std::size_t at; (at = lf.find("\r\n")) != std::string::npos;)
        lf.erase(at, 1);
    for (std::size_t at; (at = cr.find("\r\n")) != std::string::npos;)
        cr.erase(at + 1, 1);
    for (const std::string& text : {lf, cr}) {
        auto again = readEveryWay({"anthropic-messages", {}, 200, "text/event-stream", text});
        EXPECT_EQ(again.model, "claude-haiku-4-5");
        expectTokens(again, 25, 42, 2048, 0);
    }
}

TEST(ModelUsage, AnthropicDeltaWithCumulativeInputReplacesTheStart)
{
    auto u =
        readEveryWay({"anthropic-messages",
                      {},
                      200,
                      "text/event-stream",
                      "data: {\"type\":\"message_start\",\"message\":{\"model\":\"m\",\"usage\":"
                      "{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
                      "data: {\"type\":\"message_delta\",\"usage\":{\"input_tokens\":11,"
                      "\"cache_read_input_tokens\":5,\"output_tokens\":9}}\n\n"});
    expectTokens(u, 11, 9, 5, 0);
}

TEST(ModelUsage, ChatCompletionBodyTakesCachedTokensOutOfTheInput)
{
    auto u = readEveryWay(
        {"openai-chat", R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]})", 200,
         "application/json",
         R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-2024-08-06",)"
         R"("choices":[{"index":0,"message":{"role":"assistant","content":"hello"},)"
         R"("finish_reason":"stop"}],"usage":{"prompt_tokens":2006,"completion_tokens":300,)"
         R"("total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0},)"
         R"("completion_tokens_details":{"reasoning_tokens":0}}})"});
    EXPECT_EQ(u.model, "gpt-4o-2024-08-06");
    expectTokens(u, 86, 300, 1920, 0);
}

TEST(ModelUsage, ChatCompletionStreamReadsTheUsageChunk)
{
    const std::string chunk =
        R"({"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[)";
    auto u = readEveryWay(
        {"openai-chat",
         R"({"model":"gpt-4o-mini","stream":true,"stream_options":{"include_usage":true}})", 200,
         "text/event-stream",
         "data: " + chunk + R"({"index":0,"delta":{"content":"Hi"}}],"usage":null})" + "\n\n" +
             "data: " + chunk + R"({"index":0,"delta":{},"finish_reason":"stop"}],"usage":null})" +
             "\n\n" + "data: " + chunk +
             R"(],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}})" + "\n\n" +
             "data: [DONE]\n\n"});
    EXPECT_EQ(u.model, "gpt-4o-mini");
    EXPECT_TRUE(u.streamed);
    expectTokens(u, 9, 2, 0, 0);

    // Without include_usage no chunk carries it: the model is known, the tokens are not.
    auto none = readEveryWay(
        {"openai-chat", R"({"model":"gpt-4o-mini","stream":true})", 200, "text/event-stream",
         "data: " + chunk + R"({"index":0,"delta":{"content":"Hi"}}]})" + "\n\ndata: [DONE]\n\n"});
    EXPECT_FALSE(none.found);
    EXPECT_EQ(none.model, "gpt-4o-mini");
    EXPECT_EQ(none.inputTokens + none.outputTokens, 0u);
}

TEST(ModelUsage, ResponsesBodyAndStream)
{
    auto body = readEveryWay(
        {"openai-responses", R"({"model":"gpt-5","input":"hi"})", 200, "application/json",
         R"({"id":"resp_1","object":"response","status":"completed","model":"gpt-5-2025-08-07",)"
         R"("output":[{"type":"message","content":[{"type":"output_text","text":"hello"}]}],)"
         R"("usage":{"input_tokens":328,"input_tokens_details":{"cached_tokens":128},)"
         R"("output_tokens":52,"output_tokens_details":{"reasoning_tokens":40},)"
         R"("total_tokens":380}})"});
    EXPECT_EQ(body.model, "gpt-5-2025-08-07");
    expectTokens(body, 200, 52, 128, 0);

    auto stream = readEveryWay(
        {"openai-responses", R"({"model":"gpt-5","stream":true})", 200, "text/event-stream",
         "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":"
         "\"resp_1\",\"model\":\"gpt-5-2025-08-07\",\"usage\":null}}\n\n"
         "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
         "\"delta\":\"hel\"}\n\n"
         "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{"
         "\"id\":\"resp_1\",\"model\":\"gpt-5-2025-08-07\",\"output\":[],\"usage\":{"
         "\"input_tokens\":37,\"input_tokens_details\":{\"cached_tokens\":0},"
         "\"output_tokens\":11,\"total_tokens\":48}}}\n\n"});
    EXPECT_TRUE(stream.streamed);
    EXPECT_EQ(stream.model, "gpt-5-2025-08-07");
    expectTokens(stream, 37, 11, 0, 0);
}

TEST(ModelUsage, AnErrorHasNoUsageAndTheRequestNamesTheModel)
{
    auto u =
        readEveryWay({"anthropic-messages", kAnthropicRequest, 429, "application/json",
                      R"({"type":"error","error":{"type":"rate_limit_error","message":"x"}})"});
    EXPECT_FALSE(u.found);
    EXPECT_EQ(u.model, "claude-sonnet-4-5");
    EXPECT_FALSE(u.streamed);

    // An error event in a stream, and an HTML page from a gateway.
    auto event = readEveryWay({"anthropic-messages", kAnthropicRequest, 200, "text/event-stream",
                               "event: error\ndata: {\"type\":\"error\",\"error\":{}}\n\n"});
    EXPECT_FALSE(event.found);
    auto page = readEveryWay({"openai-chat", R"({"model":"gpt-4o"})", 502, "text/html",
                              R"(<html>"usage":{"prompt_tokens":5}</html>)"});
    EXPECT_FALSE(page.found);
    EXPECT_EQ(page.model, "gpt-4o");
}

TEST(ModelUsage, AnUnlabelledBodyIsReadAsTheRequestAskedAndInterimHeadsAreSkipped)
{
    ModelUsageReader reader("openai-chat");
    reader.requestBody(R"({"model":"m","stream":true})");
    reader.responseHead(100, "");
    reader.responseHead(200, "");
    reader.responseBody("data: {\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n\n");
    auto u = reader.finish();
    EXPECT_TRUE(u.streamed);
    expectTokens(u, 3, 4, 0, 0);
}

TEST(ModelUsage, TheModelIsReadAfterAPromptOfMegabytes)
{
    std::string request = R"({"messages":[{"role":"user","content":")";
    request += std::string(8 * 1024 * 1024, 'x');
    request += R"("}],"model":"claude-opus-4-1","stream":false})";
    auto u = read({"anthropic-messages", request, 200, "application/json",
                   R"({"usage":{"input_tokens":1,"output_tokens":2}})"},
                  4096);
    EXPECT_EQ(u.model, "claude-opus-4-1");
    expectTokens(u, 1, 2, 0, 0);
}

TEST(ModelUsage, NonsenseCountsAndNamesAreNotTaken)
{
    auto u = read({"anthropic-messages",
                   {},
                   200,
                   "application/json",
                   R"({"model":42,"usage":{"input_tokens":-5,"output_tokens":1.5,)"
                   R"("cache_read_input_tokens":"7","cache_creation_input_tokens":3}})"});
    EXPECT_EQ(u.model, "");
    expectTokens(u, 0, 0, 0, 3);

    // More cached than input (a broken upstream) does not wrap around.
    auto chat =
        read({"openai-chat",
              {},
              200,
              "application/json",
              R"({"usage":{"prompt_tokens":5,"prompt_tokens_details":{"cached_tokens":9}}})"});
    expectTokens(chat, 0, 0, 5, 0);

    // A model's name is cut to a bounded length, never inside a character.
    auto longName = read({"openai-chat",
                          {},
                          200,
                          "application/json",
                          R"({"model":")" + std::string(199, 'a') + "\xc3\xa9" + R"("})"});
    EXPECT_EQ(longName.model, std::string(199, 'a'));
}

TEST(ModelUsage, GarbageNeverYieldsUsage)
{
    for (const char* body : {"", "{", "}}}}", "[[[[[[", "\"usage\":{\"input_tokens\":1}",
                             "{\"usage\" {}}", "\xff\xfe\x00\x01", "data: {\"usage\":"}) {
        for (const char* type : {"application/json", "text/event-stream"}) {
            auto u = read({"anthropic-messages", body, 200, type, body});
            EXPECT_FALSE(u.found) << body;
        }
    }
}

TEST(JsonPicker, PicksValuesAtTheirPathsOnly)
{
    JsonPicker picker({{"usage"}, {"response", "usage"}, {"model"}});
    picker.feed(R"({"a":[{"usage":1}],"b":{"usage":2},"mo\"del":"x",)"
                R"("response":{"usage":{"n":[1,{"k":"}]"}]},"model":"r"},)"
                R"("usage": 5 , "model" :"first","model":"last"})");
    EXPECT_EQ(picker.value(0), nlohmann::json(5));
    EXPECT_EQ(picker.value(1), nlohmann::json::parse(R"({"n":[1,{"k":"}]"}]})"));
    EXPECT_EQ(picker.string(2), "last");
    EXPECT_FALSE(picker.stopped());
    picker.reset();
    EXPECT_EQ(picker.value(0), std::nullopt);
}

TEST(JsonPicker, AValueOverTheCapIsNotPickedAndTheWalkGoesOn)
{
    JsonPicker picker({{"big"}, {"small"}}, 16);
    picker.feed(R"({"big":")" + std::string(100, 'b') + R"(","small":[1,2]})");
    EXPECT_EQ(picker.value(0), std::nullopt);
    EXPECT_EQ(picker.value(1), nlohmann::json::parse("[1,2]"));
}

TEST(JsonPicker, DeepNestingStopsIt)
{
    JsonPicker picker({{"a"}});
    picker.feed(R"({"a":)" + std::string(100000, '[') + "1");
    EXPECT_TRUE(picker.stopped());
    EXPECT_EQ(picker.value(0), std::nullopt);
}

namespace {

using Event = std::pair<std::string, std::string>; // (name, data)

struct Events final : SseReader::Sink {
    std::vector<Event> got;
    std::string current;
    void data(std::string_view piece) override { current += piece; }
    void dispatch(std::string_view name) override
    {
        got.emplace_back(std::string(name), current);
        current.clear();
    }
};

std::vector<Event> events(std::string_view stream, bool bytewise)
{
    SseReader reader;
    Events sink;
    if (bytewise) {
        for (char c : stream)
            reader.feed(std::string_view(&c, 1), sink);
    } else {
        reader.feed(stream, sink);
    }
    return sink.got;
}

} // namespace

TEST(SseReader, FollowsTheEventStreamRules)
{
    const std::string stream = "\xEF\xBB\xBF"
                               "data: one\r\n"
                               "data:two\r\n"
                               "data\r\n"
                               ": comment\r\n"
                               "id: 7\r\n"
                               "event: named\r\n"
                               "\r\n"
                               "event: no data\n\n"
                               "retry: 10\n"
                               "data:  spaced\rdata: x\r\r"
                               "Data: not a field\n\n"
                               "\xEF\xBB\xBF"
                               "data: z\n\n" // a byte order mark only counts first
                               "data: never dispatched";
    for (bool bytewise : {false, true}) {
        auto got = events(stream, bytewise);
        ASSERT_EQ(got.size(), 2u) << bytewise;
        EXPECT_EQ(got[0], Event("named", "one\ntwo\n"));
        EXPECT_EQ(got[1], Event("", " spaced\nx"));
    }
}

TEST(SseReader, APartialByteOrderMarkIsData)
{
    auto got = events("\xEF\xBB"
                      "data: a\n\n",
                      true);
    EXPECT_TRUE(got.empty()); // the line's name is "\xEF\xBBdata", no field this reader reads
    auto plain = events("data: a\n\n", true);
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_EQ(plain[0].second, "a");
}

TEST(ModelUsage, ItsEventFieldsAreTheRecordingsNames)
{
    ModelUsage u{"openai-chat", "gpt-4o", 86, 300, 1920, 0, true, true};
    EXPECT_EQ(toJson(u), nlohmann::json::parse(R"({"api": "openai-chat", "model": "gpt-4o",
        "input_tokens": 86, "output_tokens": 300, "cache_read_tokens": 1920,
        "cache_write_tokens": 0, "streamed": true})"));
}
