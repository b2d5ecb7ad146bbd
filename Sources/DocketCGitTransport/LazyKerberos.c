/*
 * libgit2 speaks Kerberos (GSSAPI, "Negotiate") to an https server that asks
 * for it. Linked to libgssapi_krb5 directly, every docket start loaded six
 * Kerberos libraries and resolved their symbols, about 1 ms of each command,
 * although only a server asking for Negotiate ever needs them.
 *
 * Docket links libgit2 statically and defines here the GSSAPI functions
 * libgit2 calls (RFC 2744's C bindings). The first call loads the system's
 * libgssapi_krb5 and each later call goes straight to it. Where that library
 * is missing, each call reports GSS_S_FAILURE, so a server that insists on
 * Kerberos fails as it would with a broken Kerberos setup and everything
 * else works.
 */
#define _GNU_SOURCE
#include "docket_exec.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t OM_uint32;
typedef struct { OM_uint32 length; void *elements; } oid_desc;
typedef struct { size_t length; void *value; } buffer_desc;

#define GSS_S_FAILURE (13u << 16)

/* 1.2.840.113554.1.2.1.4, the host-based service name type; replaced by the library's own once it is loaded. */
static oid_desc hostbased = { 10, "\x2a\x86\x48\x86\xf7\x12\x01\x02\x01\x04" };
void *GSS_C_NT_HOSTBASED_SERVICE = &hostbased;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *library = NULL;

static void load(void) {
    library = dlopen("libgssapi_krb5.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
    void **name_type = dlsym(library, "GSS_C_NT_HOSTBASED_SERVICE");
    if (name_type && *name_type) GSS_C_NT_HOSTBASED_SERVICE = *name_type;
}

static void *function(const char *name) {
    pthread_once(&once, load);
    return library ? dlsym(library, name) : NULL;
}

int docket_kerberos_loaded(void) { return library != NULL; }

#define FORWARD(name, params, args)                                  \
    OM_uint32 name params {                                          \
        static OM_uint32 (*real) params = NULL;                      \
        if (!real) real = (OM_uint32 (*) params)function(#name);     \
        if (!real) { if (minor) *minor = 0; return GSS_S_FAILURE; }  \
        return real args;                                            \
    }

FORWARD(gss_indicate_mechs, (OM_uint32 *minor, void **mechs), (minor, mechs))
FORWARD(gss_release_oid_set, (OM_uint32 *minor, void **set), (minor, set))
FORWARD(gss_import_name, (OM_uint32 *minor, void *buffer, void *type, void **name), (minor, buffer, type, name))
FORWARD(gss_release_name, (OM_uint32 *minor, void **name), (minor, name))
FORWARD(gss_delete_sec_context, (OM_uint32 *minor, void **context, void *token), (minor, context, token))
FORWARD(gss_release_buffer, (OM_uint32 *minor, void *buffer), (minor, buffer))
FORWARD(gss_init_sec_context,
        (OM_uint32 *minor, void *credential, void **context, void *target, void *mechanism, OM_uint32 flags, OM_uint32 time,
         void *bindings, void *input, void **actual, void *output, OM_uint32 *returned, OM_uint32 *valid),
        (minor, credential, context, target, mechanism, flags, time, bindings, input, actual, output, returned, valid))

OM_uint32 gss_display_status(OM_uint32 *minor, OM_uint32 status, int type, void *mechanism, OM_uint32 *context, void *text) {
    static OM_uint32 (*real)(OM_uint32 *, OM_uint32, int, void *, OM_uint32 *, void *) = NULL;
    if (!real) real = (OM_uint32 (*)(OM_uint32 *, OM_uint32, int, void *, OM_uint32 *, void *))function("gss_display_status");
    if (real) return real(minor, status, type, mechanism, context, text);
    if (minor) *minor = 0;
    if (context) *context = 0;
    if (text) { ((buffer_desc *)text)->length = 0; ((buffer_desc *)text)->value = NULL; }
    return GSS_S_FAILURE;
}
