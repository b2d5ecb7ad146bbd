#ifndef DOCKET_UNFLUSHED_OBJECTS_H
#define DOCKET_UNFLUSHED_OBJECTS_H

/* An object database backend, one per repository, that writes loose objects
   without an fsync each while its repository has it switched on, and passes
   every write to libgit2's own backends otherwise.

   NB: libgit2 1.5's loose backend fsyncs each object file and its folder
   whenever the process-wide GIT_OPT_ENABLE_FSYNC_GITDIR is on, and turning that
   off for one repository's commit turns it off for every other repository in
   the process. With this backend, a repository writing many objects at once
   writes them unflushed and flushes them together (one syncfs) before any
   reference names them, while every other write in the process, this
   repository's outside that window included, stays fsynced. */

/* How the names of the backend's temporary files start (then six characters from mkstemp), in the objects folder. */
#define DOCKET_UNFLUSHED_TEMPORARY_PREFIX "tmp_obj_"

/* Adds the backend to `odb` (a git_odb *, owned by its repository), ahead of
   the loose and packed backends, writing under the folder `objects`. Returns 0
   and the backend in `out` (owned by the odb), or libgit2's error code. */
int docket_unflushed_objects_add(void **out, void *odb, const char *objects);

/* Switches the backend on (`on` 1) or off (0); calls nest. */
void docket_unflushed_objects_switch(void *backend, int on);

/* How many objects the backend has written itself. */
unsigned long docket_unflushed_objects_written(const void *backend);

#endif
