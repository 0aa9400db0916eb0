// What recorded sessions ran, read from their structured events (docs/recording.md).
#include "learning/PolicySuggest.h"
#include "learning/RecordedJson.h"
#include "policy/ProcessChain.h"
#include "recording/RecordingStore.h"

#include <map>

namespace sb {
namespace {

using recorded::text;

std::int64_t number(const nlohmann::json& j, const char* key)
{
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
}

// One session's events: execs as decided, asked ones once their answer allowed them.
Status readSession(RecordingStore& store, const std::string& id, Observations& out)
{
    std::map<std::int64_t, ObservedCommand> asked;         // command id → the exec asked about
    std::map<std::int64_t, std::int64_t> commandOfRequest; // request id → command id
    auto visit = [&](const RecordedEvent& event) {
        auto j = nlohmann::json::parse(event.data, nullptr, false);
        if (!j.is_object()) return true;
        switch (event.kind) {
        case EventKind::ExecDecision: {
            ObservedCommand c{text(j, "program"), {}, id, event.tNs};
            if (auto argv = j.find("argv"); argv != j.end() && argv->is_array())
                for (const auto& a : *argv)
                    if (a.is_string()) c.argv.push_back(a.get<std::string>());
            // Not UTF-8 (argv_base64): no rule is written from such a command line.
            if (c.program.empty() || c.argv.empty()) break;
            const std::string decision = text(j, "decision");
            if (decision == "allow")
                out.commands.push_back(std::move(c));
            else if (decision == "ask")
                asked[number(j, "id")] = std::move(c);
            break;
        }
        case EventKind::ApprovalPrompt:
            if (const std::int64_t command = number(j, "command_id"); command >= 0)
                commandOfRequest[number(j, "request_id")] = command;
            break;
        case EventKind::ApprovalAnswer: {
            auto request = commandOfRequest.find(number(j, "request_id"));
            if (request == commandOfRequest.end()) break;
            auto command = asked.find(request->second);
            if (command != asked.end() && text(j, "decision") == "allow")
                out.commands.push_back(std::move(command->second));
            if (command != asked.end()) asked.erase(command);
            break;
        }
        case EventKind::NetworkDecision: {
            if (text(j, "decision") != "allow" || text(j, "host").empty()) break;
            ObservedConnection c{text(j, "host"), 0, {}, id, event.tNs};
            const std::int64_t port = number(j, "port");
            if (port <= 0 || port > 65535) break;
            c.port = static_cast<std::uint16_t>(port);
            const ProcessChain chain = processChainFromJson(j.value("process", nlohmann::json()));
            if (!chain.empty()) c.program = chain.front().program;
            out.connections.push_back(std::move(c));
            break;
        }
        default:
            break;
        }
        return true;
    };
    if (auto e = store.forEachStructuredEvent(id, visit)) return e->within("session " + id);
    return std::nullopt;
}

} // namespace

Result<Observations> readObservations(RecordingStore& store,
                                      const std::vector<std::string>& sessions)
{
    Observations out;
    for (const std::string& id : sessions) {
        if (auto found = store.session(id); !found) return found.error();
        if (auto e = readSession(store, id, out)) return *e;
    }
    return out;
}

} // namespace sb
