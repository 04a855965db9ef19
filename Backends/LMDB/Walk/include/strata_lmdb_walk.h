#ifndef STRATA_LMDB_WALK_H
#define STRATA_LMDB_WALK_H

#include <stddef.h>

/// Walks every page of the LMDB environment in the directory `path` in a forked child process,
/// so that damage liblmdb aborts on (assertion failures, faults on wild page numbers) ends the
/// child, not the caller. The child opens the environment read-only — without its lock file
/// when `use_lock` is 0 (verify: no file changes), or taking a reader slot in it when 1 (an open:
/// another process may be writing, and the slot keeps the pages of the child's snapshot from
/// being reused under it) — reads every entry of the free-page database, the main database and each named database
/// through cursors (touching every key and value byte, overflow pages included), compares the
/// counts with each database's statistics and writes one line per finding to a pipe.
///
/// Only C runs in the child (no Swift runtime, no other thread), which is what makes forking a
/// multithreaded process safe here. The child is killed by SIGALRM after `timeout_seconds`
/// (a damaged page can point back at its parent, an endless walk).
///
/// Returns 0 when a child ran: `*status` is its `waitpid` status and `report` holds its lines
/// (NUL-terminated, cut to `capacity`). Returns an `errno` value when no child could be started.
int strata_lmdb_walk_in_child(
    const char *path, int use_lock, unsigned timeout_seconds, char *report, size_t capacity, int *status);

#endif
