#ifndef DOCKET_SSH_ADDRESS_H
#define DOCKET_SSH_ADDRESS_H

/*
 * The parts of an ssh address, as git reads them: `ssh://[user@]host[:port]/path` (also `ssh+git://` and
 * `git+ssh://`), or scp-like `[user@]host:path`. A host may be bracketed (`[::1]`, `user@[::1]:path`,
 * `ssh://[::1]:22/path`); in the scp-like form the brackets may also hold the user and a port
 * (`[user@host:2222]:path`, as git takes it). Plain C, with no library: scripts/fuzz-address builds it alone.
 *
 * On success returns 0 and sets `user` (empty when none), `host` (never empty), `port` (0 when none, else 1 to
 * 65535) and `path` (never empty), each freed with free(). Otherwise returns one of the negative codes below,
 * with the three strings NULL; docket_ssh_address_problem says what is wrong in words.
 */
int docket_exec_parse_ssh_url(const char *url, char **user, char **host, int *port, char **path);

/* Why an address did not parse: the negative codes docket_exec_parse_ssh_url returns. */
enum {
    DOCKET_SSH_ADDRESS_NO_PATH = -1,       /* no ':' (scp-like) or '/' (ssh://) before the path, or an empty path */
    DOCKET_SSH_ADDRESS_UNCLOSED = -2,      /* a '[' with no ']' */
    DOCKET_SSH_ADDRESS_AFTER_BRACKET = -3, /* something other than ':' right after a ']' */
    DOCKET_SSH_ADDRESS_BAD_PORT = -4,      /* a port that is not a number from 1 to 65535 */
    DOCKET_SSH_ADDRESS_NO_HOST = -5,       /* an empty host name */
    DOCKET_SSH_ADDRESS_NO_MEMORY = -6,
};

/* What is wrong with an address, in words ("its '[' has no matching ']'"), for a code returned above. */
const char *docket_ssh_address_problem(int code);

#endif
