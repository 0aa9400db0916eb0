/* exec_latency: how long one execve takes, from the call to the new program's first
 * instruction of main(), measured N times in a row. Run it inside the sandbox and inside the
 * reference (bwrap, or the host): the difference of the medians is what the sandbox adds to
 * every exec (the seccomp filter, the supervisor's exec approval, Landlock, the mounts).
 *
 *   exec_latency N      prints "median p25 p75" of the N exec times in microseconds
 *
 * Linked statically, so the new program's start costs no dynamic loading and the figure is
 * the exec itself. The parent forks, stamps CLOCK_MONOTONIC (one clock for every pid
 * namespace) and hands the stamp to the child on its command line; the child execs this very
 * program, which reads the clock first thing and writes the difference to a pipe. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long nowNs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int compare(const void* a, const void* b)
{
    long long x = *(const long long*)a, y = *(const long long*)b;
    return (x > y) - (x < y);
}

static double quantile(const long long* sorted, int n, double p)
{
    double h = (n - 1) * p;
    int lo = (int)h;
    int hi = lo + 1 < n ? lo + 1 : lo;
    return (double)sorted[lo] + (h - lo) * (double)(sorted[hi] - sorted[lo]);
}

int main(int argc, char** argv)
{
    if (argc == 4 && strcmp(argv[1], "--stamp") == 0) {
        long long now = nowNs();
        long long delta = now - atoll(argv[2]);
        int fd = atoi(argv[3]);
        return write(fd, &delta, sizeof delta) == sizeof delta ? 0 : 1;
    }
    int n = argc == 2 ? atoi(argv[1]) : 0;
    if (n <= 0) {
        fprintf(stderr, "usage: exec_latency N\n");
        return 2;
    }
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        perror("exec_latency: /proc/self/exe");
        return 1;
    }
    self[len] = 0;
    long long* samples = calloc((size_t)n, sizeof *samples);
    int fds[2];
    if (samples == NULL || pipe(fds) != 0) return 1;
    char fdText[16];
    snprintf(fdText, sizeof fdText, "%d", fds[1]);
    for (int i = 0; i < n; ++i) {
        pid_t pid = fork();
        if (pid < 0) return 1;
        if (pid == 0) {
            char stamp[32];
            snprintf(stamp, sizeof stamp, "%lld", nowNs());
            char* args[] = {"exec_latency", "--stamp", stamp, fdText, NULL};
            execv(self, args);
            _exit(127);
        }
        int status = 0;
        long long delta = -1;
        if (read(fds[0], &delta, sizeof delta) != sizeof delta || waitpid(pid, &status, 0) != pid ||
            !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "exec_latency: run %d failed\n", i);
            return 1;
        }
        samples[i] = delta;
    }
    qsort(samples, (size_t)n, sizeof *samples, compare);
    printf("%.1f %.1f %.1f\n", quantile(samples, n, 0.5) / 1000, quantile(samples, n, 0.25) / 1000,
           quantile(samples, n, 0.75) / 1000);
    return 0;
}
