#include "supervision/SessionSecrets.h"

#include "base/AtomicFile.h"
#include "sandbox/Environment.h"
#include "secrets/SecretValues.h"

#include <algorithm>
#include <sstream>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace sb {

namespace {

void removeVariable(std::vector<std::string>& env, const std::string& name)
{
    std::erase_if(env, [&](const std::string& entry) {
        return entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=';
    });
}

// "~/x" as the sandbox sees it (its home), or the absolute path as written.
fs::path insidePath(const std::string& written, const fs::path& home)
{
    return written.starts_with("~/") ? home / written.substr(2) : fs::path(written);
}

bool within(const fs::path& path, const fs::path& folder)
{
    const fs::path rel = path.lexically_normal().lexically_relative(folder.lexically_normal());
    return !rel.empty() && rel.begin()->string() != "..";
}

} // namespace

Result<PreparedSecrets> prepareSecrets(const Policy& policy,
                                       const std::vector<std::string>& environment,
                                       const std::string& sessionId, SandboxConfig& config)
{
    PreparedSecrets out;
    if (policy.secrets.empty()) return out;
    // A variable a secret names never passes from the host, whatever env.pass says.
    for (const SecretSpec& spec : policy.secrets)
        if (!spec.env.empty()) removeVariable(config.env, spec.env);
    auto read = readSecrets(policy.secrets, environment);
    if (!read) return read.error();
    out.notes = std::move(read->notes);
    if (read->secrets.empty()) return out;
    if (policy.network.mode != NetworkMode::Filtered)
        out.notes.push_back("warning: secrets reach their hosts only through the proxy (network "
                            "mode filtered); in mode " +
                            std::string(toString(policy.network.mode)) +
                            " programs send the placeholders unchanged");

    const fs::path folder = config.sessionDir / "tls";
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) return Error{ErrorCode::System, ec.value(), "cannot create " + folder.string()};
    ::chmod(folder.c_str(), 0755);
    AtomicWriteOptions readable;
    readable.newFileMode = 0644; // the sandbox's user reads them as root's sandbox runs as nobody
    readable.durable = false;

    for (const ResolvedSecret& secret : read->secrets) {
        if (!secret.spec.env.empty()) setVariable(config.env, secret.spec.env, secret.placeholder);
        if (secret.spec.file.empty()) continue;
        const fs::path target = insidePath(secret.spec.file, config.home);
        if (within(target, config.projectInside))
            return inputError("secret '" + secret.spec.name + "': its file " + target.string() +
                              " is inside the workspace (expected a path outside it, such as "
                              "\"~/.config/…\")");
        const fs::path source = folder / (secret.spec.name + ".placeholder");
        if (auto e = writeFileAtomically(source, secret.placeholder + "\n", readable)) return *e;
        config.files.push_back({source, target});
    }
    // No variable keeps a value, under whatever name it passed.
    for (std::string& entry : config.env) {
        const std::size_t equals = entry.find('=');
        std::string value = entry.substr(equals + 1);
        for (const ResolvedSecret& secret : read->secrets)
            if (value.find(secret.value) != std::string::npos) {
                SecretScan({secret}).hideValues(value);
                entry = entry.substr(0, equals + 1) + value;
            }
    }

    TlsInterceptor::Options options;
    options.secrets = read->secrets;
    options.modelTokens = policy.limits.modelTokens;
    options.modelRequests = policy.limits.modelRequests;
    auto interceptor = TlsInterceptor::create(std::move(options), sessionId);
    if (!interceptor) return interceptor.error().within("the secrets' TLS termination");
    // The sandbox trusts this machine's CAs and the session's own.
    std::string bundle = readWholeFile(config.systemRoot / fs::path(kSystemBundle).relative_path());
    if (!bundle.empty() && bundle.back() != '\n') bundle += '\n';
    bundle += (*interceptor)->caCertificatePem();
    const fs::path bundleFile = folder / "ca-bundle.pem";
    if (auto e = writeFileAtomically(bundleFile, bundle, readable)) return *e;
    fs::path seen = kSystemBundle;
    if (!fs::exists(config.systemRoot / seen.relative_path(), ec))
        seen = config.home / ".sandbench-ca-bundle.pem";
    config.files.push_back({bundleFile, seen});
    for (const char* variable : kTrustVariables)
        setVariable(config.env, variable, seen.string());
    out.interceptor = std::move(*interceptor);
    return out;
}

} // namespace sb
