#define _GNU_SOURCE
#include <spawn.h>
#include <unistd.h>
#include "CSystem.h"

int docket_syncfs(int fd) { return syncfs(fd); }

int docket_spawn_setsid_flag(void) { return POSIX_SPAWN_SETSID; }

#include <fcntl.h>
int docket_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

#include <signal.h>
static volatile sig_atomic_t docket_stops = 0;

/* The first SIGINT, SIGTERM or SIGHUP asks to stop; a second ends the process as the signal would. */
static void docket_on_stop(int signal_number) {
    if (docket_stops++ > 0) {
        signal(signal_number, SIG_DFL);
        raise(signal_number);
    }
}

void docket_catch_stop_signals(void) {
    struct sigaction action;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0; /* no SA_RESTART: a wait in poll(2) returns at once */
    action.sa_handler = docket_on_stop;
    sigaction(SIGINT, &action, 0);
    sigaction(SIGTERM, &action, 0);
    sigaction(SIGHUP, &action, 0);
}

int docket_stop_requested(void) { return docket_stops > 0; }
