// The MCP server's tools: each one a few control-protocol requests (McpServer.h). Their
// descriptions are written for a model: what the tool does, where it runs, what it returns.
// Here the list, the arguments' checks and the dispatch; the tools are in McpProcessTools.cpp
// and McpFileTools.cpp.
#include "mcp/McpToolsInternal.h"

#include <cctype>
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

// openWorld: what the tool runs may reach the network (through the session's policy).
json tool(const char* name, const char* title, const char* description, json input, bool readOnly,
          bool destructive, bool openWorld = false)
{
    return {{"name", name},
            {"title", title},
            {"description", description},
            {"inputSchema", std::move(input)},
            {"annotations",
             {{"title", title},
              {"readOnlyHint", readOnly},
              {"destructiveHint", destructive},
              {"openWorldHint", openWorld}}}};
}

const json kString = {{"type", "string"}};

// A value as an error message shows it: its JSON, cut short.
std::string shown(const json& value)
{
    std::string s = value.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// What a schema property takes, in words: "an integer from 1 to 3600".
std::string expected(const json& property)
{
    const std::string type = property.value("type", "");
    if (property.contains("enum")) {
        std::string values;
        for (const auto& v : property["enum"])
            values += (values.empty() ? "" : ", ") + v.dump();
        return "one of " + values;
    }
    std::string what = type == "integer" ? "an integer"
                       : type == "array"
                           ? "an array of " + property["items"].value("type", "") + "s"
                           : "a " + type;
    if (property.contains("minimum") && property.contains("maximum"))
        what += " from " + property["minimum"].dump() + " to " + property["maximum"].dump();
    return what;
}

// Whether `value` is of the JSON type a schema property names, and within its bounds.
bool fits(const json& property, const json& value)
{
    const std::string type = property.value("type", "");
    if (property.contains("enum")) {
        for (const auto& v : property["enum"])
            if (v == value) return true;
        return false;
    }
    if (type == "string") return value.is_string();
    if (type == "boolean") return value.is_boolean();
    if (type == "integer") {
        if (!value.is_number_integer()) return false;
        if (value.is_number_unsigned() && value.get<std::uint64_t>() > (1ULL << 62)) return false;
        const auto v = value.get<long long>();
        return (!property.contains("minimum") || v >= property["minimum"].get<long long>()) &&
               (!property.contains("maximum") || v <= property["maximum"].get<long long>());
    }
    if (type == "array") {
        if (!value.is_array()) return false;
        for (const auto& item : value)
            if (!fits(property["items"], item)) return false;
        return true;
    }
    return true;
}

// The arguments against the tool's schema (required keys, their types, bounds and values): ""
// when they fit, else what is wrong, naming the argument and what it takes, for the model.
std::string checkArguments(const json& spec, const json& args)
{
    const std::string tool = spec["name"].get<std::string>();
    const json& schemaOf = spec["inputSchema"];
    const json& props = schemaOf["properties"];
    for (const auto& key : schemaOf["required"]) {
        const std::string name = key.get<std::string>();
        if (args.contains(name)) continue;
        std::string what = expected(props[name]);
        if (props[name].contains("description")) {
            std::string d = props[name]["description"].get<std::string>();
            d[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(d[0])));
            what += " (" + d + ")";
        }
        return tool + " needs the argument '" + name + "': " + what;
    }
    for (const auto& [key, value] : args.items()) {
        if (!props.contains(key)) {
            std::string names;
            for (const auto& [name, property] : props.items())
                names += (names.empty() ? "" : ", ") + name;
            return tool + " has no argument '" + key + "'; it takes " + names;
        }
        if (!fits(props[key], value))
            return "argument '" + key + "' of " + tool + " must be " + expected(props[key]) +
                   ", not " + (value.is_string() ? "" : std::string(value.type_name()) + " ") +
                   shown(value);
    }
    return {};
}

// A call that fails at once, as a tool: arguments the tool cannot take.
class Refused : public Call {
  public:
    explicit Refused(std::string message) : m_message(std::move(message)) {}
    void start() override { server->finish(*this, failure(m_message)); }

  private:
    std::string m_message;
};

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
             false, true, true),
        tool("start_process", "Start a process",
             "Starts a long-running command (a dev server, a watcher) in the sandbox and returns "
             "at once with its process_id; read its output with read_process_output.",
             schema({{"command", described("string", "The shell command line")},
                     {"cwd", described("string", "Working folder (default: the project)")}},
                    {"command"}),
             false, true, true),
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
    if (!spec) { // the spec keeps unknown tools a protocol error
        error = "no tool '" + name + "'";
        return nullptr;
    }
    if (std::string wrong = checkArguments(*spec, args); !wrong.empty())
        return std::make_unique<Refused>(wrong);
    Process* p = nullptr;
    if (args.contains("process_id")) {
        p = server.process(args["process_id"].get<std::string>());
        if (!p)
            return std::make_unique<Refused>(
                "no process " + shown(args["process_id"]) +
                ": process_id must be one that start_process returned in this connection");
    }
    if (name == "run_command") return makeRunCommand(args);
    if (name == "start_process") return makeStartProcess(args);
    if (name == "read_process_output")
        return makeReadProcessOutput(p, args.contains("wait_ms") ? args["wait_ms"].get<long long>()
                                                                 : 0LL);
    if (name == "write_process_input") return makeWriteProcessInput(p, args);
    if (name == "stop_process") {
        const std::string sig = args.value("signal", std::string("TERM"));
        return makeStopProcess(p, sig == "KILL" ? SIGKILL : sig == "INT" ? SIGINT : SIGTERM);
    }
    if (name == "read_file") return makeReadFile(args);
    if (name == "write_file") {
        std::string wrong;
        auto call = makeWriteFile(args, wrong);
        return call ? std::move(call) : std::make_unique<Refused>(wrong);
    }
    if (name == "edit_file") return makeEditFile(args);
    if (name == "list_directory") return makeListDirectory(args);
    if (name == "search_files") return makeSearchFiles(args);
    if (name == "get_changes") return makeGetChanges(args);
    error = "no tool '" + name + "'";
    return nullptr;
}

} // namespace sb::mcp
