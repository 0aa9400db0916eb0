// A certificate authority of one session, for the proxy's TLS termination of the hosts a secret
// names (TlsIntercept.h): made when the session starts, its private key only in the
// supervisor's memory, its certificate trusted inside that sandbox only (the CA bundle the
// sandbox sees). It issues a certificate per host on first use. OpenSSL 3.
#pragma once

#include "base/Error.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

using SSL_CTX = struct ssl_ctx_st;

namespace sb {

class SessionCa {
  public:
    // `label` names the session in the certificate's subject ("Sandbench session LABEL").
    static Result<std::unique_ptr<SessionCa>> create(const std::string& label);
    ~SessionCa();
    SessionCa(const SessionCa&) = delete;
    SessionCa& operator=(const SessionCa&) = delete;

    // The CA's certificate, PEM.
    const std::string& certificatePem() const { return m_pem; }

    // A server context presenting a certificate for `host` (a name or an IP address), issued by
    // this CA: TLS 1.2 and later, ALPN http/1.1 only. Thread-safe; contexts are cached, and
    // stay valid as long as the SessionCa.
    Result<SSL_CTX*> serverContext(const std::string& host);

    struct Keys;

  private:
    SessionCa() = default;
    std::unique_ptr<Keys> m_keys;
    std::string m_pem;
    std::mutex m_mutex;
    std::unordered_map<std::string, SSL_CTX*> m_contexts;
    long m_serial = 1;
};

// The OpenSSL Sandbench runs with ("OpenSSL 3.0.19 1 Oct 2024"), for `doctor`.
std::string openSslVersion();

// OpenSSL's last error, as text ("error:0A000086:SSL routines::certificate verify failed").
std::string openSslError();

} // namespace sb
