// One side of a terminated TLS connection (TlsIntercept.h): OpenSSL over a non-blocking socket,
// used by one thread as if it blocked, each call bounded by a deadline. Reads go through a
// memory BIO so that bytes the proxy read before the handshake (the agent's ClientHello right
// behind its CONNECT) come first; writes gather their records in a buffer sent before write()
// returns (a large write: one send() rather than one for every 16 KiB record).
#pragma once

#include "base/Error.h"

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

using SSL = struct ssl_st;
using SSL_CTX = struct ssl_ctx_st;
using BIO = struct bio_st;

namespace sb {

class TlsStream {
  public:
    using Deadline = std::chrono::steady_clock::time_point;

    // A server side presenting `ctx`'s certificate, or a client side verifying the peer as
    // `verifyHost` (a name or an IP address) against the host's trust store.
    static Result<TlsStream> server(SSL_CTX* ctx, int fd, std::string_view preRead);
    static Result<TlsStream> client(SSL_CTX* ctx, int fd, const std::string& verifyHost);
    TlsStream(TlsStream&& other) noexcept;
    TlsStream& operator=(TlsStream&&) = delete;
    ~TlsStream();

    Status handshake(Deadline deadline);
    // Up to `size` bytes; 0 at the peer's end of the stream.
    Result<std::size_t> read(char* into, std::size_t size, Deadline deadline);
    // Bytes available without waiting (decrypted or still encrypted in the BIO or socket).
    bool readable() const;
    // A whole record (or decrypted bytes) here, or on the socket without waiting: read()
    // returns at once.
    bool hasRecord();
    Status write(std::string_view bytes, Deadline deadline);
    void close(); // close_notify, best effort
    int fd() const { return m_fd; }
    // A client side's verification failure, in words ("certificate has expired"); else "".
    std::string verifyProblem() const;

  private:
    TlsStream(SSL* ssl, BIO* input, int fd) : m_ssl(ssl), m_input(input), m_fd(fd) {}
    // Waits for the socket as OpenSSL's `error` asks, feeding the read BIO.
    Status wait(int error, Deadline deadline, const char* doing);
    bool wholeRecordHeld() const;

    SSL* m_ssl = nullptr;
    BIO* m_input = nullptr; // owned by m_ssl
    int m_fd = -1;          // not owned
    bool m_eof = false;
};

} // namespace sb
