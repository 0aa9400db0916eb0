/* tls_floor: the least any TLS-terminating relay adds on this machine, as the floor under rows
 * 10 and 10b of BENCHMARKS.md (tests/bench/secrets_bench.py compiles and runs it).
 *
 *   tls_floor LISTEN_ADDR PORT CERT KEY UPSTREAM_ADDR UPSTREAM_PORT CAFILE SERVER_NAME
 *
 * Accepts TCP on LISTEN_ADDR:PORT; for each connection a thread ends the client's TLS with
 * CERT/KEY while a second thread opens TLS to UPSTREAM_ADDR:UPSTREAM_PORT (SNI SERVER_NAME,
 * verified against CAFILE and that name), as Sandbench's proxy does (core/network/
 * TlsIntercept.cpp); then it copies bytes both ways, up to 256 KiB a read, until either side
 * ends. OpenSSL, one SSL_CTX per side made once, TCP_NODELAY; no HTTP read, nothing looked at
 * or changed, no logging: what the proxy adds above this is its own work. Runs until killed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { CHUNK = 256 * 1024 };

static SSL_CTX *agent_ctx;    /* the client's side: our certificate */
static SSL_CTX *upstream_ctx; /* the server's side: verified against CAFILE */
static struct sockaddr_in upstream;
static const char *server_name;

struct upstream_job {
    SSL *ssl;
    int ok;
};

static void no_delay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void *open_upstream(void *arg)
{
    struct upstream_job *job = arg;
    job->ok = 0;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    if (connect(fd, (struct sockaddr *)&upstream, sizeof upstream) != 0) {
        close(fd);
        return NULL;
    }
    no_delay(fd);
    job->ssl = SSL_new(upstream_ctx);
    SSL_set_fd(job->ssl, fd);
    SSL_set_tlsext_host_name(job->ssl, server_name);
    SSL_set1_host(job->ssl, server_name);
    job->ok = SSL_connect(job->ssl) == 1;
    return NULL;
}

/* Writes all of BUFFER[0..N) to TO, waiting while its socket is full. */
static int write_all(SSL *to, const char *buffer, int n)
{
    for (;;) {
        int wrote = SSL_write(to, buffer, n);
        if (wrote == n)
            return 1;
        int why = SSL_get_error(to, wrote);
        if (why != SSL_ERROR_WANT_WRITE && why != SSL_ERROR_WANT_READ)
            return 0;
        struct pollfd fd = {SSL_get_fd(to), why == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN, 0};
        poll(&fd, 1, -1);
    }
}

/* What FROM has (at most CHUNK) written to TO: 1 also when FROM had only a non-data record
 * (a session ticket), 0 when FROM ended or failed. */
static int pass(SSL *from, SSL *to, char *buffer)
{
    int n = SSL_read(from, buffer, CHUNK);
    if (n <= 0) {
        int why = SSL_get_error(from, n);
        return why == SSL_ERROR_WANT_READ || why == SSL_ERROR_WANT_WRITE;
    }
    return write_all(to, buffer, n);
}

/* Both sockets non-blocking: a read that finds no application data (a TLS 1.3 session
 * ticket) must not hold up the other direction. */
static void relay(SSL *a, SSL *b)
{
    char *buffer = malloc(CHUNK);
    fcntl(SSL_get_fd(a), F_SETFL, O_NONBLOCK);
    fcntl(SSL_get_fd(b), F_SETFL, O_NONBLOCK);
    struct pollfd fds[2] = {{SSL_get_fd(a), POLLIN, 0}, {SSL_get_fd(b), POLLIN, 0}};
    while (buffer) {
        fds[0].revents = fds[1].revents = 0;
        if (!SSL_pending(a) && !SSL_pending(b) && poll(fds, 2, -1) < 0)
            break;
        if ((SSL_pending(a) || fds[0].revents) && !pass(a, b, buffer))
            break;
        if ((SSL_pending(b) || fds[1].revents) && !pass(b, a, buffer))
            break;
    }
    free(buffer);
}

static void *serve(void *arg)
{
    int fd = (int)(long)arg;
    no_delay(fd);
    struct upstream_job job = {NULL, 0};
    pthread_t side;
    int started = pthread_create(&side, NULL, open_upstream, &job) == 0;
    SSL *agent = SSL_new(agent_ctx);
    SSL_set_fd(agent, fd);
    int agent_ok = SSL_accept(agent) == 1;
    if (started)
        pthread_join(side, NULL);
    if (agent_ok && job.ok)
        relay(agent, job.ssl);
    SSL_shutdown(agent);
    SSL_free(agent);
    if (job.ssl) {
        SSL_shutdown(job.ssl);
        close(SSL_get_fd(job.ssl));
        SSL_free(job.ssl);
    }
    close(fd);
    ERR_clear_error();
    return NULL;
}

static int address(const char *host, const char *port, struct sockaddr_in *out)
{
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons((unsigned short)atoi(port));
    return inet_pton(AF_INET, host, &out->sin_addr) == 1;
}

int main(int argc, char **argv)
{
    if (argc != 9) {
        fprintf(stderr, "usage: tls_floor LISTEN_ADDR PORT CERT KEY UPSTREAM_ADDR UPSTREAM_PORT"
                        " CAFILE SERVER_NAME\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    struct sockaddr_in here;
    if (!address(argv[1], argv[2], &here) || !address(argv[5], argv[6], &upstream)) {
        fprintf(stderr, "tls_floor: %s or %s is not an IPv4 address\n", argv[1], argv[5]);
        return 2;
    }
    server_name = argv[8];
    agent_ctx = SSL_CTX_new(TLS_server_method());
    upstream_ctx = SSL_CTX_new(TLS_client_method());
    if (!agent_ctx || !upstream_ctx || SSL_CTX_use_certificate_chain_file(agent_ctx, argv[3]) != 1
        || SSL_CTX_use_PrivateKey_file(agent_ctx, argv[4], SSL_FILETYPE_PEM) != 1
        || SSL_CTX_load_verify_locations(upstream_ctx, argv[7], NULL) != 1) {
        fprintf(stderr, "tls_floor: the certificate %s, key %s or CA file %s: ", argv[3],
                argv[4], argv[7]);
        ERR_print_errors_fp(stderr);
        return 1;
    }
    SSL_CTX_set_verify(upstream_ctx, SSL_VERIFY_PEER, NULL);
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (listener < 0 || bind(listener, (struct sockaddr *)&here, sizeof here) != 0
        || listen(listener, 1024) != 0) {
        perror("tls_floor: listening");
        return 1;
    }
    printf("listening\n");
    fflush(stdout);
    pthread_attr_t detached;
    pthread_attr_init(&detached);
    pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        pthread_t thread;
        if (pthread_create(&thread, &detached, serve, (void *)(long)fd) != 0)
            close(fd);
    }
}
