// The MCP server's tools: each one a few control-protocol requests (McpServer.h). Their
// descriptions are written for a model: what the tool does, where it runs, what it returns.
// Here the list, the arguments' checks and the dispatch; the tools are in McpProcessTools.cpp
// and McpFileTools.cpp.
#include "mcp/McpToolsInternal.h"

#include <csignal>

namespace sb::mcp {

using json = nlohmann::json;

json text(const std::string& s)
{
    return json::array({{{"type", "text"}, {"text", s}}});
}

json failure(const std::string& message)
{
    return {{"content", text(message)}, {"isError", true}};
}

namespace {

json schema(json properties, std::vector<std::string> required)
{
    return {{"type", "object"},
            {"properties", std::move(properties)},
            {"required", std::move(required)},
            {"additionalProperties", false}};
}

json tool(const char* name, const char* title, const char* description, json input, bool readOnly,
          bool destructive)
{
    return {{"name", name},
            {"title", title},
            {"description", description},
            {"inputSchema", std::move(input)},
            {"annotations",
             {{"title", title},
              {"readOnlyHint", readOnly},
              {"destructiveHint", destructive},
              {"openWorldHint", false}}}};
}

const json kString = {{"type", "string"}};

// Argument checks against the schema's essentials: required keys and their JSON types.
std::string checkArguments(const json& schemaOf, const json& args)
{
    const json& props = schemaOf["properties"];
    for (const auto& key : schemaOf["required"])
        if (!args.contains(key.get<std::string>()))
            return "missing argument '" + key.get<std::string>() + "'";
    for (const auto& [key, value] : args.items()) {
        if (!props.contains(key)) return "unknown argument '" + key + "'";
        const std::string type = props[key].value("type", "");
        const bool ok = type == "string"    ? value.is_string()
                        : type == "integer" ? value.is_number_integer()
                        : type == "boolean" ? value.is_boolean()
                        : type == "array"   ? value.is_array()
                                            : true;
        if (!ok)
            return "argument '" + key + "' must be " + (type == "integer" ? "an " : "a ") + type;
        if (type == "integer") {
            const auto v = value.get<long long>();
            if (props[key].contains("minimum") && v < props[key]["minimum"].get<long long>())
                return "argument '" + key + "' is below " + props[key]["minimum"].dump();
            if (props[key].contains("maximum") && v > props[key]["maximum"].get<long long>())
                return "argument '" + key + "' is above " + props[key]["maximum"].dump();
        }
    }
    return {};
}

json integer(long long min, long long max, const char* description)
{
    return {{"type", "integer"}, {"minimum", min}, {"maximum", max}, {"description", description}};
}

json described(const char* type, const char* description)
{
    return {{"type", type}, {"description", description}};
}

} // namespace

const json& toolList()
{
    static const json tools = json::array({
        tool("run_command", "Run a command",
             "Runs a shell command (/bin/sh -c) inside the Sandbench sandbox over the project and "
             "waits for it to end. Returns its exit code, stdout and stderr (each cut at 64 KiB). "
             "Commands the session's policy asks about wait until the supervising user answers; "
             "denied ones fail with the rule. Network access goes through the session's proxy.",
             schema({{"command", described("string", "The shell command line")},
                     {"cwd", described("string", "Working folder (default: the project)")},
                     {"timeout_seconds", integer(1, 3600, "Kill it after this long (default 120)")},
                     {"stdin", described("string", "Text for its standard input")}},
                    {"command"}),
             false, true),
        tool("start_process", "Start a process",
             "Starts a long-running command (a dev server, a watcher) in the sandbox and returns "
             "at once with its process_id; read its output with read_process_output.",
             schema({{"command", described("string", "The shell command line")},
                     {"cwd", described("string", "Working folder (default: the project)")}},
                    {"command"}),
             false, true),
        tool("read_process_output", "Read process output",
             "New output of a started process since the last read, and whether it still runs.",
             schema({{"process_id", kString},
                     {"wait_ms", integer(0, 30000, "Wait this long for output or its end")}},
                    {"process_id"}),
             true, false),
        tool("write_process_input", "Write process input",
             "Writes text to a started process's standard input.",
             schema({{"process_id", kString},
                     {"input", kString},
                     {"close_stdin", described("boolean", "Close its input afterwards")}},
                    {"process_id", "input"}),
             false, false),
        tool("stop_process", "Stop a process",
             "Stops a started process (TERM, then KILL after 5 s) and returns how it ended.",
             schema({{"process_id", kString},
                     {"signal", {{"type", "string"}, {"enum", {"TERM", "KILL", "INT"}}}}},
                    {"process_id"}),
             false, true),
        tool("read_file", "Read a file",
             "Reads a file as the sandbox sees it (the project with the session's changes). Text "
             "comes back as text; a binary file's bytes as base64.",
             schema({{"path", described("string", "Absolute, or relative to the project")},
                     {"offset", integer(0, 1LL << 50, "Byte to start at")},
                     {"limit", integer(1, 8 << 20, "Bytes to read (at most 8 MiB)")}},
                    {"path"}),
             true, false),
        tool("write_file", "Write a file",
             "Creates or replaces a file (atomically), making its folders. The change stays in "
             "the session until the user applies it to the real project.",
             schema({{"path", described("string", "Absolute, or relative to the project")},
                     {"content", kString},
                     {"mode", described("string", "Octal mode such as \"0755\"")}},
                    {"path", "content"}),
             false, true),
        tool("edit_file", "Edit a file",
             "Replaces old_text with new_text in a file. old_text must match exactly and once "
             "(unless replace_all), white space included.",
             schema({{"path", kString},
                     {"old_text", kString},
                     {"new_text", kString},
                     {"replace_all", {{"type", "boolean"}}}},
                    {"path", "old_text", "new_text"}),
             false, true),
        tool("list_directory", "List a folder",
             "Lists a folder's entries (d folder, f file with its size, l link -> target).",
             schema({{"path", described("string", "Default: the project")},
                     {"recursive", {{"type", "boolean"}}},
                     {"max_entries", integer(1, 10000, "Default 500")}},
                    {}),
             true, false),
        tool("search_files", "Search files",
             "Finds files by name (glob, e.g. \"*.py\") and/or lines by content (an extended "
             "regular expression), below a folder.",
             schema({{"path", described("string", "Where to search (default: the project)")},
                     {"glob", kString},
                     {"content", kString},
                     {"max_results", integer(1, 10000, "Default 200")}},
                    {}),
             true, false),
        tool("get_changes", "Show the session's changes",
             "What this session changed against the real project (added, modified, deleted), "
             "with a unified diff. Applying them is the user's decision, not a tool's.",
             schema({{"diff", {{"type", "boolean"}}},
                     {"paths", {{"type", "array"}, {"items", kString}}}},
                    {}),
             true, false),
    });
    return tools;
}

std::unique_ptr<Call> makeCall(Server& server, const std::string& name, const json& args,
                               std::string& error)
{
    const json* spec = nullptr;
    for (const auto& t : toolList())
        if (t["name"] == name) spec = &t;
    if (!spec) {
        error = "no tool '" + name + "'";
        return nullptr;
    }
    if (error = checkArguments((*spec)["inputSchema"], args); !error.empty()) return nullptr;
    auto processArg = [&]() -> Process* {
        Process* p = server.process(args["process_id"].get<std::string>());
        if (!p) error = "no process '" + args["process_id"].get<std::string>() + "'";
        return p;
    };
    if (name == "run_command") return makeRunCommand(args);
    if (name == "start_process") return makeStartProcess(args);
    if (name == "read_process_output") {
        Process* p = processArg();
        return p ? makeReadProcessOutput(p, args.value("wait_ms", 0)) : nullptr;
    }
    if (name == "write_process_input") {
        Process* p = processArg();
        return p ? makeWriteProcessInput(p, args) : nullptr;
    }
    if (name == "stop_process") {
        Process* p = processArg();
        const std::string sig = args.value("signal", std::string("TERM"));
        return p ? makeStopProcess(p, sig == "KILL"  ? SIGKILL
                                      : sig == "INT" ? SIGINT
                                                     : SIGTERM)
                 : nullptr;
    }
    if (name == "read_file") return makeReadFile(args);
    if (name == "write_file") return makeWriteFile(args, error);
    if (name == "edit_file") return makeEditFile(args);
    if (name == "list_directory") return makeListDirectory(args);
    if (name == "search_files") return makeSearchFiles(args);
    if (name == "get_changes") return makeGetChanges(args);
    error = "no tool '" + name + "'";
    return nullptr;
}

} // namespace sb::mcp
