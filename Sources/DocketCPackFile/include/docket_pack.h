#ifndef DOCKET_PACK_H
#define DOCKET_PACK_H

#include <stddef.h>
#include <stdint.h>

/* The object database backend that writes a repository's objects unflushed. NB: included here, not only found in
   this folder, so a build made before it existed builds its module again. */
#include "docket_unflushed_objects.h"

/* What Docket needs to write a git pack file and its index itself: zlib's
   deflate and CRC-32, and SHA-1 (OpenSSL's libcrypto, which libssh2 already brings). */

/* The most bytes docket_deflate can write for `length` bytes of input. */
size_t docket_deflate_bound(size_t length);

/* Deflates `length` bytes of `data` as one zlib stream into `out`, which has
   room for `capacity` bytes; returns the bytes written, 0 on failure. */
size_t docket_deflate(const void *data, size_t length, void *out, size_t capacity);

/* zlib's CRC-32 of `data`, continuing from `crc` (0 to start). */
uint32_t docket_crc32(uint32_t crc, const void *data, size_t length);

/* A running SHA-1: docket_sha1_new, any number of docket_sha1_update, then
   docket_sha1_finish, which writes the 20-byte digest and frees it. */
typedef struct docket_sha1 docket_sha1;
docket_sha1 *docket_sha1_new(void);
void docket_sha1_update(docket_sha1 *sha1, const void *data, size_t length);
void docket_sha1_finish(docket_sha1 *sha1, unsigned char digest[20]);

#endif
