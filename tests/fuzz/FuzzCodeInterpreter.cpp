// The code interpreter's parsers (core/e2b/ExecuteRequest.cpp): the bodies clients send to
// /execute and /contexts, and the lines the gateway inside the sandbox writes back, which are as
// much outside input as a client's. An input's first line says which ("execute", "context" or
// "gateway"); the rest is the body or the line. Checked beyond "no crash": an execute request
// parsed has at most one of a context and a language, a served language (Python, R, bash) and
// variable names without '='; a context's folder is absolute; a gateway line parsed into an output
// is again an execute line, unchanged by a second check (the check is a fixed point), and a
// failure's status is one of 400, 404, 500.
#include "FuzzCheck.h"
#include "e2b/CodeInterpreter.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

using namespace sb::e2b;
using sbfuzz::check;
using json = nlohmann::json;

void execute(std::string_view body)
{
    const json j = json::parse(body, nullptr, false);
    auto request = parseExecute(j);
    if (!request) {
        check(!request.error().message.empty(), "a refusal says why");
        return;
    }
    check(request->contextId.empty() || request->language.empty(), "context or language");
    check(request->language.empty() || request->language == "python" ||
              request->language == "bash" || request->language == "r",
          "only Python, R and bash are served");
    for (const auto& [key, value] : request->envVars)
        check(!key.empty() && key.find('=') == std::string::npos, "a variable's name");
}

void context(std::string_view body)
{
    const json j = json::parse(body, nullptr, false);
    auto request = parseCreateContext(j, "/home/user");
    if (!request) return;
    check(request->language == "python" || request->language == "bash" || request->language == "r",
          "only Python, R and bash are served");
    check(!request->cwd.empty() && request->cwd.front() == '/', "an absolute folder");
}

void gateway(std::string_view line)
{
    auto message = parseGatewayLine(line);
    if (!message) return;
    using Kind = GatewayMessage::Kind;
    if (message->kind == Kind::Output) {
        auto again = executeLine(message->body);
        check(again.has_value(), "an output is an execute line");
        check(*again == message->body, "checking an execute line again changes nothing");
        check(message->body["type"].is_string(), "a line has its type");
    }
    if (message->kind == Kind::Fail) {
        check(message->status == 400 || message->status == 404 || message->status == 500,
              "a failure's status");
        check(message->body.is_string(), "a failure's message");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t nl = input.find('\n');
    if (nl == std::string_view::npos) return 0;
    const std::string_view kind = input.substr(0, nl);
    const std::string_view rest = input.substr(nl + 1);
    if (kind == "execute")
        execute(rest);
    else if (kind == "context")
        context(rest);
    else if (kind == "gateway")
        gateway(rest);
    return 0;
}
