#include "docket_pack.h"

#include <stdlib.h>
#include <zlib.h>
/* SHA1_Init and its kin are deprecated in OpenSSL 3 for EVP, whose first use loads providers and reads
   openssl.cnf; the low-level calls stay, and use the CPU's SHA instructions (three times mbedTLS's speed). */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

size_t docket_deflate_bound(size_t length) {
    return compressBound((uLong)length);
}

size_t docket_deflate(const void *data, size_t length, void *out, size_t capacity) {
    uLongf written = (uLongf)capacity;
    /* Level 1, git's core.looseCompression: item files are small, and speed is what a large commit needs. */
    if (compress2(out, &written, data, (uLong)length, Z_BEST_SPEED) != Z_OK) return 0;
    return (size_t)written;
}

uint32_t docket_crc32(uint32_t crc, const void *data, size_t length) {
    /* NB: crc32 takes a 32-bit length, which an entry of 4 GiB or more would overflow; crc32_z takes a size_t. */
    return (uint32_t)crc32_z(crc, data, length);
}

struct docket_sha1 { SHA_CTX context; };

docket_sha1 *docket_sha1_new(void) {
    docket_sha1 *sha1 = malloc(sizeof *sha1);
    if (!sha1) return NULL;
    SHA1_Init(&sha1->context);
    return sha1;
}

void docket_sha1_update(docket_sha1 *sha1, const void *data, size_t length) {
    SHA1_Update(&sha1->context, data, length);
}

void docket_sha1_finish(docket_sha1 *sha1, unsigned char digest[20]) {
    SHA1_Final(digest, &sha1->context);
    free(sha1);
}
