#include "network/SessionCa.h"

#include "policy/NetworkRules.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace sb {

namespace {

constexpr long kValidSeconds = 30L * 86400; // longer than any session: 30 days
constexpr long kBackdateSeconds = 3600;     // a sandbox's clock a little behind still trusts it

struct KeyFree {
    void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
    void operator()(X509* c) const { X509_free(c); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

Result<Key> newKey()
{
    Key key(EVP_EC_gen("P-256"));
    if (!key) return Error{ErrorCode::Internal, 0, "cannot make a key: " + openSslError()};
    return key;
}

bool addExtension(X509* cert, X509* issuer, int nid, const std::string& value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (ext == nullptr) return false;
    const bool ok = X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    return ok;
}

// A certificate for `subject` with `publicKey`, signed by `signer` (itself when `issuer` is
// null), with the extensions given as (nid, value) pairs.
Result<Cert> makeCertificate(const std::string& subject, long serial, EVP_PKEY* publicKey,
                             X509* issuer, EVP_PKEY* signer,
                             std::initializer_list<std::pair<int, std::string>> extensions)
{
    Cert cert(X509_new());
    if (!cert) return Error{ErrorCode::Internal, 0, "cannot make a certificate"};
    X509_set_version(cert.get(), 2);
    // Random serials: a client that cached a certificate of an earlier session by issuer and
    // serial must not mistake this one for it.
    unsigned char random[8];
    RAND_bytes(random, sizeof random);
    BIGNUM* bn = BN_bin2bn(random, sizeof random, nullptr);
    BN_set_word(bn, BN_get_word(bn) ^ static_cast<BN_ULONG>(serial));
    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
    BN_free(bn);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kBackdateSeconds);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValidSeconds);
    X509_set_pubkey(cert.get(), publicKey);
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>("Sandbench"), -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(subject.c_str()), -1, -1, 0);
    X509* issuing = issuer != nullptr ? issuer : cert.get();
    X509_set_issuer_name(cert.get(), X509_get_subject_name(issuing));
    for (const auto& [nid, value] : extensions)
        if (!addExtension(cert.get(), issuing, nid, value))
            return Error{ErrorCode::Internal, 0,
                         "cannot add a certificate extension: " + openSslError()};
    if (X509_sign(cert.get(), signer, EVP_sha256()) == 0)
        return Error{ErrorCode::Internal, 0, "cannot sign a certificate: " + openSslError()};
    return cert;
}

int selectHttp11(SSL*, const unsigned char** out, unsigned char* outLength, const unsigned char* in,
                 unsigned int inLength, void*)
{
    // Only HTTP/1.1 is read inside a terminated connection: a client that offers it gets it;
    // one that does not gets no ALPN (and speaks HTTP/1.1 by default).
    static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    unsigned char* selected = nullptr;
    if (SSL_select_next_proto(&selected, outLength, kHttp11, sizeof kHttp11, in, inLength) !=
        OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

} // namespace

struct SessionCa::Keys {
    Key caKey, leafKey; // one key for every host's certificate of the session
    Cert caCert;
};

std::string openSslVersion()
{
    return OpenSSL_version(OPENSSL_VERSION);
}

std::string openSslError()
{
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) return "no detail from OpenSSL";
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    return text;
}

Result<std::unique_ptr<SessionCa>> SessionCa::create(const std::string& label)
{
    std::unique_ptr<SessionCa> ca(new SessionCa);
    ca->m_keys = std::make_unique<Keys>();
    auto caKey = newKey();
    if (!caKey) return caKey.error();
    auto leafKey = newKey();
    if (!leafKey) return leafKey.error();
    auto cert =
        makeCertificate("Sandbench session " + label, 0, caKey->get(), nullptr, caKey->get(),
                        {{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                         {NID_key_usage, "critical,keyCertSign,cRLSign"},
                         {NID_subject_key_identifier, "hash"}});
    if (!cert) return cert.error();
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(bio, cert->get());
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    ca->m_pem.assign(data, static_cast<std::size_t>(size));
    BIO_free(bio);
    ca->m_keys->caKey = std::move(*caKey);
    ca->m_keys->leafKey = std::move(*leafKey);
    ca->m_keys->caCert = std::move(*cert);
    return ca;
}

SessionCa::~SessionCa()
{
    for (auto& [host, ctx] : m_contexts)
        SSL_CTX_free(ctx);
}

Result<SSL_CTX*> SessionCa::serverContext(const std::string& host)
{
    std::lock_guard lock(m_mutex);
    if (auto it = m_contexts.find(host); it != m_contexts.end()) return it->second;
    const bool address = ipLiteral(host).has_value();
    auto cert = makeCertificate(host, ++m_serial, m_keys->leafKey.get(), m_keys->caCert.get(),
                                m_keys->caKey.get(),
                                {{NID_basic_constraints, "critical,CA:FALSE"},
                                 {NID_key_usage, "critical,digitalSignature"},
                                 {NID_ext_key_usage, "serverAuth"},
                                 {NID_subject_alt_name, (address ? "IP:" : "DNS:") + host},
                                 {NID_authority_key_identifier, "keyid:always"}});
    if (!cert) return cert.error();
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    if (ctx == nullptr) return Error{ErrorCode::Internal, 0, "TLS: " + openSslError()};
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_alpn_select_cb(ctx, selectHttp11, nullptr);
    // The leaf alone: the sandbox trusts the CA from its bundle, so sending it is bytes only.
    if (SSL_CTX_use_certificate(ctx, cert->get()) != 1 ||
        SSL_CTX_use_PrivateKey(ctx, m_keys->leafKey.get()) != 1) {
        SSL_CTX_free(ctx);
        return Error{ErrorCode::Internal, 0, "TLS: " + openSslError()};
    }
    m_contexts.emplace(host, ctx);
    return ctx;
}

} // namespace sb
