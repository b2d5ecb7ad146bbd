#ifndef DOCKET_CGIT2_SHIM_H
#define DOCKET_CGIT2_SHIM_H

#include <git2.h>

/* git_libgit2_opts is variadic and does not import into Swift: one non-variadic entry per option Docket sets. */
static inline int docket_git_enable_fsync_gitdir(int enabled) {
    return git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, enabled);
}

/* Whether libgit2 fsyncs the files it writes in a git folder. NB: libgit2 1.5 has no option that reads
   GIT_OPT_ENABLE_FSYNC_GITDIR back; this reads the flag the option sets (libgit2 is linked statically). */
static inline int docket_git_fsyncs_gitdir(void) {
    extern _Bool git_repository__fsync_gitdir;
    return git_repository__fsync_gitdir;
}

/* Turns libgit2's check that a repository belongs to the current user on or off (git's safe.directory). */
static inline int docket_git_set_owner_validation(int enabled) {
    return git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, enabled);
}

/* Lets libgit2 open a repository of format 1 that names extensions.worktreeConfig, as `git sparse-checkout` sets
   it in a partial clone (whose extensions.partialclone makes its format 1). libgit2 1.5 does not read the
   worktree's own configuration; Docket reads the sparse settings there itself (Repository.looksAtPresentSkippedFiles). */
static inline int docket_git_allow_worktree_config(void) {
    const char *extensions[] = {"worktreeconfig"};
    return git_libgit2_opts(GIT_OPT_SET_EXTENSIONS, extensions, (size_t)1);
}

/* Lets libgit2's object cache keep trees up to `bytes` long (4 KiB by default). */
static inline int docket_git_set_tree_cache_limit(size_t bytes) {
    return git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, bytes);
}

/* Trusts the certificates in `file` (PEM) for https remotes. */
static inline int docket_git_set_ssl_cert_file(const char *file) {
    return git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, NULL);
}

/* Trusts the certificates in `file` (PEM, may be NULL) and the folder `path` (may be NULL). */
static inline int docket_git_set_ssl_cert_locations(const char *file, const char *path) {
    return git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, file, path);
}

/* Flushes the whole file system holding `fd` to disk (Linux's syncfs(2)). */
static inline int docket_syncfs(int fd) {
    extern int syncfs(int);
    return syncfs(fd);
}

#endif
