#include "docket_pack.h"

#include <stdlib.h>
#include <zlib.h>
#include <mbedtls/sha1.h>

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
    return (uint32_t)crc32(crc, data, (uInt)length);
}

struct docket_sha1 { mbedtls_sha1_context context; };

docket_sha1 *docket_sha1_new(void) {
    docket_sha1 *sha1 = malloc(sizeof *sha1);
    if (!sha1) return NULL;
    mbedtls_sha1_init(&sha1->context);
    mbedtls_sha1_starts_ret(&sha1->context);
    return sha1;
}

void docket_sha1_update(docket_sha1 *sha1, const void *data, size_t length) {
    mbedtls_sha1_update_ret(&sha1->context, data, length);
}

void docket_sha1_finish(docket_sha1 *sha1, unsigned char digest[20]) {
    mbedtls_sha1_finish_ret(&sha1->context, digest);
    mbedtls_sha1_free(&sha1->context);
    free(sha1);
}
