/* The raw-pipe baseline: the fastest a client can drive one stdio MCP
 * server. It writes request lines and reads lines, with no JSON parsing and
 * no validation: a line is taken as a response when it holds "result" or
 * "error" and no "method" (notifications and server requests are skipped).
 * N sequential tools/call round trips, then N more with 16 in flight.
 * Prints one JSON line like the other clients, plus its own CPU time.
 * Usage: raw_client TOOL ARGS_JSON N -- COMMAND ARGS... */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

static int to_server, from_server;
static char *buffer;
static size_t held, capacity = 1 << 20;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void write_all(const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t n = write(to_server, bytes, length);
        if (n <= 0) { perror("write"); exit(1); }
        bytes += n;
        length -= (size_t)n;
    }
}

/* The next line (without its newline), valid until the next call. */
static char *read_line(void) {
    static size_t consumed;
    if (consumed) {
        memmove(buffer, buffer + consumed, held - consumed);
        held -= consumed;
        consumed = 0;
    }
    for (;;) {
        char *newline = memchr(buffer, '\n', held);
        if (newline) {
            *newline = 0;
            consumed = (size_t)(newline - buffer) + 1;
            return buffer;
        }
        if (held == capacity) {
            capacity *= 2;
            buffer = realloc(buffer, capacity + 1);
            if (!buffer) { perror("realloc"); exit(1); }
        }
        ssize_t n = read(from_server, buffer + held, capacity - held);
        if (n <= 0) { fprintf(stderr, "raw_client: server closed\n"); exit(1); }
        held += (size_t)n;
    }
}

static void read_response(void) {
    for (;;) {
        char *line = read_line();
        if ((strstr(line, "\"result\"") || strstr(line, "\"error\"")) && !strstr(line, "\"method\""))
            return;
    }
}

static char request[65536];
static long next_id = 1;

static void send_call(const char *tool, const char *args) {
    int n = snprintf(request, sizeof request,
                     "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"arguments\":%s}}\n",
                     next_id++, tool, args);
    write_all(request, (size_t)n);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double cpu_us(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
}

int main(int argc, char **argv) {
    if (argc < 6 || strcmp(argv[4], "--") != 0) {
        fprintf(stderr, "usage: raw_client TOOL ARGS_JSON N -- COMMAND ARGS...\n");
        return 2;
    }
    const char *tool = argv[1], *args = argv[2];
    long calls = atol(argv[3]);
    int in[2], out[2];
    if (pipe(in) || pipe(out)) { perror("pipe"); return 1; }
    pid_t child = fork();
    if (child == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execvp(argv[5], argv + 5);
        perror("execvp");
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_server = in[1];
    from_server = out[0];
    buffer = malloc(capacity + 1);

    const char *initialize =
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
        "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"0\"}}}\n"
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    write_all(initialize, strlen(initialize));
    read_response();
    for (int i = 0; i < 50; i++) {
        send_call(tool, args);
        read_response();
    }

    double *latencies = malloc(sizeof(double) * (size_t)calls);
    double cpu0 = cpu_us(), started = now_us();
    for (long i = 0; i < calls; i++) {
        double t = now_us();
        send_call(tool, args);
        read_response();
        latencies[i] = (now_us() - t) / 1000.0;
    }
    double sequential = (now_us() - started) / 1e6;
    double cpu_per_call = (cpu_us() - cpu0) / (double)calls;

    started = now_us();
    long sent = 0, answered = 0;
    for (; sent < 16 && sent < calls; sent++) send_call(tool, args);
    while (answered < calls) {
        read_response();
        answered++;
        if (sent < calls) { send_call(tool, args); sent++; }
    }
    double concurrent = (now_us() - started) / 1e6;

    qsort(latencies, (size_t)calls, sizeof(double), by_value);
    long p50 = calls / 2, p99 = (long)(calls * 0.99);
    if (p99 >= calls) p99 = calls - 1;
    printf("{\"sequential_per_s\":%.1f,\"p50_ms\":%.4f,\"p99_ms\":%.4f,\"concurrent_per_s\":%.1f,\"cpu_us_per_call\":%.1f}\n",
           calls / sequential, latencies[p50], latencies[p99], calls / concurrent, cpu_per_call);
    fflush(stdout);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return 0;
}
