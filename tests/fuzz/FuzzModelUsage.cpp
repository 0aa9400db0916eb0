// The model gateway's reader (core/network/ModelUsage.cpp, JsonPicker.cpp, SseReader.cpp): a
// request's JSON and an upstream's response, both outside input. The first byte picks the API
// and the response's content type, the second the size of the pieces the bytes arrive in; the
// rest is the request, two NUL bytes, and the response's body. Checked beyond "no crash": the
// usage is the same whether the bytes come whole or cut into pieces (the readers keep their
// state across pieces and nothing else), a response without usage reports no tokens, a model's
// name stays within its bound, and a stream is reported as one only when it was labelled one.
#include "FuzzCheck.h"
#include "network/ModelUsage.h"

#include <array>
#include <cstdint>
#include <string_view>

namespace {

using namespace sb;
using sbfuzz::check;

constexpr std::array<const char*, 3> kApis = {kApiAnthropicMessages, kApiOpenAiChat,
                                              kApiOpenAiResponses};
constexpr std::array<const char*, 4> kTypes = {"text/event-stream", "application/json", "",
                                               "text/html"};

ModelUsage read(const char* api, const char* type, std::string_view request, std::string_view body,
                std::size_t piece)
{
    ModelUsageReader reader(api);
    for (std::size_t i = 0; i < request.size(); i += piece)
        reader.requestBody(request.substr(i, piece));
    reader.responseHead(200, type);
    for (std::size_t i = 0; i < body.size(); i += piece)
        reader.responseBody(body.substr(i, piece));
    return reader.finish();
}

bool same(const ModelUsage& a, const ModelUsage& b)
{
    return a.api == b.api && a.model == b.model && a.inputTokens == b.inputTokens &&
           a.outputTokens == b.outputTokens && a.cacheReadTokens == b.cacheReadTokens &&
           a.cacheWriteTokens == b.cacheWriteTokens && a.streamed == b.streamed &&
           a.found == b.found;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 2) return 0;
    const char* api = kApis[data[0] % kApis.size()];
    const char* type = kTypes[(data[0] / kApis.size()) % kTypes.size()];
    const std::size_t piece = 1 + data[1] % 64;
    std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
    std::string_view request, body = rest;
    if (auto split = rest.find(std::string_view("\0\0", 2)); split != std::string_view::npos) {
        request = rest.substr(0, split);
        body = rest.substr(split + 2);
    }

    const ModelUsage whole = read(api, type, request, body, std::max<std::size_t>(rest.size(), 1));
    const ModelUsage cut = read(api, type, request, body, piece);
    check(same(whole, cut), "the usage does not depend on how the bytes are cut");
    check(whole.api == api, "the usage names the API it was read as");
    check(whole.model.size() <= 200, "a model's name stays within its bound");
    check(whole.found || (whole.inputTokens == 0 && whole.outputTokens == 0 &&
                          whole.cacheReadTokens == 0 && whole.cacheWriteTokens == 0),
          "no usage, no tokens");
    check(!whole.streamed || std::string_view(type) == "text/event-stream" ||
              std::string_view(type).empty(),
          "only a stream labelled one (or unlabelled after a streaming request) is one");
    return 0;
}
