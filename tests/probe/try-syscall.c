/* try-syscall: calls syscalls the sandbox filters, each with an argument the kernel rejects,
 * and prints "NAME RESULT" per probe: "0" when the call succeeded, the errno's name when it
 * failed ("EPERM" usually means the filter said no, "EFAULT"/"EINVAL" that the kernel itself
 * looked at the call), or "KILLED" when a probe run in a child died of SIGSYS.
 *
 * Every probe must stay harmless with no filter at all, run as root: bad pointers point at a
 * PROT_NONE page, flags are invalid, magic numbers are wrong. A probe that can only succeed
 * (sockets) closes what it made.
 *
 *   try-syscall NAME [NAME...]    run the named probes in order
 *   try-syscall --list            print the probe names
 *   try-syscall --noop            exit 0 at once (spawned by the spawn_ok probe and by tests)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* An address no syscall can read or write: user space, mapped, inaccessible. */
static void* bad;

/* A probe returns 0 on success, a positive errno on failure, or -signal when the work ran in a
 * child that a signal killed. */
typedef int (*probe_fn)(void);

static int check(long rc) { return rc < 0 ? errno : 0; }

static int check_fd(int fd)
{
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}

/* Runs fn in a child, so a probe that the filter answers with SIGSYS does not end the run. */
static int in_child(int (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return errno;
    if (pid == 0) {
        /* A seccomp kill dumps core by default; nobody wants that file. */
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        _exit(fn());
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return errno;
    if (WIFSIGNALED(status))
        return -WTERMSIG(status);
    return WEXITSTATUS(status);
}

static int p_clone3(void) { return check(syscall(SYS_clone3, NULL, (size_t)0)); }

static int p_clone_newuser(void)
{
    /* The kernel refuses CLONE_NEWUSER together with CLONE_FS, so no child can come of it;
     * should one appear anyway, it leaves at once. */
    long rc = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | CLONE_FS | SIGCHLD), NULL, NULL,
                      NULL, 0UL);
    if (rc == 0)
        _exit(0);
    if (rc > 0) {
        waitpid((pid_t)rc, NULL, 0);
        return 0;
    }
    return errno;
}

/* CLONE_VFORK is not a flag unshare accepts: EINVAL, nothing unshared. */
static int p_unshare_newuser(void) { return check(unshare(CLONE_NEWUSER | CLONE_VFORK)); }
static int p_unshare_newns(void) { return check(unshare(CLONE_NEWNS | CLONE_VFORK)); }
static int p_setns(void) { return check(setns(-1, CLONE_NEWNS)); }
static int p_mount(void) { return check(syscall(SYS_mount, bad, bad, bad, 0UL, NULL)); }
static int p_umount(void) { return check(syscall(SYS_umount2, bad, 0xffffffffUL)); }
static int p_pivot_root(void) { return check(syscall(SYS_pivot_root, bad, bad)); }
static int p_chroot(void) { return check(syscall(SYS_chroot, bad)); }
static int p_open_tree(void) { return check(syscall(SYS_open_tree, -1, bad, 0xffffffffU)); }
static int p_fsopen(void) { return check(syscall(SYS_fsopen, bad, 0xffffffffU)); }

static int p_move_mount(void)
{
    return check(syscall(SYS_move_mount, -1, bad, -1, bad, 0xffffffffU));
}

static int p_mount_setattr(void)
{
    return check(syscall(SYS_mount_setattr, -1, bad, 0xffffffffU, bad, (size_t)0));
}

static int p_io_uring_setup(void) { return check(syscall(SYS_io_uring_setup, 1U, bad)); }
static int p_bpf(void) { return check(syscall(SYS_bpf, -1, bad, 8U)); }
static int p_userfaultfd(void) { return check(syscall(SYS_userfaultfd, 0xffffffffU)); }

static int p_perf_event_open(void)
{
    return check(syscall(SYS_perf_event_open, bad, 0, -1, -1, 0UL));
}

static int p_keyctl(void) { return check(syscall(SYS_keyctl, 0x7fffffff, 0UL, 0UL, 0UL, 0UL)); }
static int p_add_key(void) { return check(syscall(SYS_add_key, bad, bad, NULL, (size_t)0, 0)); }
static int p_request_key(void) { return check(syscall(SYS_request_key, bad, bad, NULL, 0)); }

static int p_ptrace(void)
{
    /* Not PTRACE_ATTACH: as root that would really stop the process. Peeking into a process we
     * do not trace fails with ESRCH and touches nothing. */
    return check(ptrace(PTRACE_PEEKDATA, getppid(), bad, NULL));
}

static int p_process_vm_readv(void)
{
    /* Flags must be 0: EINVAL before any memory is read. */
    return check(process_vm_readv(getppid(), bad, 1, bad, 1, 1UL));
}

static int p_process_vm_writev(void)
{
    return check(process_vm_writev(getppid(), bad, 1, bad, 1, 1UL));
}

static int p_kcmp(void) { return check(syscall(SYS_kcmp, getpid(), getpid(), 99, 0UL, 0UL)); }
static int p_pidfd_getfd(void) { return check(syscall(SYS_pidfd_getfd, -1, 0, 0U)); }

static int p_kexec_load(void)
{
    /* Too many segments and an unknown architecture: EINVAL. (Zero segments would unload the
     * loaded crash kernel.) */
    return check(syscall(SYS_kexec_load, 0UL, 1000UL, NULL, 0xffff0000UL));
}

static int p_kexec_file_load(void)
{
    return check(syscall(SYS_kexec_file_load, -1, -1, 0UL, NULL, 0xffffffffUL));
}

/* A zero-length module is not an ELF file: ENOEXEC. */
static int p_init_module(void) { return check(syscall(SYS_init_module, bad, 0UL, bad)); }
static int p_finit_module(void) { return check(syscall(SYS_finit_module, -1, bad, 0xffffffff)); }
static int p_delete_module(void) { return check(syscall(SYS_delete_module, bad, 0U)); }

static int p_reboot(void)
{
    /* Wrong magic numbers: EINVAL, checked before the command is looked at. */
    return check(syscall(SYS_reboot, 0, 0, 0x01234567, NULL));
}

static int p_swapon(void) { return check(syscall(SYS_swapon, bad, 0)); }
static int p_swapoff(void) { return check(syscall(SYS_swapoff, bad)); }
static int p_settimeofday(void) { return check(syscall(SYS_settimeofday, bad, bad)); }
static int p_clock_settime(void) { return check(syscall(SYS_clock_settime, CLOCK_REALTIME, bad)); }
static int p_clock_adjtime(void) { return check(syscall(SYS_clock_adjtime, CLOCK_REALTIME, bad)); }
static int p_adjtimex(void) { return check(syscall(SYS_adjtimex, bad)); }
/* acct(NULL) would switch accounting off; a bad name is EFAULT. */
static int p_acct(void) { return check(syscall(SYS_acct, bad)); }
static int p_syslog(void) { return check(syscall(SYS_syslog, 9999, NULL, 0)); }
static int p_sethostname(void) { return check(syscall(SYS_sethostname, bad, (size_t)1)); }
static int p_iopl(void) { return check(syscall(SYS_iopl, 99)); }
/* Ports past 0xffff: EINVAL before any permission is granted. */
static int p_ioperm(void) { return check(syscall(SYS_ioperm, 0x10000UL, 1UL, 1)); }

static int p_name_to_handle_at(void)
{
    return check(syscall(SYS_name_to_handle_at, AT_FDCWD, bad, bad, bad, 0xffffffff));
}

static int p_open_by_handle_at(void) { return check(syscall(SYS_open_by_handle_at, -1, bad, 0)); }
static int p_fanotify_init(void) { return check(syscall(SYS_fanotify_init, 0xffffffffU, 0U)); }

static int p_get_mempolicy(void)
{
    return check(syscall(SYS_get_mempolicy, NULL, NULL, 0UL, NULL, 0xffffffffUL));
}

static int p_personality_addr_no_randomize(void)
{
    int current = personality(0xffffffff);
    if (current < 0)
        return errno;
    if (personality((unsigned long)current | ADDR_NO_RANDOMIZE) < 0)
        return errno;
    personality((unsigned long)current);
    return 0;
}

/* The terminal ioctls point at the inaccessible page: even with no filter and a real terminal
 * on fd 0, the kernel fails to read the character (EFAULT) and injects nothing. */
static int p_tiocsti(void) { return check(ioctl(0, TIOCSTI, bad)); }

static int p_tiocsti_high(void)
{
    /* The kernel only reads the low 32 bits of cmd, so this is TIOCSTI too. */
    return check(syscall(SYS_ioctl, 0, (1UL << 32) | TIOCSTI, bad));
}

static int p_tioclinux(void) { return check(ioctl(0, TIOCLINUX, bad)); }
static int p_socket_packet(void) { return check_fd(socket(AF_PACKET, SOCK_RAW, 0)); }

static int p_socket_packet_high(void)
{
    /* The family is an int: bits above 31 are dropped by the kernel. */
    return check_fd((int)syscall(SYS_socket, (1UL << 32) | AF_PACKET, SOCK_RAW, 0));
}

static int p_socket_vsock(void) { return check_fd(socket(AF_VSOCK, SOCK_STREAM, 0)); }
static int p_socket_alg(void) { return check_fd(socket(AF_ALG, SOCK_SEQPACKET, 0)); }
static int p_socket_key(void) { return check_fd(socket(AF_KEY, SOCK_RAW, 2 /* PF_KEY_V2 */)); }

static int p_socket_netlink_audit(void)
{
    return check_fd(socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT));
}

static int p_socket_raw(void) { return check_fd(socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, 1)); }
static int p_socket_raw6(void) { return check_fd(socket(AF_INET6, SOCK_RAW, 58)); }
static int p_socket_inet_packet(void) { return check_fd(socket(AF_INET, SOCK_PACKET, 0x300)); }
static int p_socket_inet_ok(void) { return check_fd(socket(AF_INET, SOCK_STREAM, 0)); }
static int p_socket_unix_ok(void) { return check_fd(socket(AF_UNIX, SOCK_STREAM, 0)); }

static int p_socket_netlink_route_ok(void)
{
    return check_fd(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
}

static int p_socketpair_unix_ok(void)
{
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
        return errno;
    close(fds[0]);
    close(fds[1]);
    return 0;
}

static int p_socketpair_inet(void)
{
    int fds[2];
    if (socketpair(AF_INET, SOCK_STREAM, 0, fds) < 0)
        return errno;
    close(fds[0]);
    close(fds[1]);
    return 0;
}

static int p_personality_high_addr_no_randomize(void)
{
    /* personality takes an unsigned int: bits above 31 are dropped, the flag stays. */
    int current = personality(0xffffffff);
    if (current < 0)
        return errno;
    if (syscall(SYS_personality, (1UL << 32) | (unsigned long)current | ADDR_NO_RANDOMIZE) < 0)
        return errno;
    personality((unsigned long)current);
    return 0;
}

static int p_personality_query_ok(void) { return check(personality(0xffffffff)); }

static int p_personality_linux32_ok(void)
{
    int current = personality(0xffffffff);
    if (current < 0)
        return errno;
    if (personality(PER_LINUX32) < 0)
        return errno;
    return check(personality((unsigned long)current));
}

/* The ordinary ways of starting work must survive the filter: glibc tries clone3 for threads
 * and posix_spawn, and has to fall back to clone when it gets ENOSYS. */
static void* thread_body(void* arg) { return arg; }

static int p_thread_ok(void)
{
    pthread_t thread;
    int err = pthread_create(&thread, NULL, thread_body, NULL);
    if (err != 0)
        return err;
    return pthread_join(thread, NULL);
}

static int exit_zero(void) { return 0; }
static int p_fork_ok(void) { return in_child(exit_zero); }

/* Runs `path` with `argv` and an empty environment through posix_spawn, whose result carries
 * the exec's error; 0 once the program ran and exited 0. */
static int spawn(const char* path, char* const argv[])
{
    char* envp[] = {NULL};
    pid_t pid;
    int err = posix_spawn(&pid, path, NULL, NULL, argv, envp);
    if (err != 0)
        return err;
    int status = 0;
    if (waitpid(pid, &status, 0) < 0)
        return errno;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : ECHILD;
}

static int p_spawn_ok(void)
{
    char* argv[] = {"try-syscall", "--noop", NULL};
    return spawn("/proc/self/exe", argv);
}

/* Execs whose arguments the supervisor must read right. An argument pointer into the
 * inaccessible page: EFAULT, as the kernel says. */
static int p_exec_argv_bad(void)
{
    char* argv[] = {"true", bad, NULL};
    return spawn("/usr/bin/true", argv);
}

/* The program path and an argument that each start a few bytes before a page boundary and end
 * after it. A policy denying "true page-crossing-word" answers EPERM only if both were read
 * whole; otherwise true runs (0). */
static int p_exec_argv_page_cross(void)
{
    char* pages = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED)
        return errno;
    char* path = pages + 4096 - 5;
    strcpy(path, "/usr/bin/true");
    char* word = pages + 3 * 4096 - 4;
    strcpy(word, "page-crossing-word");
    char* argv[] = {"true", word, NULL};
    int err = spawn(path, argv);
    munmap(pages, 4 * 4096);
    return err;
}

static int p_ioctl_ok(void)
{
    int fds[2];
    if (pipe(fds) < 0)
        return errno;
    int queued = 0;
    int err = check(ioctl(fds[0], FIONREAD, &queued));
    close(fds[0]);
    close(fds[1]);
    return err;
}

#if defined(__x86_64__)
static int p_open_tree_attr(void)
{
    return check(syscall(467 /* open_tree_attr, Linux 6.15 */, -1, bad, 0xffffffffU, NULL, 0UL));
}

static int int80_getpid(void)
{
    long rc = 20; /* getpid in the i386 table */
    /* The 64-bit kernel clears r8-r11 on return from a 32-bit syscall. */
    __asm__ volatile("int $0x80" : "+a"(rc) : : "memory", "cc", "r8", "r9", "r10", "r11");
    return rc < 0 && rc > -4096 ? (int)-rc : 0;
}

static int x32_getpid(void) { return check(syscall(SYS_getpid | 0x40000000L)); }

static int p_int80(void) { return in_child(int80_getpid); }
static int p_x32(void) { return in_child(x32_getpid); }
#endif

struct probe {
    const char* name;
    probe_fn fn;
};

#define PROBE(name) {#name, p_##name}
static const struct probe probes[] = {
    PROBE(clone3),
    PROBE(clone_newuser),
    PROBE(unshare_newuser),
    PROBE(unshare_newns),
    PROBE(setns),
    PROBE(mount),
    PROBE(umount),
    PROBE(pivot_root),
    PROBE(chroot),
    PROBE(open_tree),
    PROBE(fsopen),
    PROBE(move_mount),
    PROBE(mount_setattr),
    PROBE(io_uring_setup),
    PROBE(bpf),
    PROBE(userfaultfd),
    PROBE(perf_event_open),
    PROBE(keyctl),
    PROBE(add_key),
    PROBE(request_key),
    PROBE(ptrace),
    PROBE(process_vm_readv),
    PROBE(process_vm_writev),
    PROBE(kcmp),
    PROBE(pidfd_getfd),
    PROBE(kexec_load),
    PROBE(kexec_file_load),
    PROBE(init_module),
    PROBE(finit_module),
    PROBE(delete_module),
    PROBE(reboot),
    PROBE(swapon),
    PROBE(swapoff),
    PROBE(settimeofday),
    PROBE(clock_settime),
    PROBE(clock_adjtime),
    PROBE(adjtimex),
    PROBE(acct),
    PROBE(syslog),
    PROBE(sethostname),
    PROBE(iopl),
    PROBE(ioperm),
    PROBE(name_to_handle_at),
    PROBE(open_by_handle_at),
    PROBE(fanotify_init),
    PROBE(get_mempolicy),
    PROBE(personality_addr_no_randomize),
    PROBE(personality_high_addr_no_randomize),
    PROBE(personality_query_ok),
    PROBE(personality_linux32_ok),
    PROBE(tiocsti),
    PROBE(tiocsti_high),
    PROBE(tioclinux),
    PROBE(socket_packet),
    PROBE(socket_packet_high),
    PROBE(socket_vsock),
    PROBE(socket_alg),
    PROBE(socket_key),
    PROBE(socket_netlink_audit),
    PROBE(socket_raw),
    PROBE(socket_raw6),
    PROBE(socket_inet_packet),
    PROBE(socket_inet_ok),
    PROBE(socket_unix_ok),
    PROBE(socket_netlink_route_ok),
    PROBE(socketpair_unix_ok),
    PROBE(socketpair_inet),
    PROBE(thread_ok),
    PROBE(fork_ok),
    PROBE(spawn_ok),
    PROBE(ioctl_ok),
    PROBE(exec_argv_bad),
    PROBE(exec_argv_page_cross),
#if defined(__x86_64__)
    PROBE(open_tree_attr),
    PROBE(int80),
    PROBE(x32),
#endif
};

static void print_result(const char* name, int result)
{
    if (result == 0) {
        printf("%s 0\n", name);
    } else if (result == -SIGSYS) {
        printf("%s KILLED\n", name);
    } else if (result < 0) {
        const char* sig = sigabbrev_np(-result);
        printf("%s SIG%s\n", name, sig != NULL ? sig : "UNKNOWN");
    } else {
        const char* err = strerrorname_np(result);
        if (err != NULL)
            printf("%s %s\n", name, err);
        else
            printf("%s E%d\n", name, result);
    }
}

int main(int argc, char** argv)
{
    const size_t count = sizeof probes / sizeof probes[0];
    if (argc < 2) {
        fprintf(stderr, "usage: %s NAME [NAME...] | --list\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "--noop") == 0)
        return 0;
    if (strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < count; i++)
            printf("%s\n", probes[i].name);
        return 0;
    }

    bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (bad == MAP_FAILED) {
        perror("mmap");
        return 1;
    }

    int status = 0;
    for (int a = 1; a < argc; a++) {
        size_t i = 0;
        while (i < count && strcmp(probes[i].name, argv[a]) != 0)
            i++;
        if (i == count) {
            printf("%s UNKNOWN\n", argv[a]);
            status = 2;
            continue;
        }
        print_result(argv[a], probes[i].fn());
        fflush(stdout);
    }
    return status;
}
