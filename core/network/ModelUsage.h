// The model gateway's reader (issue 38): which model API a request through the proxy speaks,
// and the tokens its response reports. Three formats: Anthropic Messages, OpenAI Chat
// Completions and OpenAI Responses, each as one JSON body or as a server-sent event stream.
//
// Token counts are normalised so that the four add up to what the request cost and each is
// priced at one rate (ModelPrices.h): inputTokens are the input tokens read at the full rate,
// neither read from nor written to a prompt cache. Anthropic reports them so; OpenAI's
// prompt_tokens / input_tokens include the cached ones, which are taken out here.
//
// Everything read here is outside input (the sandbox's request, the upstream's response): the
// reader keeps a bounded amount whatever arrives (JsonPicker.h, SseReader.h), never throws, and
// a body it cannot follow only means no usage. tests/fuzz/FuzzModelUsage.cpp fuzzes it.
#pragma once

#include "network/JsonPicker.h"
#include "network/SseReader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sb {

struct ModelUsage {
    std::string api;   // "anthropic-messages", "openai-chat", "openai-responses"
    std::string model; // from the response (or the request when the response lacks it)
    std::uint64_t inputTokens = 0, outputTokens = 0, cacheReadTokens = 0, cacheWriteTokens = 0;
    bool streamed = false; // the response was an SSE stream
    bool found = false;    // the response carried usage
};

// The usage's fields of a "model" activity event (docs/recording.md, model_request): "api",
// "model", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
// "streamed"; the supervisor adds the kind, host, port, status, duration and who asked.
nlohmann::json toJson(const ModelUsage& usage);

inline constexpr char kApiAnthropicMessages[] = "anthropic-messages";
inline constexpr char kApiOpenAiChat[] = "openai-chat";
inline constexpr char kApiOpenAiResponses[] = "openai-responses";

// The model API a request speaks, from its method and path (query ignored), e.g. POST
// /v1/messages → "anthropic-messages", POST /v1/chat/completions → "openai-chat",
// POST /v1/responses → "openai-responses"; nullopt: not a model request. A prefix before them
// is allowed (gateways serve the same API under /api/…/v1/messages); a path below them is
// another endpoint (/v1/messages/count_tokens, /v1/responses/ID).
std::optional<std::string> modelApiOf(std::string_view method, std::string_view path);

// Reads usage out of one request/response exchange, incrementally and with bounded memory
// (an SSE stream event by event; a JSON body followed key by key, only the wanted values kept,
// each up to JsonPicker's cap).
class ModelUsageReader {
  public:
    explicit ModelUsageReader(std::string api);

    void requestBody(std::string_view bytes); // the request's JSON, to learn "model"/"stream"
    void responseHead(int status, std::string_view contentType);
    void responseBody(std::string_view bytes); // decoded (dechunked, identity) bytes
    ModelUsage finish();                       // after the response ended (or was cut)

  private:
    enum class Body { Unknown, Json, Sse, Other };
    class EventSink;

    void decide(std::string_view contentType);
    void event(std::string_view eventName); // one SSE event, its data in m_body
    void applyUsage(const nlohmann::json& usage);

    std::string m_api;
    JsonPicker m_request;
    JsonPicker m_body; // the JSON body, or the current SSE event's data
    SseReader m_sse;
    Body m_kind = Body::Unknown;
    ModelUsage m_usage;
};

} // namespace sb
