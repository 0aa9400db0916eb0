/* exec_floor: the least a supervisor that sees every exec can add, as a reference for the
 * per-exec benchmarks (rows 2 and 2c of BENCHMARKS.md).
 *
 *   exec_floor [--cwd] COMMAND [ARGS...]      exit status: COMMAND's (128+N for signal N)
 *
 * Runs COMMAND on the host under a seccomp filter that stops each execve and execveat for a
 * user-notification listener, which this program answers at once, as Sandbench's supervisor
 * does for an allowed command: it reads the path, the argument pointers and the arguments with
 * three process_vm_readv calls, checks that the notification is still valid, and lets the exec
 * continue. With --cwd it also reads the working folder (/proc/PID/cwd) before answering, as
 * Sandbench does for every record. Synchronous wake-ups, and COMMAND runs as batch work, both
 * as in Sandbench's sandbox. No namespaces, no rules, no record: what Sandbench adds above this
 * is its own work. Needs no privileges (no_new_privs). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "exec_floor knows the audit architecture of x86-64 and arm64 only"
#endif

/* Linux 6.6; Debian 12's headers predate it. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif

enum { kWindow = 256, kMaxArgs = 64 };

/* Bytes from `address` to the end of its page, at most `limit`. */
static size_t toPageEnd(uint64_t address, size_t limit)
{
    size_t rest = 4096 - (address & 4095);
    return rest < limit ? rest : limit;
}

static ssize_t readRemote(pid_t pid, void* buf, size_t len, uint64_t address)
{
    struct iovec local = {buf, len}, remote = {(void*)(uintptr_t)address, len};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

/* What Sandbench's supervisor reads of a short command: the path, the argument pointers, then
 * a window of each argument in one call. */
static void readExec(const struct seccomp_notif* n)
{
    int at = n->data.nr == SYS_execveat;
    uint64_t path = n->data.args[at ? 1 : 0], argv = n->data.args[at ? 2 : 1];
    char buf[kMaxArgs * kWindow];
    uint64_t pointers[kMaxArgs];
    (void)readRemote((pid_t)n->pid, buf, toPageEnd(path, kWindow), path);
    ssize_t got = readRemote((pid_t)n->pid, pointers, toPageEnd(argv, sizeof pointers), argv);
    size_t count = 0, size = 0;
    struct iovec remote[kMaxArgs];
    while (got > 0 && count < (size_t)got / 8 && pointers[count] != 0) {
        remote[count].iov_base = (void*)(uintptr_t)pointers[count];
        remote[count].iov_len = toPageEnd(pointers[count], kWindow);
        size += remote[count].iov_len;
        ++count;
    }
    struct iovec local = {buf, size};
    if (count > 0) (void)process_vm_readv((pid_t)n->pid, &local, 1, remote, count, 0);
}

static int runChild(int sock, char** command)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof filter / sizeof filter[0], filter};
    struct sched_param param = {0};
    if (sched_setscheduler(0, SCHED_BATCH, &param) != 0) perror("exec_floor: SCHED_BATCH");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return perror("exec_floor: no_new_privs"), 126;
    int listener =
        (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (listener < 0) return perror("exec_floor: seccomp"), 126;
    /* Hand the listener to the parent, then wait until it listens. */
    char control[CMSG_SPACE(sizeof(int))] = {0};
    char byte = 0;
    struct iovec iov = {&byte, 1};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &listener, sizeof listener);
    if (sendmsg(sock, &msg, 0) != 1 || read(sock, &byte, 1) != 1) return 126;
    close(listener);
    close(sock);
    execvp(command[0], command);
    fprintf(stderr, "exec_floor: %s: %s\n", command[0], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}

static int receiveListener(int sock)
{
    char control[CMSG_SPACE(sizeof(int))] = {0};
    char byte;
    struct iovec iov = {&byte, 1};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1) return -1;
    struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
    if (c == NULL || c->cmsg_type != SCM_RIGHTS) return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

int main(int argc, char** argv)
{
    int readCwd = argc > 1 && strcmp(argv[1], "--cwd") == 0;
    char** command = argv + 1 + readCwd;
    if (command[0] == NULL) {
        fprintf(stderr, "usage: exec_floor [--cwd] COMMAND [ARGS...]\n");
        return 2;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return perror("socketpair"), 1;
    pid_t child = fork();
    if (child < 0) return perror("fork"), 1;
    if (child == 0) _exit(runChild(sv[1], command));
    close(sv[1]);
    int listener = receiveListener(sv[0]);
    if (listener < 0) {
        fprintf(stderr, "exec_floor: no seccomp listener from the child\n");
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        return 1;
    }
    (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, 1UL); /* synchronous wake-ups, >= 6.6 */
    if (write(sv[0], "", 1) != 1) return 1;
    close(sv[0]);
    for (;;) {
        struct pollfd p = {listener, POLLIN, 0};
        if (poll(&p, 1, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (!(p.revents & POLLIN)) break; /* POLLHUP: no process under the filter is left */
        struct seccomp_notif n;
        memset(&n, 0, sizeof n);
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &n) != 0) continue; /* gone meanwhile */
        readExec(&n);
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n.id) != 0) continue;
        if (readCwd) {
            char link[32], cwd[PATH_MAX];
            snprintf(link, sizeof link, "/proc/%u/cwd", n.pid);
            (void)!readlink(link, cwd, sizeof cwd);
        }
        struct seccomp_notif_resp resp;
        memset(&resp, 0, sizeof resp);
        resp.id = n.id;
        resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
    }
    int status = 0;
    if (waitpid(child, &status, 0) < 0) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
