// The sandbox's environment: an allowlist. Nothing of the caller's environment passes unless
// it is a default (TERM, LANG, LC_*, HOME, USER, LOGNAME, SHELL) or the policy names it.
#pragma once

#include "policy/Policy.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sb {

constexpr const char* kDefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// `caller` is "NAME=value" entries (environ). PATH is always the default unless the policy sets it.
std::vector<std::string> buildEnvironment(const EnvPolicy& policy,
                                          const std::vector<std::string>& caller);

// HTTP_PROXY, HTTPS_PROXY, ALL_PROXY (and lower case) pointing at the sandbox's proxy port,
// NO_PROXY covering loopback: added for network mode "filtered", before the policy's `set`.
void addProxyVariables(std::vector<std::string>& env, std::uint16_t port, const EnvPolicy& policy);

// Sets NAME=value in `env`, replacing what it held for NAME, and keeps `env` sorted.
void setVariable(std::vector<std::string>& env, const std::string& name, const std::string& value);

// True when `name` matches `pattern` ("NAME" exactly, or "PREFIX*").
bool matchesVariablePattern(const std::string& pattern, const std::string& name);

} // namespace sb
