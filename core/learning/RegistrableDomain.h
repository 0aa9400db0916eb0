// What part of a host name one owner controls, from the public suffix list (Debian's libpsl
// with its `publicsuffix` data): "docs.python.org" → "python.org", "a.b.github.io" →
// "b.github.io". For generalising observed hosts into rules.
#pragma once

#include "base/Error.h"

#include <optional>
#include <string>
#include <string_view>

namespace sb {

struct RegistrableDomain {
    std::string domain; // the registrable domain, by every rule of the list
    // It is one party's name on a platform that hands out names to many (the list's private
    // section: github.io, herokuapp.com…). `domain` is then that party's (b.github.io); the
    // platform's own domain, which would reach everyone's names, is never the answer.
    bool tenant = false;
};

// nullopt for an IP address, a public suffix itself, or a name the list cannot place; an
// error when libpsl cannot be opened.
Result<std::optional<RegistrableDomain>> registrableDomain(std::string_view normalisedHost);

} // namespace sb
