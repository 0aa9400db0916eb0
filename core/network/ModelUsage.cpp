#include "network/ModelUsage.h"

#include <algorithm>

namespace sb {
namespace {

using nlohmann::json;

// What an event's data or a body may hold that the three formats read: an SSE event's "type",
// the model and the usage at the top (a JSON body, Chat Completions' chunks, Anthropic's
// message_delta), in Anthropic's message_start ("message") and in Responses' events
// ("response").
enum Pick : std::size_t {
    Type,
    Model,
    Usage,
    MessageModel,
    MessageUsage,
    ResponseModel,
    ResponseUsage
};
std::vector<std::vector<std::string>> bodyPaths()
{
    return {{"type"},
            {"model"},
            {"usage"},
            {"message", "model"},
            {"message", "usage"},
            {"response", "model"},
            {"response", "usage"}};
}
enum RequestPick : std::size_t { RequestModel, RequestStream };

constexpr std::size_t kMaxModelName = 200; // a model's name as recorded; longer ones are cut

std::optional<std::uint64_t> count(const json& object, const char* key)
{
    if (!object.is_object()) return std::nullopt;
    auto it = object.find(key);
    if (it == object.end()) return std::nullopt;
    if (it->is_number_unsigned()) return it->get<std::uint64_t>();
    if (it->is_number_integer() && it->get<std::int64_t>() >= 0)
        return static_cast<std::uint64_t>(it->get<std::int64_t>());
    return std::nullopt;
}

std::uint64_t cachedOf(const json& usage, const char* details)
{
    auto it = usage.find(details);
    return it == usage.end() ? 0 : count(*it, "cached_tokens").value_or(0);
}

std::string modelName(std::string name)
{
    if (name.size() <= kMaxModelName) return name;
    std::size_t cut = kMaxModelName;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) // not mid-character
        --cut;
    name.resize(cut);
    return name;
}

std::string lowerTrimmed(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](char c) {
        return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    });
    return out;
}

} // namespace

json toJson(const ModelUsage& u)
{
    return {{"api", u.api},
            {"model", u.model},
            {"input_tokens", u.inputTokens},
            {"output_tokens", u.outputTokens},
            {"cache_read_tokens", u.cacheReadTokens},
            {"cache_write_tokens", u.cacheWriteTokens},
            {"streamed", u.streamed}};
}

std::optional<std::string> modelApiOf(std::string_view method, std::string_view path)
{
    if (method != "POST") return std::nullopt;
    path = path.substr(0, path.find_first_of("?#"));
    while (path.size() > 1 && path.back() == '/')
        path.remove_suffix(1);
    // Each suffix starts with '/': it is whole path segments (a prefix before is allowed).
    if (path.ends_with("/v1/messages")) return kApiAnthropicMessages;
    if (path.ends_with("/chat/completions")) return kApiOpenAiChat;
    if (path.ends_with("/responses")) return kApiOpenAiResponses;
    return std::nullopt;
}

class ModelUsageReader::EventSink final : public SseReader::Sink {
  public:
    explicit EventSink(ModelUsageReader& reader) : m_reader(reader) {}
    void data(std::string_view piece) override { m_reader.m_body.feed(piece); }
    void dispatch(std::string_view eventName) override { m_reader.event(eventName); }

  private:
    ModelUsageReader& m_reader;
};

ModelUsageReader::ModelUsageReader(std::string api)
    : m_api(std::move(api)), m_request({{"model"}, {"stream"}}), m_body(bodyPaths())
{
    m_usage.api = m_api;
}

void ModelUsageReader::requestBody(std::string_view bytes)
{
    m_request.feed(bytes);
}

void ModelUsageReader::responseHead(int status, std::string_view contentType)
{
    if (status >= 100 && status < 200) return; // an interim response: the real one follows
    decide(contentType);
}

void ModelUsageReader::decide(std::string_view contentType)
{
    const std::string media = lowerTrimmed(contentType.substr(0, contentType.find(';')));
    if (media == "text/event-stream") {
        m_kind = Body::Sse;
    } else if (media.empty()) { // unlabelled: what the request asked for
        auto stream = m_request.value(RequestStream);
        m_kind = stream && stream->is_boolean() && stream->get<bool>() ? Body::Sse : Body::Json;
    } else if (media.ends_with("/json") || media.ends_with("+json")) {
        m_kind = Body::Json;
    } else {
        m_kind = Body::Other; // an error page from a gateway, say: no usage in it
    }
}

void ModelUsageReader::responseBody(std::string_view bytes)
{
    if (m_kind == Body::Unknown) decide({});
    if (m_kind == Body::Json) {
        m_body.feed(bytes);
    } else if (m_kind == Body::Sse) {
        EventSink sink(*this);
        m_sse.feed(bytes, sink);
    }
}

void ModelUsageReader::event(std::string_view eventName)
{
    const std::string type = m_body.string(Type).value_or(std::string(eventName));
    if (m_api == kApiAnthropicMessages) {
        if (type == "message_start") {
            if (auto model = m_body.string(MessageModel)) m_usage.model = modelName(*model);
            if (auto usage = m_body.value(MessageUsage)) applyUsage(*usage);
        } else if (type == "message_delta") { // cumulative counts: they replace the start's
            if (auto usage = m_body.value(Usage)) applyUsage(*usage);
        }
    } else if (m_api == kApiOpenAiChat) { // chunks; the last carries usage when asked for it
        if (auto model = m_body.string(Model)) m_usage.model = modelName(*model);
        if (auto usage = m_body.value(Usage)) applyUsage(*usage);
    } else if (m_api == kApiOpenAiResponses) {
        if (auto model = m_body.string(ResponseModel)) m_usage.model = modelName(*model);
        if (type == "response.completed" || type == "response.incomplete" ||
            type == "response.failed")
            if (auto usage = m_body.value(ResponseUsage)) applyUsage(*usage);
    }
    m_body.reset();
}

void ModelUsageReader::applyUsage(const json& usage)
{
    if (!usage.is_object()) return; // Chat Completions' chunks carry "usage": null
    ModelUsage& u = m_usage;
    if (m_api == kApiAnthropicMessages) {
        u.inputTokens = count(usage, "input_tokens").value_or(u.inputTokens);
        u.outputTokens = count(usage, "output_tokens").value_or(u.outputTokens);
        u.cacheReadTokens = count(usage, "cache_read_input_tokens").value_or(u.cacheReadTokens);
        u.cacheWriteTokens =
            count(usage, "cache_creation_input_tokens").value_or(u.cacheWriteTokens);
    } else {
        const bool chat = m_api == kApiOpenAiChat;
        const std::uint64_t input =
            count(usage, chat ? "prompt_tokens" : "input_tokens").value_or(0);
        const std::uint64_t cached = std::min(
            input, cachedOf(usage, chat ? "prompt_tokens_details" : "input_tokens_details"));
        u.inputTokens = input - cached;
        u.cacheReadTokens = cached;
        u.outputTokens = count(usage, chat ? "completion_tokens" : "output_tokens").value_or(0);
    }
    u.found = true;
}

ModelUsage ModelUsageReader::finish()
{
    if (m_kind == Body::Json) {
        if (auto model = m_body.string(Model)) m_usage.model = modelName(*model);
        if (auto usage = m_body.value(Usage)) applyUsage(*usage);
    }
    m_usage.streamed = m_kind == Body::Sse;
    if (m_usage.model.empty())
        if (auto model = m_request.string(RequestModel)) m_usage.model = modelName(*model);
    return m_usage;
}

} // namespace sb
