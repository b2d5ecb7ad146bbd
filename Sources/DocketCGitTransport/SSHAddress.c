#include "docket_ssh_address.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A part of the address: [start, end). Every length below is end - start of one, never negative. */
typedef struct {
    const char *start;
    const char *end;
} span;

static size_t span_length(span s) { return (size_t)(s.end - s.start); }

static const char *find_in(span s, char c) { return s.start < s.end ? memchr(s.start, c, span_length(s)) : NULL; }

static const char *find_last_in(span s, char c) {
    for (const char *p = s.end; p > s.start; p--)
        if (p[-1] == c) return p - 1;
    return NULL;
}

static int count_in(span s, char c) {
    int n = 0;
    for (const char *p = s.start; p < s.end; p++) n += *p == c;
    return n;
}

static char *copy(span s) {
    size_t length = span_length(s);
    char *out = malloc(length + 1);
    if (!out) return NULL;
    if (length) memcpy(out, s.start, length);
    out[length] = '\0';
    return out;
}

/* A port: empty (none, 0), or decimal digits worth 1 to 65535; -1 otherwise. */
static int read_port(span s) {
    if (s.start == s.end) return 0;
    long value = 0;
    for (const char *p = s.start; p < s.end; p++) {
        if (*p < '0' || *p > '9') return -1;
        value = value * 10 + (*p - '0');
        if (value > 65535) return -1;
    }
    return value >= 1 ? (int)value : -1;
}

typedef struct {
    span user;
    span host;
    int port;
} authority;

/* "host" or "host:port" (an unbracketed host with more than one ':' is an IPv6 address, with no port). */
static int split_port(span s, authority *out) {
    const char *colon = find_in(s, ':');
    out->host = s;
    out->port = 0;
    if (!colon || count_in(s, ':') > 1) return 0;
    out->host.end = colon;
    out->port = read_port((span){colon + 1, s.end});
    return out->port < 0 ? DOCKET_SSH_ADDRESS_BAD_PORT : 0;
}

/*
 * `[user@]host[:port]`, where host may be bracketed (`[::1]`, `user@[::1]:22`), or the whole of it may be
 * (`[user@::1]`, `[user@host:22]`); `port_allowed` is 0 where a port cannot be (after an scp-like host, whose ':'
 * starts the path).
 */
static int read_authority(span s, int port_allowed, authority *out) {
    memset(out, 0, sizeof *out);
    out->user = (span){s.start, s.start};
    const char *at = find_last_in(s, '@');
    const char *bracket = find_in(s, '[');
    if (bracket == s.start || (at && bracket == at + 1)) {
        /* NB: a ']' may only end a bracket that was opened; everything up to it is inside. */
        const char *close = find_in((span){bracket + 1, s.end}, ']');
        if (!close) return DOCKET_SSH_ADDRESS_UNCLOSED;
        span after = {close + 1, s.end};
        if (after.start < after.end && *after.start != ':') return DOCKET_SSH_ADDRESS_AFTER_BRACKET;
        if (after.start < after.end) {
            if (!port_allowed) return DOCKET_SSH_ADDRESS_AFTER_BRACKET;
            out->port = read_port((span){after.start + 1, after.end});
            if (out->port < 0) return DOCKET_SSH_ADDRESS_BAD_PORT;
        }
        span inside = {bracket + 1, close};
        if (find_in(inside, '[')) return DOCKET_SSH_ADDRESS_NO_HOST;
        if (bracket == s.start) {
            /* [user@host], [host:port], [::1] */
            const char *inner_at = find_last_in(inside, '@');
            if (inner_at) {
                out->user = (span){inside.start, inner_at};
                inside.start = inner_at + 1;
            }
        } else {
            /* user@[host] */
            if (find_in(inside, '@')) return DOCKET_SSH_ADDRESS_NO_HOST;
            out->user = (span){s.start, at};
        }
        int outside = out->port;
        int code = split_port(inside, out);
        if (code < 0) return code;
        if (outside && out->port) return DOCKET_SSH_ADDRESS_BAD_PORT; /* a port inside the brackets and after them */
        if (outside) out->port = outside;
    } else {
        if (bracket || find_in(s, ']')) return DOCKET_SSH_ADDRESS_NO_HOST;
        span host = s;
        if (at) {
            out->user = (span){s.start, at};
            host.start = at + 1;
        }
        if (port_allowed) {
            int code = split_port(host, out);
            if (code < 0) return code;
        } else {
            out->host = host;
        }
    }
    return span_length(out->host) > 0 ? 0 : DOCKET_SSH_ADDRESS_NO_HOST;
}

int docket_exec_parse_ssh_url(const char *url, char **user, char **host, int *port, char **path) {
    *user = *host = *path = NULL;
    *port = 0;
    const char *end = url + strlen(url);
    const char *prefixes[] = {"ssh://", "ssh+git://", "git+ssh://"};
    const char *rest = NULL;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncasecmp(url, prefixes[i], n) == 0) {
            rest = url + n;
            break;
        }
    }
    authority parts;
    span where;
    int code;
    if (rest) {
        const char *slash = strchr(rest, '/');
        if (!slash) return DOCKET_SSH_ADDRESS_NO_PATH;
        code = read_authority((span){rest, slash}, 1, &parts);
        /* ssh://host/~user/x means ~user/x, as git reads it */
        where = (span){slash[1] == '~' ? slash + 1 : slash, end};
    } else {
        /* scp-like: the path starts after the first ':' outside brackets */
        const char *search = url;
        const char *bracket = strchr(url, '[');
        const char *colon = strchr(url, ':');
        if (bracket && (!colon || bracket < colon)) {
            const char *close = strchr(bracket, ']');
            if (!close) return DOCKET_SSH_ADDRESS_UNCLOSED;
            search = close;
        }
        colon = strchr(search, ':');
        if (!colon) return DOCKET_SSH_ADDRESS_NO_PATH;
        code = read_authority((span){url, colon}, 0, &parts);
        where = (span){colon + 1, end};
    }
    if (code < 0) return code;
    if (span_length(where) == 0) return DOCKET_SSH_ADDRESS_NO_PATH;
    *user = copy(parts.user);
    *host = copy(parts.host);
    *path = copy(where);
    if (!*user || !*host || !*path) {
        free(*user);
        free(*host);
        free(*path);
        *user = *host = *path = NULL;
        return DOCKET_SSH_ADDRESS_NO_MEMORY;
    }
    *port = parts.port;
    return 0;
}

const char *docket_ssh_address_problem(int code) {
    switch (code) {
    case DOCKET_SSH_ADDRESS_NO_PATH: return "it names no path after its host (host:path, or ssh://host/path)";
    case DOCKET_SSH_ADDRESS_UNCLOSED: return "its '[' has no matching ']'";
    case DOCKET_SSH_ADDRESS_AFTER_BRACKET: return "its ']' is followed by something other than ':'";
    case DOCKET_SSH_ADDRESS_BAD_PORT: return "its port is not a number from 1 to 65535";
    case DOCKET_SSH_ADDRESS_NO_HOST: return "its host name is empty or holds a stray '[' or ']'";
    case DOCKET_SSH_ADDRESS_NO_MEMORY: return "there was no memory left to read it";
    default: return "it could not be read";
    }
}
