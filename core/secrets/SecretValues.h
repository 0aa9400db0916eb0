// Reading secrets' values on the host (the supervisor's environment, a file, the desktop keyring
// through libsecret, a command's output) and making the placeholders the sandbox sees instead.
// A value lives in the supervisor's memory only: never in a message, a file or an event.
#pragma once

#include "base/Error.h"
#include "policy/Secrets.h"

#include <functional>
#include <string>
#include <vector>

namespace sb {

struct SecretsRead {
    std::vector<ResolvedSecret> secrets;
    // One line per optional secret left out ("secret 'anthropic': ANTHROPIC_API_KEY is not set;
    // left out"), for the start's notes.
    std::vector<std::string> notes;
};

// Reads every secret's value (`environment` is "NAME=value" entries: the supervisor's) and
// makes its placeholder. A required secret that cannot be read fails the whole with the reason,
// naming the secret and never the value.
Result<SecretsRead> readSecrets(const std::vector<SecretSpec>& specs,
                                const std::vector<std::string>& environment);

// A stand-in for `value`: the same length, its leading "sk-ant-api03-"-like prefix kept so that
// tools checking the shape accept it, the rest random letters and digits.
std::string makePlaceholder(const std::string& value);

// `text` with each secret's value replaced by "[secret NAME]": for any text that could carry a
// value where it must not go (an error from a command, a log line).
std::string redactSecrets(std::string text, const std::vector<ResolvedSecret>& secrets);

// Whether libsecret can be opened (the keyring source needs it), or why not; for `doctor`.
Status keyringLibrary();

// The desktop keyring's item with these attributes (libsecret, opened when first needed):
// its value, or NotFound, or why the keyring could not be asked.
Result<std::string>
keyringLookup(const std::vector<std::pair<std::string, std::string>>& attributes);

} // namespace sb
