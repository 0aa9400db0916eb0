// What the MCP tools' files share: the result helpers, the exec's verdicts, a factory per tool.
#pragma once

#include "base/Bytes.h"
#include "mcp/McpServer.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace sb::mcp {

// A tool's result content: `s` as one text item; a failed tool's result saying `message`.
nlohmann::json text(const std::string& s);
nlohmann::json failure(const std::string& message);

// Output for a model: the text as it is, cut past kMaxToolOutput with a note.
struct Captured {
    std::string bytes;
    std::size_t cut = 0;
    void add(std::string_view b)
    {
        const std::size_t room = kMaxToolOutput > bytes.size() ? kMaxToolOutput - bytes.size() : 0;
        bytes.append(b.substr(0, room));
        cut += b.size() > room ? b.size() - room : 0;
    }
    std::string shown() const
    {
        std::string s(completeUtf8Prefix(bytes));
        if (cut > 0)
            s += "\n[… " + std::to_string(cut + bytes.size() - completeUtf8Prefix(bytes).size()) +
                 " more bytes cut: the output is longer than " + std::to_string(kMaxToolOutput) +
                 " bytes; redirect it to a file and read parts of it]";
        return s;
    }
};

// The exec waits for the user's answer to the request in `body`: a progress note saying so.
std::string approvalNote(const nlohmann::json& body);
// Why the exec did not run, or was denied, as the model should read it.
std::string refusalText(const nlohmann::json& exit);
// The exec failed for the policy's or the sandbox's reasons, not its own: a denial that ended
// it (its exit is not 0), or an error that kept it from running.
bool refused(const nlohmann::json& exit);

// The command and process tools (McpProcessTools.cpp). makeCall has checked the arguments
// against toolList()'s schemas.
std::unique_ptr<Call> makeRunCommand(const nlohmann::json& args);
std::unique_ptr<Call> makeStartProcess(const nlohmann::json& args);
std::unique_ptr<Call> makeReadProcessOutput(Process* p, long long waitMs);
std::unique_ptr<Call> makeStopProcess(Process* p, int signal);
std::unique_ptr<Call> makeWriteProcessInput(Process* p, const nlohmann::json& args);

// The file tools (McpFileTools.cpp). makeWriteFile: nullptr with `error` set for a mode that
// is not octal (the call then fails as a tool, with that message).
std::unique_ptr<Call> makeReadFile(const nlohmann::json& args);
std::unique_ptr<Call> makeWriteFile(const nlohmann::json& args, std::string& error);
std::unique_ptr<Call> makeEditFile(const nlohmann::json& args);
std::unique_ptr<Call> makeListDirectory(const nlohmann::json& args);
std::unique_ptr<Call> makeSearchFiles(const nlohmann::json& args);
std::unique_ptr<Call> makeGetChanges(const nlohmann::json& args);

} // namespace sb::mcp
