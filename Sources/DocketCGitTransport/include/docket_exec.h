#ifndef DOCKET_EXEC_TRANSPORT_H
#define DOCKET_EXEC_TRANSPORT_H

#include "../../DocketCGit2/shim.h"
#include <git2/sys/transport.h>

/* Called with what the program wrote to stderr when it ends, successful or not; when it could not be started,
   with "" and minus the errno of posix_spawn. */
typedef void (*docket_exec_stderr_cb)(const char *text, int exit_status, void *payload);

/*
 * A smart transport that runs a program and speaks git's protocol over its
 * stdin and stdout, as git does for ssh:// and local paths.
 *
 * `command` (NULL-terminated) is the program and its first arguments. For
 * ssh, `[user@]host`, and "git-upload-pack '<path>'" (or receive-pack) are
 * appended, after "-p <port>" when the URL names a port; with `local`, the
 * service name ("upload-pack" or "receive-pack") and the path are appended
 * instead. The child's stderr is kept and handed to `on_stderr` when it ends;
 * a child that fails sets libgit2's error to its last stderr line.
 */
int docket_exec_transport_new(git_transport **out, git_remote *owner, const char *const *command, int local,
                              docket_exec_stderr_cb on_stderr, void *payload);

/* docket_exec_parse_ssh_url: the parts of an ssh address (SSHAddress.c). */
#include "docket_ssh_address.h"

#endif

#ifndef DOCKET_TLS_IP_H
#define DOCKET_TLS_IP_H
/*
 * Checks a server certificate (DER) for an https host given as an IP address,
 * which libgit2's mbedTLS cannot match: the certificate must be signed by one
 * in `ca_file` (PEM; the system bundle when NULL) or `ca_path`, be current,
 * and name `ip` in an iPAddress subjectAltName. 0 when it does; -1 with a
 * reason in `reason` when not.
 */
int docket_tls_check_ip(const unsigned char *der, size_t length, const char *ca_file, const char *ca_path, const char *ip,
                        char *reason, size_t reason_size);
#endif

#ifndef DOCKET_DEFERRED_CERTIFICATES_H
#define DOCKET_DEFERRED_CERTIFICATES_H

/* git_libgit2_init, with the parsing of the system's certificate bundle put
   off until docket_git_load_certificates (see DeferredCertificates.c). */
int docket_git_start(void);

/* Parses the certificate bundle libgit2 asked for at start, if it has not been
   yet; call it before any https connection. mbedTLS's result (0 or more is success). */
int docket_git_load_certificates(void);

/* Drops the bundle libgit2 asked for at start, unparsed: call it before
   setting other certificate locations, which replace it. */
void docket_git_forget_certificates(void);

/* Whether the bundle is still waiting to be parsed. */
int docket_git_certificates_deferred(void);

/* The system's certificate bundle libgit2 asked for when it started, or NULL when it asked for none. */
const char *docket_git_system_certificates(void);

/* Whether the system's Kerberos library has been loaded (LazyKerberos.c): it is, from the first GSSAPI call on. */
int docket_kerberos_loaded(void);

/* Two of the GSSAPI functions LazyKerberos.c provides (RFC 2744; a mechanism set is {size_t count; gss_OID elements}). */
uint32_t gss_indicate_mechs(uint32_t *minor, void **mechanisms);
uint32_t gss_release_oid_set(uint32_t *minor, void **mechanisms);

#endif
