#include "policy/Policy.h"

#include "base/JsonLocator.h"
#include "base/Paths.h"
#include "policy/Exposure.h"
#include "policy/PolicyRules.h"
#include "policy/SchemaChecker.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace sb {

std::optional<NetworkMode> networkModeFromName(std::string_view name)
{
    for (NetworkMode mode : {NetworkMode::None, NetworkMode::Filtered, NetworkMode::Host})
        if (toString(mode) == name) return mode;
    return std::nullopt;
}

void applyOverrides(Policy& policy, const PolicyOverrides& o)
{
    if (o.network) policy.network.mode = *o.network;
    if (o.wallSeconds) policy.limits.wallSeconds = *o.wallSeconds;
    if (o.memoryMb) policy.limits.memoryMb = *o.memoryMb;
    if (o.pids) policy.limits.pids = *o.pids;
    if (o.cpuPercent) policy.limits.cpuPercent = *o.cpuPercent;
    if (o.approvalTimeoutSeconds) policy.approvals.timeoutSeconds = *o.approvalTimeoutSeconds;
}

std::string_view toString(NetworkMode mode)
{
    switch (mode) {
    case NetworkMode::None:
        return "none";
    case NetworkMode::Filtered:
        return "filtered";
    case NetworkMode::Host:
        return "host";
    }
    return "?";
}

std::string_view toString(AccessMode mode)
{
    return mode == AccessMode::ReadWrite ? "rw" : "ro";
}

std::string_view toString(RuleAction action)
{
    switch (action) {
    case RuleAction::Allow:
        return "allow";
    case RuleAction::Ask:
        return "ask";
    case RuleAction::Deny:
        return "deny";
    }
    return "?";
}

namespace {

constexpr std::size_t kMaxPolicyBytes = 1024 * 1024;
constexpr std::array<std::string_view, 3> kNetworkModes = {"none", "filtered", "host"};
constexpr std::array<std::string_view, 2> kAccessModes = {"ro", "rw"};
constexpr std::array<std::string_view, 2> kTimeoutActions = {"allow", "deny"};

bool isVariableName(std::string_view s)
{
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (c >= '0' && c <= '9');
    });
}

using Checker = SchemaChecker;
using Field = Checker::Field;

void readVersion(Checker& c, const json& v, const std::string& p, int& version)
{
    if (!v.is_number_integer()) {
        c.failAtValue(p, "got " + shown(v) + " (expected 1)");
        return;
    }
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() != 1) {
        c.failAtValue(p, "unsupported version " + v.dump() + " (expected 1)");
        return;
    }
    version = 1;
}

void readExposedPath(Checker& c, const json& v, const std::string& p, ExposedPath& out)
{
    c.object(v, p,
             {{"path",
               [&](const json& x, const std::string& at) {
                   auto s = c.string(x, at, "a path such as \"~/.claude\" or \"/opt/sdk\"");
                   if (!s) return;
                   if (auto e = checkExposeSpelling(*s)) c.failAtValue(at, e->message);
                   out.path = *s;
               },
               "\"path\": \"~/…\" or \"/…\""},
              {"mode",
               [&](const json& x, const std::string& at) {
                   if (auto i = c.choice(x, at, kAccessModes))
                       out.mode = *i == 0 ? AccessMode::ReadOnly : AccessMode::ReadWrite;
               }},
              {"optional", [&](const json& x, const std::string& at) {
                   if (auto b = c.boolean(x, at)) out.optional = *b;
               }}});
}

// {"path": "tools/hooks", "reason": "…"} (add) or {"path": ".env", "because": "…"} (unprotect):
// turning a built-in entry off needs a reason, which the session announces.
void readRunLaterEntry(Checker& c, const json& v, const std::string& p, std::string& path,
                       std::string& text, std::string_view textKey, bool textRequired)
{
    c.object(v, p,
             {{"path",
               [&](const json& x, const std::string& at) {
                   auto s = c.string(x, at, "a path such as \"tools/hooks\" or \"~/.myrc\"");
                   if (!s) return;
                   if (auto e = checkRunLaterPattern(*s)) c.failAtValue(at, e->message);
                   path = *s;
               },
               "\"path\": \"…\""},
              {textKey,
               [&](const json& x, const std::string& at) {
                   if (auto s = c.string(x, at, "why, in a few words")) text = *s;
               },
               textRequired ? std::string_view("\"because\": \"why it is safe here\"") : ""}});
}

void readRunLater(Checker& c, const json& v, const std::string& p, RunLaterPolicy& out)
{
    c.object(v, p,
             {{"add",
               [&](const json& x, const std::string& at) {
                   if (!c.array(x, at, "an array of {\"path\": …, \"reason\": …}")) return;
                   for (std::size_t i = 0; i < x.size(); ++i) {
                       RunLaterAddition entry;
                       readRunLaterEntry(c, x[i], appendPointer(at, std::to_string(i)), entry.path,
                                         entry.reason, "reason", false);
                       out.add.push_back(std::move(entry));
                   }
               }},
              {"unprotect", [&](const json& x, const std::string& at) {
                   if (!c.array(x, at, "an array of {\"path\": …, \"because\": …}")) return;
                   for (std::size_t i = 0; i < x.size(); ++i) {
                       RunLaterUnprotect entry;
                       const std::string item = appendPointer(at, std::to_string(i));
                       readRunLaterEntry(c, x[i], item, entry.path, entry.because, "because", true);
                       if (!entry.path.empty() && !isBuiltinRunLater(entry.path))
                           c.failAtValue(appendPointer(item, "path"),
                                         "'" + entry.path +
                                             "' is no built-in entry (expected one spelled as in "
                                             "docs/workspace.md, \"Files that run later\")");
                       out.unprotect.push_back(std::move(entry));
                   }
               }}});
}

void readFilesystem(Checker& c, const json& v, const std::string& p, FilesystemPolicy& out)
{
    c.object(v, p,
             {{"root",
               [&](const json& x, const std::string& at) {
                   constexpr std::string_view kImage = "image:";
                   auto s = c.string(x, at, "\"image:NAME\" or an absolute folder");
                   if (!s) return;
                   const bool image = s->rfind(kImage, 0) == 0 && s->size() > kImage.size();
                   if (!image && (s->empty() || s->front() != '/'))
                       c.failAtValue(at, "'" + *s +
                                             "' is neither \"image:NAME\" (sandbench-cli image "
                                             "ls) nor an absolute folder");
                   else
                       out.root = *s;
               }},
              {"expose",
               [&](const json& x, const std::string& at) {
                   if (!c.array(x, at, "an array of {\"path\": …, \"mode\": \"ro\"|\"rw\"}"))
                       return;
                   for (std::size_t i = 0; i < x.size(); ++i) {
                       ExposedPath entry;
                       readExposedPath(c, x[i], appendPointer(at, std::to_string(i)), entry);
                       out.expose.push_back(std::move(entry));
                   }
               }},
              {"run_later", [&](const json& x, const std::string& at) {
                   readRunLater(c, x, at, out.runLater);
               }}});
}

void readNetwork(Checker& c, const json& v, const std::string& p, NetworkPolicy& out)
{
    c.object(v, p,
             {{"mode",
               [&](const json& x, const std::string& at) {
                   if (auto i = c.choice(x, at, kNetworkModes))
                       out.mode = static_cast<NetworkMode>(*i);
               }},
              {"default",
               [&](const json& x, const std::string& at) {
                   if (auto a = readRuleAction(c, x, at)) out.defaultAction = *a;
               }},
              {"rules", [&](const json& x, const std::string& at) {
                   if (!c.array(x, at, "an array of {\"action\": …, \"host\": …}")) return;
                   for (std::size_t i = 0; i < x.size(); ++i) {
                       NetworkRule rule;
                       readNetworkRule(c, x[i], appendPointer(at, std::to_string(i)), rule);
                       out.rules.push_back(std::move(rule));
                   }
               }}});
}

void readCommands(Checker& c, const json& v, const std::string& p, CommandPolicy& out)
{
    c.object(v, p,
             {{"default",
               [&](const json& x, const std::string& at) {
                   if (auto a = readRuleAction(c, x, at)) out.defaultAction = *a;
               }},
              {"rules", [&](const json& x, const std::string& at) {
                   if (!c.array(x, at, "an array of {\"action\": …, \"match\": …}")) return;
                   for (std::size_t i = 0; i < x.size(); ++i) {
                       CommandRule rule;
                       readCommandRule(c, x[i], appendPointer(at, std::to_string(i)), rule);
                       out.rules.push_back(std::move(rule));
                   }
               }}});
}

void readApprovals(Checker& c, const json& v, const std::string& p, ApprovalPolicy& out)
{
    c.object(v, p,
             {{"timeout_seconds",
               [&](const json& x, const std::string& at) {
                   if (auto n = c.integer(x, at, 1, maximum::approvalSeconds))
                       out.timeoutSeconds = static_cast<std::uint32_t>(*n);
               }},
              {"on_timeout", [&](const json& x, const std::string& at) {
                   // "ask" is no answer to a question nobody answered.
                   if (auto i = c.choice(x, at, kTimeoutActions))
                       out.onTimeout = *i == 0 ? RuleAction::Allow : RuleAction::Deny;
               }}});
}

void readLimits(Checker& c, const json& v, const std::string& p, Limits& out)
{
    // One row per limit: key, smallest and largest accepted value (0 = no limit unless min > 0).
    auto limit = [&c](std::string_view key, std::uint64_t min, std::uint64_t max, auto& target) {
        return Field{key, [&c, min, max, &target](const json& x, const std::string& at) {
                         if (auto n = c.integer(x, at, min, max))
                             target = static_cast<std::remove_reference_t<decltype(target)>>(*n);
                     }};
    };
    c.object(v, p,
             {limit("memory_mb", 0, maximum::memoryMb, out.memoryMb),
              limit("pids", 0, maximum::pids, out.pids),
              limit("cpu_percent", 0, maximum::cpuPercent, out.cpuPercent),
              limit("wall_seconds", 0, maximum::limitSeconds, out.wallSeconds),
              limit("idle_seconds", 0, maximum::limitSeconds, out.idleSeconds),
              limit("cpu_seconds", 0, maximum::limitSeconds, out.cpuSeconds),
              limit("open_files", 16, 1u << 20, out.openFiles), // fewer breaks shells; fs.nr_open
              limit("file_size_mb", 0, 1u << 20, out.fileSizeMb),
              limit("model_tokens", 0, std::uint64_t{1} << 50, out.modelTokens),
              limit("model_requests", 0, std::uint64_t{1} << 40, out.modelRequests)});
}

void readEnv(Checker& c, const json& v, const std::string& p, EnvPolicy& out)
{
    const std::string nameRule = "letters, digits and '_', not starting with a digit";
    auto readPass = [&](const json& x, const std::string& at) {
        if (!c.array(x, at, "an array of variable names or \"PREFIX_*\" patterns")) return;
        for (std::size_t i = 0; i < x.size(); ++i) {
            const std::string itemAt = appendPointer(at, std::to_string(i));
            auto name = c.string(x[i], itemAt, "a variable name or a \"PREFIX_*\" pattern");
            if (!name) continue;
            const bool pattern = name->ends_with('*');
            const std::string_view stem = std::string_view(*name).substr(0, name->size() - pattern);
            if (pattern && stem.empty())
                c.failAtValue(itemAt, "'*' would pass the whole environment (expected a name or a "
                                      "prefix such as \"MYAPP_*\")");
            else if (!isVariableName(stem))
                c.failAtValue(itemAt, "invalid variable name '" + *name + "' (expected " +
                                          nameRule + "; '*' only at the end)");
            else
                out.pass.push_back(*name);
        }
    };
    auto readSet = [&](const json& x, const std::string& at) {
        if (!x.is_object()) {
            c.failAtValue(at, "got " + shown(x) + " (expected an object of \"NAME\": \"value\")");
            return;
        }
        for (const std::string& name : c.keys(x, at)) {
            const std::string itemAt = appendPointer(at, name);
            if (!isVariableName(name))
                c.failAtKey(itemAt,
                            "invalid variable name '" + name + "' (expected " + nameRule + ")");
            else if (auto value = c.string(x.at(name), itemAt, "a string"))
                out.set[name] = *value;
        }
    };
    c.object(v, p, {{"pass", readPass}, {"set", readSet}});
}

// The document's top level. A new section is one row here and one reader above.
void readPolicy(Checker& c, const json& root, Policy& out)
{
    c.object(
        root, "",
        {{"version",
          [&](const json& x, const std::string& at) { readVersion(c, x, at, out.version); },
          "\"version\": 1"},
         {"filesystem",
          [&](const json& x, const std::string& at) { readFilesystem(c, x, at, out.filesystem); }},
         {"network",
          [&](const json& x, const std::string& at) { readNetwork(c, x, at, out.network); }},
         {"commands",
          [&](const json& x, const std::string& at) { readCommands(c, x, at, out.commands); }},
         {"limits",
          [&](const json& x, const std::string& at) { readLimits(c, x, at, out.limits); }},
         {"env", [&](const json& x, const std::string& at) { readEnv(c, x, at, out.env); }},
         {"approvals",
          [&](const json& x, const std::string& at) { readApprovals(c, x, at, out.approvals); }},
         {"secrets",
          [&](const json& x, const std::string& at) { readSecrets(c, x, at, out.secrets); }}});
}

std::string located(std::string_view origin, std::string_view text, std::size_t offset)
{
    const TextPosition pos = positionAt(text, offset);
    return std::string(origin) + ':' + std::to_string(pos.line) + ':' + std::to_string(pos.column);
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 8: syntax error while
// parsing object key - unexpected '}'; expected string literal" → "unexpected '}' (expected string
// literal)": our own position in front, the library's wording of the problem kept.
std::string syntaxProblem(std::string what)
{
    if (what.starts_with("[json.exception.") && what.find("] ") != std::string::npos)
        what.erase(0, what.find("] ") + 2);
    if (auto dash = what.find(" - "); dash != std::string::npos)
        what.erase(0, dash + 3);
    else if (auto colon = what.find(": "); colon != std::string::npos)
        what.erase(0, colon + 2);
    // "last read: '…'" may quote the whole document; the position says enough.
    if (auto last = what.find("; last read: '"); last != std::string::npos) {
        const std::size_t end = what.find("'; expected ", last + 14);
        what.erase(last, end == std::string::npos ? std::string::npos : end + 1 - last);
    }
    if (auto expected = what.rfind("; expected "); expected != std::string::npos)
        what = what.substr(0, expected) + " (expected " + what.substr(expected + 11) + ")";
    return what;
}

bool isTokenChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

// nlohmann reports where it stopped reading, which is the end of the offending token (or the
// character after a bad literal); a message is clearer at the token's start.
std::size_t tokenStart(std::string_view text, std::size_t offset, bool badLiteral)
{
    if (offset >= text.size()) return offset;
    if (badLiteral && offset > 0 && !isTokenChar(text[offset]) && isTokenChar(text[offset - 1]))
        --offset;
    if (text[offset] == '"' && offset > 0) {
        // Back to the opening quote: strings hold no raw newline, and \" does not end them.
        for (std::size_t i = offset; i-- > 0 && text[i] != '\n';) {
            std::size_t slashes = 0;
            while (slashes < i && text[i - 1 - slashes] == '\\')
                ++slashes;
            if (text[i] == '"' && slashes % 2 == 0) return i;
        }
        return offset;
    }
    while (isTokenChar(text[offset]) && offset > 0 && isTokenChar(text[offset - 1]))
        --offset;
    return offset;
}

} // namespace

Result<Policy> parsePolicy(std::string_view text, std::string_view origin)
{
    if (text.size() > kMaxPolicyBytes)
        return inputError(std::string(origin) + ": the policy is " + std::to_string(text.size()) +
                          " bytes (expected at most " + std::to_string(kMaxPolicyBytes) + ")");
    // The parser ends a comment at a NUL byte (and the locator would not): a policy is text.
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        return inputError(located(origin, text, nul) + ": a NUL byte (expected text)");
    json root;
    try {
        root = json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
    } catch (const json::parse_error& e) {
        // `byte` counts the characters read, the offending one included.
        const std::string problem = syntaxProblem(e.what());
        const std::size_t offset =
            tokenStart(text, e.byte > 0 ? e.byte - 1 : 0, problem.starts_with("invalid literal"));
        return inputError(located(origin, text, offset) + ": invalid JSON: " + problem);
    } catch (const json::exception& e) {
        // Only number overflow ("1e400") gets here; it carries the literal but no position.
        std::string what = e.what();
        std::size_t offset = 0;
        if (auto q = what.find('\''); q != std::string::npos)
            offset = std::min(text.find(what.substr(q + 1, what.rfind('\'') - q - 1)), text.size());
        return inputError(located(origin, text, offset) + ": invalid JSON: " + syntaxProblem(what));
    }

    const JsonLocator locator(text);
    if (auto deep = locator.tooDeep())
        return inputError(located(origin, text, *deep) + ": nested too deeply (expected at most " +
                          std::to_string(JsonLocator::kMaxDepth) + " levels)");
    if (const auto& dup = locator.duplicate()) {
        const TextPosition first = locator.at(dup->firstOffset);
        return inputError(located(origin, text, dup->offset) + ": at " + dup->pointer +
                          ": duplicate key '" + dup->key +
                          "' (expected each key once; the first is at " +
                          std::to_string(first.line) + ':' + std::to_string(first.column) + ")");
    }
    Checker checker(origin, locator);
    Policy policy;
    try {
        readPolicy(checker, root, policy);
    } catch (const json::exception& e) {
        return Error{ErrorCode::Internal, 0, std::string(origin) + ": " + e.what()};
    }
    if (auto e = checker.result()) return *e;
    return policy;
}

Result<Policy> loadPolicyFile(const fs::path& file)
{
    const std::string name = "policy file '" + file.string() + "'";
    // O_NONBLOCK: a FIFO named by mistake must not hang the caller; regular files ignore it.
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        Error e = sysError("cannot open " + name);
        if (e.sysErrno == ENOENT) e.code = ErrorCode::NotFound;
        return e;
    }
    struct stat st {};
    std::string text;
    Status failure;
    if (::fstat(fd, &st) != 0) {
        failure = sysError("cannot read " + name);
    } else if (!S_ISREG(st.st_mode)) {
        failure = inputError(name + " is not a regular file");
    } else if (static_cast<std::uint64_t>(st.st_size) > kMaxPolicyBytes) {
        failure = inputError(name + " is " + std::to_string(st.st_size) +
                             " bytes (expected at most " + std::to_string(kMaxPolicyBytes) + ")");
    } else {
        char buffer[65536];
        for (;;) {
            const ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) failure = sysError("cannot read " + name);
            if (n <= 0) break;
            text.append(buffer, static_cast<std::size_t>(n));
        }
    }
    ::close(fd);
    if (failure) return *failure;
    return parsePolicy(text, file.string()); // parsePolicy re-checks the size if the file grew
}

fs::path presetDirectory()
{
    return shippedDataDirectory() / "presets";
}

std::vector<std::string> presetNames()
{
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(presetDirectory(), ec), end; !ec && it != end;
         it.increment(ec)) {
        if (it->path().extension() == ".json" && it->is_regular_file(ec))
            names.push_back(it->path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

Result<Policy> loadPreset(std::string_view name)
{
    const bool valid =
        !name.empty() && name[0] != '.' && std::all_of(name.begin(), name.end(), [](char c) {
            return c == '-' || c == '_' || c == '.' || (c >= 'a' && c <= 'z') ||
                   (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        });
    if (!valid)
        return inputError("invalid preset name '" + std::string(name) +
                          "' (expected a name such as 'generic', without '/')");
    // Every start of a preset comes here: the folder is listed only to say what exists.
    auto policy = loadPolicyFile(presetDirectory() / (std::string(name) + ".json"));
    if (policy || policy.error().code != ErrorCode::NotFound) return policy;
    const std::vector<std::string> names = presetNames();
    const std::vector<std::string_view> views(names.begin(), names.end());
    return Error{ErrorCode::NotFound, 0,
                 "unknown preset '" + std::string(name) +
                     "' (expected one of: " + joinNames(views) + didYouMean(name, views) + ")"};
}

} // namespace sb
