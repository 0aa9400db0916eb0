#include "network/TlsStream.h"

#include "network/SessionCa.h"
#include "policy/NetworkRules.h"

#include <algorithm>
#include <cerrno>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <unistd.h>

namespace sb {

namespace {

constexpr int kWriteBuffer = 256 * 1024;

int millisecondsUntil(TlsStream::Deadline deadline)
{
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::clamp<long long>(left.count(), 0, 1'000'000));
}

Result<SSL*> newSsl(SSL_CTX* ctx, int fd, BIO*& input)
{
    SSL* ssl = SSL_new(ctx);
    if (ssl == nullptr) return Error{ErrorCode::Internal, 0, "TLS: " + openSslError()};
    input = BIO_new(BIO_s_mem());
    // Records are gathered and sent together (write() flushes): one send() for a batch of
    // records rather than one for each 16 KiB record.
    BIO* output = BIO_new(BIO_f_buffer());
    BIO* socket = BIO_new_socket(fd, BIO_NOCLOSE);
    if (input == nullptr || output == nullptr || socket == nullptr ||
        BIO_set_write_buffer_size(output, kWriteBuffer) != 1) {
        BIO_free(input);
        BIO_free(output);
        BIO_free(socket);
        SSL_free(ssl);
        return Error{ErrorCode::Internal, 0, "TLS: " + openSslError()};
    }
    BIO_push(output, socket);
    BIO_set_mem_eof_return(input, -1); // empty: "try again", until the socket ends
    SSL_set_bio(ssl, input, output);
    return ssl;
}

} // namespace

Result<TlsStream> TlsStream::server(SSL_CTX* ctx, int fd, std::string_view preRead)
{
    BIO* input = nullptr;
    auto ssl = newSsl(ctx, fd, input);
    if (!ssl) return ssl.error();
    if (!preRead.empty()) BIO_write(input, preRead.data(), static_cast<int>(preRead.size()));
    SSL_set_accept_state(*ssl);
    return TlsStream(*ssl, input, fd);
}

Result<TlsStream> TlsStream::client(SSL_CTX* ctx, int fd, const std::string& verifyHost)
{
    BIO* input = nullptr;
    auto ssl = newSsl(ctx, fd, input);
    if (!ssl) return ssl.error();
    TlsStream stream(*ssl, input, fd);
    SSL_set_verify(*ssl, SSL_VERIFY_PEER, nullptr);
    const bool address = ipLiteral(verifyHost).has_value();
    X509_VERIFY_PARAM* param = SSL_get0_param(*ssl);
    const int set = address ? X509_VERIFY_PARAM_set1_ip_asc(param, verifyHost.c_str())
                            : SSL_set1_host(*ssl, verifyHost.c_str());
    if (set != 1 ||
        (!address && SSL_ctrl(*ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                              const_cast<char*>(verifyHost.c_str())) != 1))
        return Error{ErrorCode::Internal, 0,
                     "TLS: cannot verify " + verifyHost + ": " + openSslError()};
    SSL_set_connect_state(*ssl);
    return stream;
}

TlsStream::TlsStream(TlsStream&& other) noexcept
    : m_ssl(other.m_ssl), m_input(other.m_input), m_fd(other.m_fd), m_eof(other.m_eof)
{
    other.m_ssl = nullptr;
    other.m_input = nullptr;
}

TlsStream::~TlsStream()
{
    if (m_ssl != nullptr) SSL_free(m_ssl);
}

Status TlsStream::wait(int error, Deadline deadline, const char* doing)
{
    if (error == SSL_ERROR_WANT_WRITE) {
        pollfd p{m_fd, POLLOUT, 0};
        const int ready = ::poll(&p, 1, millisecondsUntil(deadline));
        if (ready == 0) return inputError(std::string("timed out while ") + doing);
        if (ready < 0 && errno != EINTR) return sysError(doing);
        return {};
    }
    if (error != SSL_ERROR_WANT_READ) {
        if (error == SSL_ERROR_SYSCALL && errno != 0) return sysError(doing);
        return Error{ErrorCode::System, 0, std::string(doing) + ": " + openSslError()};
    }
    if (m_eof) return Error{ErrorCode::System, 0, std::string(doing) + ": the peer closed"};
    for (;;) {
        char buffer[65536];
        const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
        if (n > 0) {
            BIO_write(m_input, buffer, static_cast<int>(n));
            return {};
        }
        if (n == 0) {
            m_eof = true;
            BIO_set_mem_eof_return(m_input, 0); // now an end of stream to OpenSSL
            return {};
        }
        if (errno == EINTR) continue;
        if (errno != EAGAIN) return sysError(doing);
        pollfd p{m_fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, millisecondsUntil(deadline));
        if (ready == 0) return inputError(std::string("timed out while ") + doing);
        if (ready < 0 && errno != EINTR) return sysError(doing);
    }
}

Status TlsStream::handshake(Deadline deadline)
{
    for (;;) {
        ERR_clear_error();
        const int rc = SSL_do_handshake(m_ssl);
        if (rc == 1) return {};
        const int error = SSL_get_error(m_ssl, rc);
        if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
            const std::string problem = verifyProblem();
            if (!problem.empty()) return inputError(problem);
            return Error{ErrorCode::System, 0, "TLS handshake: " + openSslError()};
        }
        if (auto e = wait(error, deadline, "the TLS handshake")) return e;
    }
}

Result<std::size_t> TlsStream::read(char* into, std::size_t size, Deadline deadline)
{
    for (;;) {
        ERR_clear_error();
        std::size_t got = 0;
        if (SSL_read_ex(m_ssl, into, size, &got) == 1) return got;
        const int error = SSL_get_error(m_ssl, 0);
        if (error == SSL_ERROR_ZERO_RETURN) return std::size_t{0};
        // An end without close_notify ends the stream too (many servers skip it); HTTP's own
        // framing says whether a message was cut.
        if (error == SSL_ERROR_SSL && m_eof) return std::size_t{0};
        if (error == SSL_ERROR_SYSCALL && m_eof) return std::size_t{0};
        if (auto e = wait(error, deadline, "reading")) return *e;
    }
}

bool TlsStream::wholeRecordHeld() const
{
    if (SSL_pending(m_ssl) > 0) return true;
    // OpenSSL reads a record's header and then its body, so the read BIO starts at a record.
    char* data = nullptr;
    const long held = BIO_get_mem_data(m_input, &data);
    if (held < 5) return false;
    const auto* header = reinterpret_cast<const unsigned char*>(data);
    return held >= 5 + ((header[3] << 8) | header[4]);
}

bool TlsStream::hasRecord()
{
    if (wholeRecordHeld()) return true;
    if (m_eof) return false;
    char buffer[65536];
    const ssize_t n = ::read(m_fd, buffer, sizeof buffer); // the socket does not block
    if (n > 0) {
        BIO_write(m_input, buffer, static_cast<int>(n));
        return wholeRecordHeld();
    }
    if (n == 0) {
        m_eof = true;
        BIO_set_mem_eof_return(m_input, 0);
    }
    return false;
}

bool TlsStream::readable() const
{
    if (SSL_pending(m_ssl) > 0 || BIO_ctrl_pending(m_input) > 0) return true;
    pollfd p{m_fd, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
}

Status TlsStream::write(std::string_view bytes, Deadline deadline)
{
    while (!bytes.empty()) {
        ERR_clear_error();
        std::size_t written = 0;
        if (SSL_write_ex(m_ssl, bytes.data(), bytes.size(), &written) == 1) {
            bytes.remove_prefix(written);
            continue;
        }
        if (auto e = wait(SSL_get_error(m_ssl, 0), deadline, "writing")) return e;
    }
    BIO* output = SSL_get_wbio(m_ssl);
    for (;;) {
        if (BIO_flush(output) == 1) return {};
        if (!BIO_should_retry(output)) return sysError("writing");
        if (auto e = wait(SSL_ERROR_WANT_WRITE, deadline, "writing")) return e;
    }
}

void TlsStream::close()
{
    ERR_clear_error();
    SSL_shutdown(m_ssl);
    BIO_flush(SSL_get_wbio(m_ssl)); // best effort, as the close_notify
}

std::string TlsStream::verifyProblem() const
{
    const long result = SSL_get_verify_result(m_ssl);
    if (result == X509_V_OK) return "";
    return X509_verify_cert_error_string(result);
}

} // namespace sb
