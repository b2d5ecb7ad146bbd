#define _GNU_SOURCE
#include <spawn.h>
#include <unistd.h>
#include "CSystem.h"

int docket_syncfs(int fd) { return syncfs(fd); }

int docket_spawn_setsid_flag(void) { return POSIX_SPAWN_SETSID; }

#include <fcntl.h>
int docket_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
