// The desktop keyring through libsecret (the Secret Service over D-Bus: GNOME Keyring,
// KeePassXC, KWallet), opened when a policy first names a keyring item (base/LazyLibrary.h).
#include "base/LazyLibrary.h"
#include "secrets/SecretValues.h"

#include <cstring>
#include <libsecret/secret.h>

namespace sb {
namespace {

// libsecret's functions and the GLib ones it needs, found through libsecret's handle (GLib is
// its dependency).
#define SB_SECRET_FUNCTIONS(X)                                                                     \
    X(secret_password_lookupv_sync)                                                                \
    X(secret_password_searchv_sync)                                                                \
    X(secret_password_free)                                                                        \
    X(g_hash_table_new)                                                                            \
    X(g_hash_table_insert)                                                                         \
    X(g_hash_table_unref)                                                                          \
    X(g_str_hash)                                                                                  \
    X(g_str_equal)                                                                                 \
    X(g_list_free_full)                                                                            \
    X(g_object_unref)                                                                              \
    X(g_error_free)

struct SecretLibrary {
#define SB_SECRET_POINTER(name) decltype(&::name) name = nullptr;
    SB_SECRET_FUNCTIONS(SB_SECRET_POINTER)
#undef SB_SECRET_POINTER
};

SecretLibrary g_library;

// The soname Debian's libsecret-1-0 installs.
constexpr const char* kSoname = "libsecret-1.so.0";

SB_DEFINE_LAZY_LIBRARY(SecretLibrary, g_library, loadSecret, "libsecret", kSoname, 0, "",
                       SB_SECRET_FUNCTIONS)

constexpr std::size_t kMaxAttributes = 32; // SecretSchema's

} // namespace

Status keyringLibrary()
{
    auto lib = loadSecret();
    if (!lib) return lib.error();
    return {};
}

Result<std::string>
keyringLookup(const std::vector<std::pair<std::string, std::string>>& attributes)
{
    auto lib = loadSecret();
    if (!lib) return lib.error();
    if (attributes.empty() || attributes.size() > kMaxAttributes)
        return inputError("a keyring item is named by 1 to " + std::to_string(kMaxAttributes) +
                          " attributes");
    // Any item with these attributes, whatever schema stored it (secret-tool's, a browser's).
    SecretSchema schema{};
    schema.name = "org.freedesktop.Secret.Generic";
    schema.flags = SECRET_SCHEMA_DONT_MATCH_NAME;
    GHashTable* table = (*lib)->g_hash_table_new((*lib)->g_str_hash, (*lib)->g_str_equal);
    for (std::size_t i = 0; i < attributes.size(); ++i) {
        schema.attributes[i].name = attributes[i].first.c_str();
        schema.attributes[i].type = SECRET_SCHEMA_ATTRIBUTE_STRING;
        (*lib)->g_hash_table_insert(table, const_cast<char*>(attributes[i].first.c_str()),
                                    const_cast<char*>(attributes[i].second.c_str()));
    }
    GError* error = nullptr;
    gchar* found = (*lib)->secret_password_lookupv_sync(&schema, table, nullptr, &error);
    // A locked item is not found either: the keyring asked to unlock it and nobody did (no
    // desktop to show the prompt, or it was dismissed). Look again without unlocking to say so.
    bool locked = false;
    if (found == nullptr && error == nullptr) {
        GList* items = (*lib)->secret_password_searchv_sync(&schema, table, SECRET_SEARCH_ALL,
                                                            nullptr, nullptr);
        locked = items != nullptr;
        (*lib)->g_list_free_full(items, (*lib)->g_object_unref);
    }
    (*lib)->g_hash_table_unref(table);
    if (error != nullptr) {
        std::string why = error->message != nullptr ? error->message : "no detail";
        (*lib)->g_error_free(error);
        return Error{ErrorCode::Unsupported, 0, "the keyring could not be asked: " + why};
    }
    if (locked)
        return Error{ErrorCode::Unsupported, 0,
                     "the keyring is locked: its item could not be unlocked (unlock the keyring, "
                     "e.g. by logging in to the desktop, and start again)"};
    if (found == nullptr) return Error{ErrorCode::NotFound, 0, "no such item in the keyring"};
    std::string value(found);
    (*lib)->secret_password_free(found); // wipes it
    return value;
}

} // namespace sb
