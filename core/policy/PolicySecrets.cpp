#include "policy/NetworkRules.h"
#include "policy/PolicyJson.h"
#include "policy/PolicyRules.h"
#include "policy/Secrets.h"

#include <algorithm>
#include <array>

using json = nlohmann::json;

namespace sb {

namespace {

bool isSecretName(std::string_view s)
{
    return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
        return c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    });
}

bool isVariable(std::string_view s)
{
    return !s.empty() && !(s[0] >= '0' && s[0] <= '9') &&
           std::all_of(s.begin(), s.end(), [](char c) {
               return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                      (c >= '0' && c <= '9');
           });
}

bool isFilePath(std::string_view s)
{
    return (s.starts_with("/") || s.starts_with("~/")) && s.find('\0') == std::string_view::npos &&
           s.find("/../") == std::string_view::npos && !s.ends_with("/..") && !s.ends_with("/");
}

void readSource(SchemaChecker& c, const json& v, const std::string& p, SecretSource& out)
{
    if (!v.is_object() || v.size() != 1) {
        c.failAtValue(p, "got " + shown(v) +
                             " (expected one of {\"env\": \"NAME\"}, {\"file\": \"~/…\"}, "
                             "{\"keyring\": {\"attribute\": \"value\", …}} or {\"command\": "
                             "[\"program\", \"argument\", …]})");
        return;
    }
    c.object(
        v, p,
        {{"env",
          [&](const json& x, const std::string& at) {
              auto s = c.string(x, at, "the name of a variable of Sandbench's environment");
              if (!s) return;
              if (!isVariable(*s)) c.failAtValue(at, "invalid variable name '" + *s + "'");
              out.kind = SecretSource::Kind::Env;
              out.variable = *s;
          }},
         {"file",
          [&](const json& x, const std::string& at) {
              auto s = c.string(x, at, "a file such as \"~/.config/anthropic/key\"");
              if (!s) return;
              if (!isFilePath(*s))
                  c.failAtValue(at, "'" + *s + "' is not an absolute path or one under \"~/\"");
              out.kind = SecretSource::Kind::File;
              out.path = *s;
          }},
         {"keyring",
          [&](const json& x, const std::string& at) {
              if (!x.is_object() || x.empty()) {
                  c.failAtValue(at, "got " + shown(x) +
                                        " (expected the item's attributes, such as "
                                        "{\"service\": \"anthropic\", \"account\": \"me\"})");
                  return;
              }
              out.kind = SecretSource::Kind::Keyring;
              for (const std::string& key : c.keys(x, at))
                  if (auto s = c.string(x.at(key), appendPointer(at, key), "a string"))
                      out.attributes.emplace_back(key, *s);
          }},
         {"command", [&](const json& x, const std::string& at) {
              if (!c.array(x, at, "[\"program\", \"argument\", …]")) return;
              if (x.empty()) {
                  c.failAtValue(at, "an empty command (expected [\"program\", …])");
                  return;
              }
              out.kind = SecretSource::Kind::Command;
              for (std::size_t i = 0; i < x.size(); ++i)
                  if (auto s = c.string(x[i], appendPointer(at, std::to_string(i)), "a string"))
                      out.argv.push_back(*s);
          }}});
}

void readSecret(SchemaChecker& c, const json& v, const std::string& p, SecretSpec& out)
{
    auto readHosts = [&](const json& x, const std::string& at) {
        if (!c.array(x, at, "an array of host names such as \"api.anthropic.com\"")) return;
        if (x.empty()) c.failAtValue(at, "no host (expected where the secret may be sent)");
        for (std::size_t i = 0; i < x.size(); ++i) {
            const std::string itemAt = appendPointer(at, std::to_string(i));
            auto s = c.string(x[i], itemAt, "a host name, \"*.domain\" or an IP address");
            if (!s) continue;
            auto kind = checkHostPattern(*s);
            if (!kind) {
                c.failAtValue(itemAt, kind.error().message);
            } else if (*kind == HostPatternKind::Any || *kind == HostPatternKind::Cidr4 ||
                       *kind == HostPatternKind::Cidr6) {
                c.failAtValue(itemAt, "'" + *s +
                                          "' names more than one host (expected a host name, "
                                          "\"*.domain\" or an IP address)");
            } else {
                std::string host = *s;
                std::transform(host.begin(), host.end(), host.begin(),
                               [](unsigned char ch) { return std::tolower(ch); });
                out.hosts.push_back(host);
            }
        }
    };
    auto readPorts = [&](const json& x, const std::string& at) {
        if (!c.array(x, at, "an array of ports such as [443]")) return;
        out.ports.clear();
        if (x.empty()) c.failAtValue(at, "no port (expected such as [443])");
        for (std::size_t i = 0; i < x.size(); ++i)
            if (auto n = c.integer(x[i], appendPointer(at, std::to_string(i)), 1, 65535))
                out.ports.push_back(static_cast<std::uint16_t>(*n));
    };
    c.object(
        v, p,
        {{"from", [&](const json& x, const std::string& at) { readSource(c, x, at, out.from); },
          "\"from\": {\"env\": …}, {\"file\": …}, {\"keyring\": …} or {\"command\": …}"},
         {"hosts", readHosts, "\"hosts\": [\"api.example.com\"]"},
         {"ports", readPorts},
         {"env",
          [&](const json& x, const std::string& at) {
              auto s = c.string(x, at, "the sandbox's variable for the placeholder");
              if (s && !isVariable(*s))
                  c.failAtValue(at, "invalid variable name '" + *s + "'");
              else if (s)
                  out.env = *s;
          }},
         {"file",
          [&](const json& x, const std::string& at) {
              auto s = c.string(x, at, "a file inside the sandbox such as \"~/.key\"");
              if (s && !isFilePath(*s))
                  c.failAtValue(at, "'" + *s + "' is not an absolute path or one under \"~/\"");
              else if (s)
                  out.file = *s;
          }},
         {"body",
          [&](const json& x, const std::string& at) {
              if (auto b = c.boolean(x, at)) out.body = *b;
          }},
         {"optional", [&](const json& x, const std::string& at) {
              if (auto b = c.boolean(x, at)) out.optional = *b;
          }}});
    if (out.env.empty() && out.file.empty() && v.is_object())
        c.failAtValue(p, "the secret reaches the sandbox nowhere (expected \"env\": \"NAME\" or "
                         "\"file\": \"~/…\", where its placeholder is seen)");
}

} // namespace

bool secretAllows(const SecretSpec& secret, const std::string& host, std::uint16_t port)
{
    if (std::find(secret.ports.begin(), secret.ports.end(), port) == secret.ports.end())
        return false;
    for (const std::string& pattern : secret.hosts) {
        if (pattern == host) return true;
        if (pattern.starts_with("*.")) {
            const std::string_view suffix = std::string_view(pattern).substr(1); // ".example.com"
            if (host == pattern.substr(2) ||
                (host.size() > suffix.size() && host.ends_with(suffix)))
                return true;
        }
    }
    return false;
}

void readSecrets(SchemaChecker& c, const json& v, const std::string& p,
                 std::vector<SecretSpec>& out)
{
    if (!v.is_object()) {
        c.failAtValue(p, "got " + shown(v) +
                             " (expected an object of \"name\": {\"from\": …, "
                             "\"hosts\": […], \"env\": …})");
        return;
    }
    for (const std::string& name : c.keys(v, p)) {
        const std::string at = appendPointer(p, name);
        if (!isSecretName(name)) {
            c.failAtKey(at, "invalid secret name '" + name +
                                "' (expected 1–64 of a-z, 0-9, '-' and '_')");
            continue;
        }
        SecretSpec secret;
        secret.name = name;
        readSecret(c, v.at(name), at, secret);
        for (const SecretSpec& other : out) {
            if (!secret.env.empty() && other.env == secret.env)
                c.failAtValue(appendPointer(at, "env"), "secret '" + other.name +
                                                            "' already uses the variable " +
                                                            secret.env);
            if (!secret.file.empty() && other.file == secret.file)
                c.failAtValue(appendPointer(at, "file"),
                              "secret '" + other.name + "' already uses " + secret.file);
        }
        out.push_back(std::move(secret));
    }
}

nlohmann::ordered_json secretsJson(const std::vector<SecretSpec>& secrets)
{
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const SecretSpec& s : secrets) {
        nlohmann::ordered_json from;
        switch (s.from.kind) {
        case SecretSource::Kind::Env:
            from["env"] = s.from.variable;
            break;
        case SecretSource::Kind::File:
            from["file"] = s.from.path;
            break;
        case SecretSource::Kind::Keyring:
            from["keyring"] = nlohmann::ordered_json::object();
            for (const auto& [key, value] : s.from.attributes)
                from["keyring"][key] = value;
            break;
        case SecretSource::Kind::Command:
            from["command"] = s.from.argv;
            break;
        }
        nlohmann::ordered_json entry = {{"from", from}, {"hosts", s.hosts}, {"ports", s.ports}};
        if (!s.env.empty()) entry["env"] = s.env;
        if (!s.file.empty()) entry["file"] = s.file;
        if (s.body) entry["body"] = true;
        if (s.optional) entry["optional"] = true;
        out[s.name] = std::move(entry);
    }
    return out;
}

} // namespace sb
