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

/* A Unix stream socket bound to `path` and listening, or -1 with errno (ENAMETOOLONG for a path too long for an address). */
int docket_unix_listen(const char *path);

/* A Unix stream socket connected to `path`, its connection, reads and writes bounded by `milliseconds`; -1 with errno. */
int docket_unix_connect(const char *path, int milliseconds);

/* Bounds a socket's reads and writes by `milliseconds`, which must be more than 0 (SO_RCVTIMEO, SO_SNDTIMEO); -1 with errno. */
int docket_socket_timeout(int fd, int milliseconds);

/* The user id of the process at the other end of a Unix socket (SO_PEERCRED), or -1. */
long docket_peer_uid(int fd);

/* A connection accepted on a listening socket, closed on exec; -1 with errno. */
int docket_unix_accept(int fd);

/* A descriptor naming a folder without opening it for reading (O_PATH), for paths through /proc/self/fd; -1 with errno. */
int docket_open_folder_path(const char *path);

/* The kind of file system holding `path` (statfs(2)'s f_type), or -1. */
long docket_filesystem_type(const char *path);

#endif
