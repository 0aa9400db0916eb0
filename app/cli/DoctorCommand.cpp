#include "Commands.h"
#include "base/AtomicFile.h"
#include "base/Bytes.h"
#include "e2b/E2bApi.h"
#include "image/ArchiveLibrary.h"
#include "image/ImageStore.h"
#include "network/SessionCa.h"
#include "sandbox/Doctor.h"
#include "secrets/SecretValues.h"

#include <memory>
#include <nlohmann/json.hpp>

namespace sbcli {
namespace {

// The images a policy's filesystem.root may name, and whether they can be imported here.
sb::DoctorCheck imagesCheck()
{
    sb::DoctorCheck c;
    c.name = "images";
    c.required = false;
    auto archive = sb::loadArchive();
    c.ok = static_cast<bool>(archive);
    auto images = sb::listImages();
    std::string names;
    if (images)
        for (const sb::ImageInfo& i : *images)
            names += (names.empty() ? "" : ", ") + i.name;
    c.detail = names.empty() ? "none imported (image import NAME FOLDER|FILE.tar)"
                             : std::to_string(images->size()) + " imported: " + names;
    if (!archive) {
        c.detail = "cannot import: " + archive.error().describe() + "; " + c.detail;
        c.fix = "sudo apt install libarchive13";
    }
    return c;
}

// Secrets (docs/secrets.md): the TLS termination is always there; the keyring source needs
// libsecret.
sb::DoctorCheck secretsCheck()
{
    sb::DoctorCheck c;
    c.name = "secrets";
    c.required = false;
    const sb::Status keyring = sb::keyringLibrary();
    c.ok = !keyring;
    c.detail = "TLS termination with " + sb::openSslVersion() + "; keyring source: " +
               (keyring ? "unavailable (" + keyring->describe() + ")"
                        : std::string("libsecret (the desktop's Secret Service)"));
    if (keyring) c.fix = "sudo apt install libsecret-1-0 (only secrets read from the keyring)";
    return c;
}

// E2B's getHost(port) names (docs/e2b.md, "Ports"): whether programs that ask the system's
// resolver find them; curl and browsers know *.localhost themselves. No name is looked up.
sb::DoctorCheck portNamesCheck()
{
    sb::DoctorCheck c;
    c.name = "port names";
    c.required = false;
    c.ok = sb::e2b::localhostNamesResolve(sb::readWholeFile("/etc/nsswitch.conf"));
    c.detail = c.ok ? "*.localhost is this machine for every program: E2B's getHost(port) names "
                      "reach serve"
                    : "this machine's resolver does not know *.localhost: E2B's getHost(port) "
                      "names reach serve from curl and browsers only";
    if (!c.ok) c.fix = "sudo apt install libnss-myhostname (it adds myhostname to nsswitch.conf)";
    return c;
}

} // namespace

void addDoctorCommand(CLI::App& app)
{
    auto json = std::make_shared<bool>(false);
    CLI::App* doctor = app.add_subcommand(
        "doctor", "Check what this machine's kernel offers the sandbox and how to fix gaps");
    doctor->add_flag("--json", *json, "Output as JSON");
    doctor->callback([json] {
        auto checks = sb::runDoctor();
        checks.push_back(imagesCheck());
        checks.push_back(secretsCheck());
        checks.push_back(portNamesCheck());
        bool usable = true;
        nlohmann::json out = nlohmann::json::array();
        for (const auto& c : checks) {
            usable = usable && (c.ok || !c.required);
            out.push_back({{"name", c.name},
                           {"ok", c.ok},
                           {"required", c.required},
                           {"detail", c.detail},
                           {"fix", c.fix}});
            if (*json) continue;
            const char* mark = c.ok ? "ok     " : (c.required ? "MISSING" : "limited");
            std::printf("%s %-15s %s\n", mark, c.name.c_str(), c.detail.c_str());
            if (!c.ok) std::printf("        %-15s fix: %s\n", "", c.fix.c_str());
        }
        if (*json)
            std::printf("%s\n", sb::dumpJson(out, 2).c_str());
        else
            std::printf("%s\n", usable ? "Sandboxes can run on this machine."
                                       : "Sandboxes cannot run here until the MISSING items are "
                                         "fixed; 'run' refuses to start a weaker sandbox.");
        exitWith(usable ? 0 : kFailure);
    });
}

} // namespace sbcli
