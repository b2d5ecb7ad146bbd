#include "docket_unflushed_objects.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Objects larger than this go to libgit2's own loose backend even while the
   backend is on: a stream is held in memory until it is finished. */
#define DOCKET_UNFLUSHED_LARGEST (64u << 20)

typedef struct {
    git_odb_backend parent;
    char *objects;
    int on;
    unsigned long written;
} unflushed_backend;

typedef struct {
    git_odb_stream parent;
    git_object_t type;
    unsigned char *bytes;
    size_t length;
    size_t capacity;
} unflushed_stream;

static int fail(const char *what, const char *path) {
    git_error_set(GIT_ERROR_OS, "%s '%s': %s", what, path, strerror(errno));
    return -1;
}

static int write_all(int fd, const unsigned char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

/* The object as git stores it loose: "<type> <size>\0<data>", deflated as one zlib stream. */
static unsigned char *deflate_object(const void *data, size_t length, git_object_t type, size_t *out_length) {
    char header[64];
    int header_length = snprintf(header, sizeof header, "%s %zu", git_object_type2string(type), length) + 1;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit(&z, Z_BEST_SPEED) != Z_OK) return NULL;
    uLong capacity = deflateBound(&z, (uLong)header_length + (uLong)length);
    unsigned char *out = malloc(capacity);
    if (out == NULL) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_out = out;
    z.avail_out = (uInt)capacity;
    z.next_in = (Bytef *)header;
    z.avail_in = (uInt)header_length;
    int status = deflate(&z, Z_NO_FLUSH);
    if (status == Z_OK) {
        z.next_in = (Bytef *)data;
        z.avail_in = (uInt)length;
        status = deflate(&z, Z_FINISH);
    }
    *out_length = z.total_out;
    deflateEnd(&z);
    if (status != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

/* "<objects>/<rest>" in memory of its own, or NULL (libgit2's error set) when there is none: no path is ever cut
   short, so one too long for the system fails at its open or rename instead of naming another file. */
static char *objects_path(const unflushed_backend *backend, const char *rest) {
    size_t length = strlen(backend->objects) + 1 + strlen(rest) + 1;
    char *path = malloc(length);
    if (path == NULL) {
        git_error_set_oom();
        return NULL;
    }
    snprintf(path, length, "%s/%s", backend->objects, rest);
    return path;
}

/* Writes the object loose under the backend's folder, through a temporary file renamed into place, unflushed.
   NB: the temporary file is made in the objects folder itself (DOCKET_UNFLUSHED_TEMPORARY_PREFIX, unique by
   mkstemp), so those a killed writer left are found with one look at one folder (Repository.removeStaleObjectFiles). */
static int write_loose(
    unflushed_backend *backend, const git_oid *oid, const void *data, size_t length, git_object_t type) {
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, oid);
    char name[GIT_OID_HEXSZ + 2];
    snprintf(name, sizeof name, "%.2s/%s", hex, hex + 2);
    char *folder = NULL, *path = NULL, *temporary = NULL;
    unsigned char *deflated = NULL;
    int fd = -1, code = -1;
    char prefix[3] = {hex[0], hex[1], '\0'};
    folder = objects_path(backend, prefix);
    path = objects_path(backend, name);
    temporary = objects_path(backend, DOCKET_UNFLUSHED_TEMPORARY_PREFIX "XXXXXX");
    if (folder == NULL || path == NULL || temporary == NULL) goto done;
    if (mkdir(folder, 0777) != 0 && errno != EEXIST) {
        fail("could not create the folder", folder);
        goto done;
    }
    size_t deflated_length = 0;
    deflated = deflate_object(data, length, type, &deflated_length);
    if (deflated == NULL) {
        git_error_set_str(GIT_ERROR_ZLIB, "could not deflate an object");
        goto done;
    }
    fd = mkstemp(temporary);
    if (fd < 0) {
        fail("could not create", temporary);
        goto done;
    }
    int failed = write_all(fd, deflated, deflated_length) != 0 || fchmod(fd, 0444) != 0;
    if (close(fd) != 0) failed = 1;
    if (failed || rename(temporary, path) != 0) {
        fail("could not write the object", path);
        unlink(temporary);
        goto done;
    }
    backend->written += 1;
    code = 0;
done:
    free(deflated);
    free(folder);
    free(path);
    free(temporary);
    return code;
}

static int unflushed_write(
    git_odb_backend *parent, const git_oid *oid, const void *data, size_t length, git_object_t type) {
    unflushed_backend *backend = (unflushed_backend *)parent;
    if (backend->on <= 0 || length > DOCKET_UNFLUSHED_LARGEST) return GIT_PASSTHROUGH;
    return write_loose(backend, oid, data, length, type);
}

static int stream_write(git_odb_stream *parent, const char *bytes, size_t length) {
    unflushed_stream *stream = (unflushed_stream *)parent;
    if (length > stream->capacity - stream->length) {
        git_error_set_str(GIT_ERROR_ODB, "an object stream was given more than it declared");
        return -1;
    }
    memcpy(stream->bytes + stream->length, bytes, length);
    stream->length += length;
    return 0;
}

static int stream_finalize(git_odb_stream *parent, const git_oid *oid) {
    unflushed_stream *stream = (unflushed_stream *)parent;
    return write_loose((unflushed_backend *)parent->backend, oid, stream->bytes, stream->length, stream->type);
}

static void stream_free(git_odb_stream *parent) {
    unflushed_stream *stream = (unflushed_stream *)parent;
    free(stream->bytes);
    free(stream);
}

static int unflushed_writestream(
    git_odb_stream **out, git_odb_backend *parent, git_object_size_t size, git_object_t type) {
    unflushed_backend *backend = (unflushed_backend *)parent;
    if (backend->on <= 0 || size > DOCKET_UNFLUSHED_LARGEST) return GIT_PASSTHROUGH;
    unflushed_stream *stream = calloc(1, sizeof *stream);
    if (stream == NULL) return -1;
    stream->bytes = malloc(size > 0 ? (size_t)size : 1);
    if (stream->bytes == NULL) {
        free(stream);
        return -1;
    }
    stream->capacity = (size_t)size;
    stream->type = type;
    stream->parent.backend = parent;
    stream->parent.mode = GIT_STREAM_WRONLY;
    stream->parent.write = stream_write;
    stream->parent.finalize_write = stream_finalize;
    stream->parent.free = stream_free;
    *out = &stream->parent;
    return 0;
}

/* NB: libgit2 calls every backend's foreach without looking whether it has one. */
static int unflushed_foreach(git_odb_backend *parent, git_odb_foreach_cb callback, void *payload) {
    (void)parent;
    (void)callback;
    (void)payload;
    return 0;
}

static void unflushed_free(git_odb_backend *parent) {
    unflushed_backend *backend = (unflushed_backend *)parent;
    free(backend->objects);
    free(backend);
}

int docket_unflushed_objects_add(void **out, void *odb, const char *objects) {
    unflushed_backend *backend = calloc(1, sizeof *backend);
    if (backend == NULL) return -1;
    int code = git_odb_init_backend(&backend->parent, GIT_ODB_BACKEND_VERSION);
    backend->objects = strdup(objects);
    if (code < 0 || backend->objects == NULL) {
        free(backend->objects);
        free(backend);
        return code < 0 ? code : -1;
    }
    size_t length = strlen(backend->objects);
    while (length > 1 && backend->objects[length - 1] == '/') backend->objects[--length] = '\0';
    backend->parent.write = unflushed_write;
    backend->parent.writestream = unflushed_writestream;
    backend->parent.foreach = unflushed_foreach;
    backend->parent.free = unflushed_free;
    /* Ahead of libgit2's loose (1) and packed (2) backends, which it tries in falling priority. */
    code = git_odb_add_backend((git_odb *)odb, &backend->parent, 100);
    if (code < 0) {
        unflushed_free(&backend->parent);
        return code;
    }
    *out = backend;
    return 0;
}

void docket_unflushed_objects_switch(void *backend, int on) {
    ((unflushed_backend *)backend)->on += on ? 1 : -1;
}

unsigned long docket_unflushed_objects_written(const void *backend) {
    return ((const unflushed_backend *)backend)->written;
}
