#define _GNU_SOURCE
#include <spawn.h>
#include <unistd.h>
#include "DocketCSystem.h"

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

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

static int docket_unix_address(const char *path, struct sockaddr_un *address) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address->sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(address->sun_path, path);
    return 0;
}

int docket_unix_listen(const char *path) {
    struct sockaddr_un address;
    if (docket_unix_address(path, &address) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, 16) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int docket_unix_connect(const char *path, int milliseconds) {
    struct sockaddr_un address;
    if (docket_unix_address(path, &address) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    /* NB: without its timeout, a connection to a monitor that stopped accepting would wait for ever */
    if (docket_socket_timeout(fd, milliseconds) != 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int docket_socket_timeout(int fd, int milliseconds) {
    /* a negative time would be a negative tv_usec; 0 would mean no limit at all */
    if (milliseconds <= 0) {
        errno = EINVAL;
        return -1;
    }
    struct timeval limit = { milliseconds / 1000, (milliseconds % 1000) * 1000 };
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit) != 0) return -1;
    return setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
}

long docket_peer_uid(int fd) {
    struct ucred credentials;
    socklen_t size = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return -1;
    return (long)credentials.uid;
}

int docket_unix_accept(int fd) { return accept4(fd, 0, 0, SOCK_CLOEXEC); }

int docket_open_folder_path(const char *path) { return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC); }

#include <sys/vfs.h>
long docket_filesystem_type(const char *path) {
    struct statfs info;
    if (statfs(path, &info) != 0) return -1;
    return (long)info.f_type;
}
