/* test-network PORT CMD [ARG...]: runs CMD in a network namespace of its own (and a user
 * namespace, for an unprivileged caller) where 198.18.0.1 and 2001:db8::1 are this machine's
 * own addresses and a tiny HTTP server answers on both at PORT: a destination the integration
 * tests may connect to that is not loopback, with nothing ever leaving the machine (198.18.0.0/15
 * is the benchmarking range, 2001:db8::/32 the documentation one). The server answers every
 * request with "HTTP/1.0 200 OK" and a body naming the address it was reached on, then closes.
 * In a mount namespace of its own, /etc/hosts names them: api.test.example (both addresses) and
 * other.test.example (198.18.0.1), for the sandbox's resolver to find on the "host", and the names
 * in TEST_NETWORK_NAMES (space-separated) for 198.18.0.1 too, for a test that plays several
 * hosts. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

struct in6_ifreq_compat {
    struct in6_addr addr;
    unsigned prefixlen;
    int ifindex;
};

static void die(const char* what)
{
    fprintf(stderr, "test-network: %s: %s\n", what, strerror(errno));
    exit(125);
}

static void writeFile(const char* path, const char* text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) die(path);
    close(fd);
}

static void ownNamespaces(void)
{
    if (geteuid() == 0) {
        if (unshare(CLONE_NEWNET | CLONE_NEWNS) != 0) die("unshare network and mount namespaces");
        return;
    }
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS) != 0)
        die("unshare user, network and mount namespaces");
    char map[64];
    writeFile("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
    writeFile("/proc/self/uid_map", map);
    snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
    writeFile("/proc/self/gid_map", map);
}

/* The hosts file bound over /etc/hosts: removed by the server when the command ends (a file
 * unlinked while bound would be a mount point nothing can be bound over again). */
static char hostsPath[] = "/tmp/test-network-hosts-XXXXXX";

static void removeHostsFile(int sig)
{
    (void)sig;
    unlink(hostsPath);
    _exit(0);
}

static void nameAddresses(void)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) die("make mounts private");
    const char* more = getenv("TEST_NETWORK_NAMES");
    char hosts[4096];
    int length = snprintf(hosts, sizeof hosts,
                          "127.0.0.1 localhost\n::1 localhost\n"
                          "198.18.0.1 api.test.example other.test.example %s\n"
                          "2001:db8::1 api.test.example\n",
                          more != NULL ? more : "");
    if (length < 0 || (size_t)length >= sizeof hosts || strchr(more ? more : "", '\n') != NULL) {
        fprintf(stderr, "test-network: TEST_NETWORK_NAMES is too long or has a line break\n");
        exit(125);
    }
    char* path = hostsPath;
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, hosts, strlen(hosts)) != (ssize_t)strlen(hosts)) die(path);
    fchmod(fd, 0644);
    close(fd);
    if (mount(path, "/etc/hosts", NULL, MS_BIND, NULL) != 0) die("bind /etc/hosts");
}

static void addAddresses(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq req;
    memset(&req, 0, sizeof req);
    strcpy(req.ifr_name, "lo");
    if (ioctl(fd, SIOCGIFFLAGS, &req) != 0) die("loopback flags");
    req.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(fd, SIOCSIFFLAGS, &req) != 0) die("bring up loopback");
    memset(&req, 0, sizeof req);
    strcpy(req.ifr_name, "lo:1");
    struct sockaddr_in* in = (struct sockaddr_in*)&req.ifr_addr;
    in->sin_family = AF_INET;
    inet_pton(AF_INET, "198.18.0.1", &in->sin_addr);
    if (ioctl(fd, SIOCSIFADDR, &req) != 0) die("add 198.18.0.1");
    inet_pton(AF_INET, "255.255.255.255", &in->sin_addr);
    if (ioctl(fd, SIOCSIFNETMASK, &req) != 0) die("netmask of 198.18.0.1");
    close(fd);

    int fd6 = socket(AF_INET6, SOCK_DGRAM, 0);
    struct in6_ifreq_compat req6;
    memset(&req6, 0, sizeof req6);
    inet_pton(AF_INET6, "2001:db8::1", &req6.addr);
    req6.prefixlen = 128;
    req6.ifindex = (int)if_nametoindex("lo");
    if (fd6 < 0 || ioctl(fd6, SIOCSIFADDR, &req6) != 0) die("add 2001:db8::1");
    close(fd6);
}

static int listenOn(int family, const char* address, int port)
{
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t length;
    if (family == AF_INET) {
        struct sockaddr_in* in = (struct sockaddr_in*)&ss;
        in->sin_family = AF_INET;
        in->sin_port = htons((unsigned short)port);
        inet_pton(AF_INET, address, &in->sin_addr);
        length = sizeof *in;
    } else {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        struct sockaddr_in6* in6 = (struct sockaddr_in6*)&ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((unsigned short)port);
        inet_pton(AF_INET6, address, &in6->sin6_addr);
        length = sizeof *in6;
    }
    /* A fresh IPv6 address is "tentative" for a moment (duplicate address detection). */
    for (int tries = 0; bind(fd, (struct sockaddr*)&ss, length) != 0; ++tries) {
        if (errno != EADDRNOTAVAIL || tries > 200) die(address);
        usleep(10000);
    }
    if (listen(fd, 1024) != 0) die("listen");
    return fd;
}

/* One request: read until the end of the head (or the peer stops sending), answer, close. */
static void answer(int fd, const char* reachedOn)
{
    char buf[4096];
    size_t have = 0;
    struct pollfd p = {fd, POLLIN, 0};
    while (have < sizeof buf - 1 && poll(&p, 1, 2000) == 1) {
        ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
        if (n <= 0) break;
        have += (size_t)n;
        buf[have] = '\0';
        if (strstr(buf, "\r\n\r\n") != NULL || strchr(buf, '\n') != NULL) break;
    }
    char body[128], reply[512];
    snprintf(body, sizeof body, "hello from %s\n", reachedOn);
    int n = snprintf(reply, sizeof reply,
                     "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n%s",
                     strlen(body), body);
    if (write(fd, reply, (size_t)n) < 0) return;
    shutdown(fd, SHUT_WR);
    while (poll(&p, 1, 1000) == 1 && read(fd, buf, sizeof buf) > 0) {
    }
}

static void serve(int v4, int v6)
{
    signal(SIGTERM, removeHostsFile);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    signal(SIGCHLD, SIG_IGN);
    struct pollfd fds[2] = {{v4, POLLIN, 0}, {v6, POLLIN, 0}};
    for (;;) {
        if (poll(fds, 2, -1) < 0) continue;
        for (int i = 0; i < 2; ++i) {
            if (!(fds[i].revents & POLLIN)) continue;
            int c = accept4(fds[i].fd, NULL, NULL, SOCK_CLOEXEC);
            if (c < 0) continue;
            if (fork() == 0) {
                answer(c, i == 0 ? "198.18.0.1" : "2001:db8::1");
                _exit(0);
            }
            close(c);
        }
    }
}

int main(int argc, char** argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test-network PORT CMD [ARG...]\n");
        return 2;
    }
    int port = atoi(argv[1]);
    ownNamespaces();
    nameAddresses();
    addAddresses();
    int v4 = listenOn(AF_INET, "198.18.0.1", port);
    int v6 = listenOn(AF_INET6, "2001:db8::1", port);
    pid_t server = fork();
    if (server < 0) die("fork");
    if (server == 0) serve(v4, v6);
    close(v4);
    close(v6);
    execvp(argv[2], argv + 2);
    die(argv[2]);
}
