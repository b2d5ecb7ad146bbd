#ifndef DOCKET_CSYSTEM_H
#define DOCKET_CSYSTEM_H

/* The few Linux calls Swift's Glibc module does not show (they need _GNU_SOURCE). */

/* Flushes the whole file system holding `fd` to disk (syncfs(2)). */
int docket_syncfs(int fd);

/* POSIX_SPAWN_SETSID: the child starts a session of its own. */
int docket_spawn_setsid_flag(void);

/* A pipe whose ends close on exec (pipe2 with O_CLOEXEC). */
int docket_pipe_cloexec(int fds[2]);

/* Catches SIGINT, SIGTERM and SIGHUP: the first asks to stop (see docket_stop_requested), a second ends the process. */
void docket_catch_stop_signals(void);

/* Whether a stop signal arrived. */
int docket_stop_requested(void);

#endif
