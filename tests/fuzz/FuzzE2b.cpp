// The E2B API's handling of requests (core/e2b): the control plane and the in-sandbox API, on a
// fake launcher and fake supervisors (tests/support/E2bTestSupport.h), so that every route is
// reached without a sandbox. HTTP itself is civetweb's to parse; this is what Sandbench does with
// what civetweb hands over: paths, queries, headers, JSON and Connect envelopes.
//
// An input is one request: "METHOD TARGET", header lines "Name: value", an empty line, the body.
// A sandbox exists before it; "$ID" and "$TOKEN" in the target or a header value stand for its id
// and access token, so the routes of a sandbox are reached. Checked beyond "no crash": every
// request gets a response with a status from 100 to 599; a JSON response is JSON; a Connect stream
// ends with its end-of-stream envelope. The whole input is also read as the head of an HTTP
// answer (parseResponseHead: what getHost's relay reads from a server in the sandbox).
#include "E2bTestSupport.h"
#include "FuzzCheck.h"
#include "e2b/Connect.h"
#include "e2b/E2bInternal.h"
#include "e2b/FileSignature.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <string>
#include <string_view>

namespace {

using sbfuzz::check;

std::string_view line(std::string_view& rest)
{
    const std::size_t end = rest.find('\n');
    std::string_view first = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
    return first;
}

// "$SIGREAD" and "$SIGWRITE" stand for signatures of hello.txt with the sandbox's token (to
// read, for ever; to write, until 2100), so the signed URLs' routes are reached too.
std::string substituted(std::string value, const std::string& id, const std::string& token)
{
    const std::string read = sb::e2b::fileSignature("hello.txt", "read", "", token, std::nullopt);
    const std::string write = sb::e2b::fileSignature("hello.txt", "write", "", token, 4102444800);
    for (auto [from, to] : {std::pair<std::string, const std::string&>{"$ID", id},
                            {"$TOKEN", token},
                            {"$SIGREAD", read},
                            {"$SIGWRITE", write}})
        for (std::size_t at; (at = value.find(from)) != std::string::npos;)
            value.replace(at, from.size(), to);
    return value;
}

// Its messages are whole envelopes, the last one the end of the stream.
bool endsItsStream(std::string_view body)
{
    bool ended = false;
    while (body.size() >= sb::e2b::kEnvelopeHeader) {
        const auto flags = static_cast<std::uint8_t>(body[0]);
        std::uint32_t size = 0;
        for (std::size_t i = 1; i < sb::e2b::kEnvelopeHeader; ++i)
            size = (size << 8) | static_cast<std::uint8_t>(body[i]);
        if (body.size() < sb::e2b::kEnvelopeHeader + size) return false;
        ended = flags == sb::e2b::kEndStream;
        body.remove_prefix(sb::e2b::kEnvelopeHeader + size);
    }
    return ended && body.empty();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    // The same bytes as the head of an answer of a server in a sandbox (getHost's relay).
    if (auto head = sb::e2b::parseResponseHead(rest))
        check(head->status >= 100 && head->status <= 599, "an answer's status is a status");
    const std::string_view request = line(rest);
    const std::size_t space = request.find(' ');
    if (space == std::string_view::npos) return 0;
    sb::http::Headers headers;
    for (std::string_view h = line(rest); !h.empty(); h = line(rest)) {
        const std::size_t colon = h.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view value = h.substr(colon + 1);
        while (!value.empty() && value.front() == ' ')
            value.remove_prefix(1);
        headers.emplace_back(h.substr(0, colon), value);
    }

    std::list<sbtest::FakeSupervisor> supervisors;
    sbtest::FakeLauncher launcher;
    sb::e2b::ApiOptions options;
    options.apiKey = "sb_key";
    options.connect = [&](const std::string&) -> sb::Result<std::unique_ptr<sb::e2b::SessionLink>> {
        return supervisors.emplace_back().link();
    };
    options.usage = [](const std::string&) -> sb::Result<sb::e2b::SandboxUsage> {
        return sb::e2b::SandboxUsage{1000, 1, 2, 3, 4, 5};
    };
    {
        sb::e2b::Api api(launcher, options);
        sbtest::MemoryExchange create("POST", "/v2/sandboxes", "{}", {{"X-API-Key", "sb_key"}});
        api.handle(create);
        check(create.status == 201, "the sandbox the input may use is created");
        const auto sandbox = nlohmann::json::parse(create.response);
        const std::string id = sandbox["sandboxID"], token = sandbox["envdAccessToken"];
        for (auto& [name, value] : headers)
            value = substituted(value, id, token);

        sbtest::MemoryExchange ex(std::string(request.substr(0, space)),
                                  substituted(std::string(request.substr(space + 1)), id, token),
                                  std::string(rest), headers);
        api.handle(ex);
        check(ex.status >= 100 && ex.status <= 599, "every request gets a response");
        if (ex.contentType == "application/json" && !ex.response.empty())
            check(!nlohmann::json::parse(ex.response, nullptr, false).is_discarded(),
                  "a JSON response is JSON");
        if (ex.contentType == "application/connect+json")
            check(endsItsStream(ex.response), "a stream is whole envelopes and ends its stream");
        api.stopAll();
    }
    return 0;
}
