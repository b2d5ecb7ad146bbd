#define _GNU_SOURCE
#include "docket_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef struct {
    git_smart_subtransport parent;
    git_transport *owner;
    char **command;
    int local;
    docket_exec_stderr_cb on_stderr;
    void *payload;
    struct exec_stream *current;
} exec_subtransport;

typedef struct exec_stream {
    git_smart_subtransport_stream parent;
    pid_t pid;
    int to_child;
    int from_child;
    int errors;   /* an anonymous file the child's stderr goes to */
    int exited;
    int status;
} exec_stream;

/* 'text' quoted for a POSIX shell, as git quotes a path for the remote side. */
static char *shell_quote(const char *text) {
    size_t length = 3;
    for (const char *p = text; *p; p++) length += *p == '\'' ? 4 : 1;
    char *out = malloc(length), *o = out;
    if (!out) return NULL;
    *o++ = '\'';
    for (const char *p = text; *p; p++) {
        if (*p == '\'') { memcpy(o, "'\\''", 4); o += 4; } else *o++ = *p;
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

static char *error_text(exec_stream *s) {
    off_t size = lseek(s->errors, 0, SEEK_END);
    if (size <= 0) return strdup("");
    if (size > 65536) size = 65536;
    char *text = malloc((size_t)size + 1);
    if (!text) return NULL;
    ssize_t got = pread(s->errors, text, (size_t)size, 0);
    text[got > 0 ? got : 0] = '\0';
    return text;
}

static void reap(exec_stream *s) {
    if (s->exited || s->pid <= 0) return;
    int status = 0;
    while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR) {}
    s->exited = 1;
    s->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Sets libgit2's error from the child's stderr: its last non-empty lines, or how it ended. */
static int fail_from_child(exec_stream *s, const char *what) {
    char *text = error_text(s);
    /* drop trailing newlines */
    size_t n = text ? strlen(text) : 0;
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r')) text[--n] = '\0';
    if (text && n > 0) {
        git_error_set_str(GIT_ERROR_NET, text);
    } else if (s->exited) {
        git_error_set(GIT_ERROR_NET, "the remote program %s (exit status %d)", what, s->status);
    } else {
        git_error_set(GIT_ERROR_NET, "the remote program %s", what);
    }
    free(text);
    return -1;
}

static int stream_read(git_smart_subtransport_stream *stream, char *buffer, size_t size, size_t *bytes_read) {
    exec_stream *s = (exec_stream *)stream;
    ssize_t got;
    do { got = read(s->from_child, buffer, size); } while (got < 0 && errno == EINTR);
    if (got < 0) return fail_from_child(s, "could not be read from");
    if (got == 0) {
        reap(s);
        if (s->status != 0) return fail_from_child(s, "ended");
    }
    *bytes_read = (size_t)got;
    return 0;
}

static int stream_write(git_smart_subtransport_stream *stream, const char *buffer, size_t length) {
    exec_stream *s = (exec_stream *)stream;
    while (length > 0) {
        ssize_t put = write(s->to_child, buffer, length);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) {
            close(s->to_child);
            s->to_child = -1;
            /* the child stopped reading: it has failed, or is about to */
            char drain[4096];
            while (read(s->from_child, drain, sizeof drain) > 0) {}
            reap(s);
            return fail_from_child(s, "stopped reading");
        }
        buffer += put;
        length -= (size_t)put;
    }
    return 0;
}

static void stream_finish(exec_subtransport *t, exec_stream *s) {
    if (s->to_child >= 0) close(s->to_child);
    s->to_child = -1;
    if (s->from_child >= 0) close(s->from_child);
    s->from_child = -1;
    reap(s);
    if (t && t->on_stderr) {
        char *text = error_text(s);
        if (text) t->on_stderr(text, s->status, t->payload);
        free(text);
    }
    if (s->errors >= 0) close(s->errors);
    s->errors = -1;
}

static void stream_free(git_smart_subtransport_stream *stream) {
    exec_stream *s = (exec_stream *)stream;
    exec_subtransport *t = (exec_subtransport *)stream->subtransport;
    stream_finish(t, s);
    if (t && t->current == s) t->current = NULL;
    free(s);
}

/* The child's environment: this one without the variables that point git at a repository. */
static char **child_environment(void) {
    size_t count = 0;
    for (char **e = environ; *e; e++) count++;
    char **out = calloc(count + 1, sizeof *out);
    if (!out) return NULL;
    const char *drop[] = {"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", "GIT_OBJECT_DIRECTORY=",
                          "GIT_ALTERNATE_OBJECT_DIRECTORIES=", "GIT_NAMESPACE=", "GIT_PREFIX=", "GIT_COMMON_DIR=",
                          /* an https token is for its server, never for ssh or git-upload-pack */ "DOCKET_GIT_TOKEN=", NULL};
    size_t n = 0;
    for (char **e = environ; *e; e++) {
        int keep = 1;
        for (const char **d = drop; *d; d++) if (strncmp(*e, *d, strlen(*d)) == 0) keep = 0;
        if (keep) out[n++] = *e;
    }
    return out;
}

static int start(exec_subtransport *t, const char *url, git_smart_service_t action, exec_stream **out) {
    int receive = action == GIT_SERVICE_RECEIVEPACK_LS || action == GIT_SERVICE_RECEIVEPACK;
    size_t prefix = 0;
    while (t->command[prefix]) prefix++;
    char **argv = calloc(prefix + 9, sizeof *argv);
    char *user = NULL, *host = NULL, *path = NULL, *quoted = NULL, *remote = NULL, *login = NULL, portText[16];
    int port = 0, code = -1;
    if (!argv) goto done;
    size_t n = 0;
    for (size_t i = 0; i < prefix; i++) argv[n++] = t->command[i];
    if (t->local) {
        const char *p = url;
        if (strncasecmp(p, "file://", 7) == 0) p += 7;
        argv[n++] = receive ? "receive-pack" : "upload-pack";
        argv[n++] = (char *)p;
    } else {
        for (const char *c = url; *c; c++) {
            if ((unsigned char)*c < 0x20 || *c == 0x7F) {
                git_error_set(GIT_ERROR_NET, "the ssh address holds a control character, which docket does not pass on");
                goto done;
            }
        }
        int parsed = docket_exec_parse_ssh_url(url, &user, &host, &port, &path);
        if (parsed < 0) {
            git_error_set(GIT_ERROR_NET, "'%s' is not an ssh address docket understands: %s", url,
                          docket_ssh_address_problem(parsed));
            goto done;
        }
        /* As git refuses them ("strange hostname … blocked"): ssh would read either as an option. */
        if (host[0] == '-' || user[0] == '-') {
            git_error_set(GIT_ERROR_NET, "the ssh %s '%s' starts with '-', which ssh would take as an option; docket does not pass it on",
                          host[0] == '-' ? "host name" : "user name", host[0] == '-' ? host : user);
            goto done;
        }
        if (port) {
            snprintf(portText, sizeof portText, "%d", port);
            argv[n++] = "-p";
            argv[n++] = portText;
        }
        /* OpenSSH takes no option after "--", whatever the login looks like; other programs (plink) may not know it. */
        const char *program = strrchr(t->command[0], '/') ? strrchr(t->command[0], '/') + 1 : t->command[0];
        if (strcmp(program, "ssh") == 0) argv[n++] = "--";
        if (*user) {
            size_t length = strlen(user) + strlen(host) + 2;
            login = malloc(length);
            if (!login) goto done;
            snprintf(login, length, "%s@%s", user, host);
        }
        argv[n++] = login ? login : host;
        quoted = shell_quote(path);
        if (!quoted) goto done;
        size_t length = strlen(quoted) + 32;
        remote = malloc(length);
        if (!remote) goto done;
        snprintf(remote, length, "%s %s", receive ? "git-receive-pack" : "git-upload-pack", quoted);
        argv[n++] = remote;
    }
    argv[n] = NULL;

    exec_stream *s = calloc(1, sizeof *s);
    if (!s) goto done;
    s->to_child = s->from_child = s->errors = -1;
    int in[2] = {-1, -1}, outp[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(outp, O_CLOEXEC) < 0) {
        git_error_set(GIT_ERROR_OS, "could not make a pipe: %s", strerror(errno));
        /* the first pipe, when only the second failed */
        for (int i = 0; i < 2; i++) {
            if (in[i] >= 0) close(in[i]);
        }
        free(s);
        goto done;
    }
    s->errors = memfd_create("docket-remote-stderr", MFD_CLOEXEC);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, outp[1], 1);
    if (s->errors >= 0) posix_spawn_file_actions_adddup2(&actions, s->errors, 2);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
    char **environment = child_environment();
    int spawned = posix_spawnp(&s->pid, argv[0], &actions, &attributes, argv, environment ? environment : environ);
    free(environment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(in[0]);
    close(outp[1]);
    if (spawned != 0) {
        git_error_set(GIT_ERROR_NET, "could not run %s: %s", argv[0], strerror(spawned));
        close(in[1]); close(outp[0]);
        if (s->errors >= 0) close(s->errors);
        free(s);
        /* why, by its errno rather than strerror's words */
        if (t->on_stderr) t->on_stderr("", -spawned, t->payload);
        goto done;
    }
    s->to_child = in[1];
    s->from_child = outp[0];
    s->parent.subtransport = &t->parent;
    s->parent.read = stream_read;
    s->parent.write = stream_write;
    s->parent.free = stream_free;
    *out = s;
    code = 0;
done:
    free(argv);
    free(user); free(host); free(path); free(quoted); free(remote); free(login);
    return code;
}

static int subtransport_action(git_smart_subtransport_stream **out, git_smart_subtransport *subtransport,
                               const char *url, git_smart_service_t action) {
    exec_subtransport *t = (exec_subtransport *)subtransport;
    /* ls and its pack share one connection, as they do over ssh */
    if ((action == GIT_SERVICE_UPLOADPACK || action == GIT_SERVICE_RECEIVEPACK) && t->current) {
        *out = &t->current->parent;
        return 0;
    }
    exec_stream *s = NULL;
    if (start(t, url, action, &s) < 0) return -1;
    t->current = s;
    *out = &s->parent;
    return 0;
}

static int subtransport_close(git_smart_subtransport *subtransport) {
    exec_subtransport *t = (exec_subtransport *)subtransport;
    t->current = NULL;
    return 0;
}

static void subtransport_free(git_smart_subtransport *subtransport) {
    exec_subtransport *t = (exec_subtransport *)subtransport;
    for (char **c = t->command; c && *c; c++) free(*c);
    free(t->command);
    free(t);
}

typedef struct {
    const char *const *command;
    int local;
    docket_exec_stderr_cb on_stderr;
    void *payload;
} exec_parameters;

static int subtransport_new(git_smart_subtransport **out, git_transport *owner, void *param) {
    exec_parameters *parameters = param;
    exec_subtransport *t = calloc(1, sizeof *t);
    if (!t) return -1;
    size_t count = 0;
    while (parameters->command[count]) count++;
    if (count == 0) {
        git_error_set_str(GIT_ERROR_INVALID, "no program was given to run for the remote");
        free(t);
        return -1;
    }
    t->command = calloc(count + 1, sizeof *t->command);
    if (!t->command) { free(t); return -1; }
    for (size_t i = 0; i < count; i++) {
        t->command[i] = strdup(parameters->command[i]);
        /* NB: a NULL left here would end the command early, and start() reads command[0] */
        if (!t->command[i]) {
            subtransport_free(&t->parent);
            return -1;
        }
    }
    t->owner = owner;
    t->local = parameters->local;
    t->on_stderr = parameters->on_stderr;
    t->payload = parameters->payload;
    t->parent.action = subtransport_action;
    t->parent.close = subtransport_close;
    t->parent.free = subtransport_free;
    *out = &t->parent;
    return 0;
}

int docket_exec_transport_new(git_transport **out, git_remote *owner, const char *const *command, int local,
                              docket_exec_stderr_cb on_stderr, void *payload) {
    exec_parameters parameters = {command, local, on_stderr, payload};
    git_smart_subtransport_definition definition = {subtransport_new, 0, &parameters};
    return git_transport_smart(out, owner, &definition);
}
