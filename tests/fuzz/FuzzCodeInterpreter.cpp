// The code interpreter's parsers (core/e2b/ExecuteRequest.cpp): the bodies clients send to
// /execute and /contexts, and the lines the gateway inside the sandbox writes back, which are as
// much outside input as a client's. An input's first line says which ("execute", "context" or
// "gateway"); the rest is the body or the line. Checked beyond "no crash": an execute request
// parsed has at most one of a context and a language, a served language (Python, R, bash) and
// variable names without '='; a context's folder is absolute; a gateway line parsed into an output
// is again an execute line, unchanged by a second check (the check is a fixed point), and a
// failure's status is one of 400, 404, 500. "record": an execution_record's execution as the
// supervisor checks it for the recording (recording/CodeExecution.h): what it keeps stays within
// its limits; and the gateway lines of "gateway" gathered as serve gathers them make a record
// the supervisor accepts.
#include "FuzzCheck.h"
#include "base/Bytes.h"
#include "e2b/CodeInterpreter.h"
#include "e2b/ExecutionRecord.h"
#include "recording/CodeExecution.h"

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

// Small limits, so that short inputs reach them.
sb::ExecutionLimits smallLimits()
{
    sb::ExecutionLimits limits;
    limits.code = 64;
    limits.part = 2048;
    limits.total = 3000;
    limits.results = 3;
    limits.traceback = 64;
    return limits;
}

void record(std::string_view body)
{
    const json j = json::parse(body, nullptr, false);
    const sb::ExecutionLimits limits = smallLimits();
    auto recorded = sb::recordedExecution(j, limits);
    if (!recorded) {
        check(!recorded.error().message.empty(), "a refusal says why");
        return;
    }
    check((*recorded)["kind"] == "execution", "an execution");
    check((*recorded)["code"].get<std::string>().size() <= limits.code + 3, "the code is bounded");
    check((*recorded)["results"].size() <= limits.results, "the results are bounded");
    std::size_t kept = 0;
    for (const json& result : (*recorded)["results"])
        for (const json& part : result["parts"]) {
            check(part["mime"].is_string(), "a part has its type");
            for (const char* field : {"text", "base64", "json"})
                if (part.contains(field))
                    kept += part[field].is_string() ? part[field].get<std::string>().size()
                                                    : sb::dumpJson(part[field]).size();
        }
    check(kept <= limits.total + 3, "all parts are bounded");
}

void gateway(std::string_view line)
{
    auto message = parseGatewayLine(line);
    if (!message) return;
    using Kind = GatewayMessage::Kind;
    if (message->kind == Kind::Output) {
        ExecutionTranscript transcript("code", "", "python");
        transcript.add(message->body);
        auto recorded = sb::recordedExecution(transcript.record(), smallLimits());
        check(static_cast<bool>(recorded), "what serve gathers from checked lines is recorded");
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
    else if (kind == "record")
        record(rest);
    return 0;
}
