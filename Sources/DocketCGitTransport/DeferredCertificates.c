/*
 * libgit2 1.5 with mbedTLS parses the system's certificate bundle (about 150
 * certificates) in git_libgit2_init: 4 to 10 ms, half the instructions of a
 * small commit, paid by every command that opens a repository, although only
 * an https remote ever needs it.
 *
 * libgit2 reads the bundle with mbedtls_x509_crt_parse_file, which it calls
 * through the dynamic linker; this program defines that function, so the
 * linker binds libgit2's call here (ELF symbol interposition). While
 * docket_git_start runs git_libgit2_init, the call only notes which chain and
 * file libgit2 asked for and reports success; docket_git_load_certificates
 * parses that file into the same chain (which libgit2 has already handed to
 * its TLS configuration) before the first https connection. Every other call
 * goes straight to mbedTLS.
 */
#define _GNU_SOURCE
#include "docket_exec.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <mbedtls/x509_crt.h>

typedef int (*parse_file_fn)(mbedtls_x509_crt *, const char *);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int deferring = 0;
static mbedtls_x509_crt *deferred_chain = NULL;
static char deferred_file[PATH_MAX];

static parse_file_fn real_parse_file(void) {
    static parse_file_fn real = NULL;
    if (!real) real = (parse_file_fn)dlsym(RTLD_NEXT, "mbedtls_x509_crt_parse_file");
    return real;
}

int mbedtls_x509_crt_parse_file(mbedtls_x509_crt *chain, const char *path) {
    pthread_mutex_lock(&lock);
    if (deferring && path && strlen(path) < sizeof deferred_file) {
        deferred_chain = chain;
        strcpy(deferred_file, path);
        pthread_mutex_unlock(&lock);
        return 0;
    }
    pthread_mutex_unlock(&lock);
    parse_file_fn real = real_parse_file();
    return real ? real(chain, path) : MBEDTLS_ERR_X509_FILE_IO_ERROR;
}

int docket_git_start(void) {
    pthread_mutex_lock(&lock);
    deferring = 1;
    pthread_mutex_unlock(&lock);
    int result = git_libgit2_init();
    pthread_mutex_lock(&lock);
    deferring = 0;
    pthread_mutex_unlock(&lock);
    return result;
}

/* NB: held while the bundle is parsed, so that a second thread asking for it waits until the chain is whole rather
   than starting a connection on a chain still being filled. */
static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;

int docket_git_load_certificates(void) {
    pthread_mutex_lock(&loading);
    pthread_mutex_lock(&lock);
    mbedtls_x509_crt *chain = deferred_chain;
    deferred_chain = NULL;
    pthread_mutex_unlock(&lock);
    int result = 0;
    if (chain) {
        parse_file_fn real = real_parse_file();
        result = real ? real(chain, deferred_file) : MBEDTLS_ERR_X509_FILE_IO_ERROR;
    }
    pthread_mutex_unlock(&loading);
    return result;
}

void docket_git_forget_certificates(void) {
    pthread_mutex_lock(&lock);
    deferred_chain = NULL;
    pthread_mutex_unlock(&lock);
}

int docket_git_certificates_deferred(void) {
    pthread_mutex_lock(&lock);
    int deferred = deferred_chain != NULL;
    pthread_mutex_unlock(&lock);
    return deferred;
}

const char *docket_git_system_certificates(void) {
    pthread_mutex_lock(&lock);
    const char *file = deferred_file[0] ? deferred_file : NULL;
    pthread_mutex_unlock(&lock);
    return file;
}
