// A session's secrets (policy `secrets`, docs/secrets.md) from the start: their values read on
// the host, the proxy's TLS termination with the session's CA, the trust bundle the sandbox
// sees (the host's CAs plus the session's, bound over the system bundle and announced in the
// variables programs read), and the placeholders in the sandbox's environment and files.
#pragma once

#include "base/Error.h"
#include "network/TlsIntercept.h"
#include "policy/Policy.h"
#include "sandbox/Sandbox.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace sb {

struct PreparedSecrets {
    std::shared_ptr<TlsInterceptor> interceptor; // null: the policy names no secret in use
    std::vector<std::string> notes;              // for the start's messages
};

// Reads the policy's secrets from `environment` (the supervisor's) and the host, and makes
// `config` show the sandbox placeholders only: a variable a secret names never passes from the
// host, and no variable of the sandbox keeps a secret's value. Files go to `sessionDir`/tls.
Result<PreparedSecrets> prepareSecrets(const Policy& policy,
                                       const std::vector<std::string>& environment,
                                       const std::string& sessionId, SandboxConfig& config);

// The variables that point programs at the sandbox's trust bundle.
inline constexpr const char* kTrustVariables[] = {"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS",
                                                  "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                                                  "GIT_SSL_CAINFO"};
// Where the sandbox sees it: over Debian's bundle.
inline constexpr const char* kSystemBundle = "/etc/ssl/certs/ca-certificates.crt";

} // namespace sb
