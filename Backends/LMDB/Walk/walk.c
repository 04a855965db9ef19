#define _GNU_SOURCE
#include "strata_lmdb_walk.h"

#include <errno.h>
#include <lmdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

static volatile unsigned char touched;

static void touch(const MDB_val *value) {
    const unsigned char *bytes = value->mv_data;
    unsigned char sum = 0;
    for (size_t i = 0; i < value->mv_size; i++) sum ^= bytes[i];
    touched ^= sum;
}

/// Reads every entry of `dbi`; reports an error or a count that disagrees with the statistics.
static unsigned long long walk_database(int fd, MDB_txn *txn, MDB_dbi dbi, const char *name) {
    MDB_cursor *cursor;
    int rc = mdb_cursor_open(txn, dbi, &cursor);
    if (rc != 0) {
        dprintf(fd, "error %d %s: cannot open a cursor: %s\n", rc, name, mdb_strerror(rc));
        return 0;
    }
    MDB_val key, value;
    unsigned long long count = 0;
    rc = mdb_cursor_get(cursor, &key, &value, MDB_FIRST);
    while (rc == 0) {
        touch(&key);
        touch(&value);
        count++;
        rc = mdb_cursor_get(cursor, &key, &value, MDB_NEXT);
    }
    if (rc != MDB_NOTFOUND) dprintf(fd, "error %d %s: the walk stopped after %llu entries: %s\n", rc, name, count, mdb_strerror(rc));
    mdb_cursor_close(cursor);
    MDB_stat stat;
    if (rc == MDB_NOTFOUND && mdb_stat(txn, dbi, &stat) == 0 && stat.ms_entries != count) {
        dprintf(fd, "count %s: %llu entries reachable, %llu recorded\n", name, count, (unsigned long long)stat.ms_entries);
    }
    return count;
}

static void walk(const char *path, int use_lock, unsigned timeout_seconds, int fd) {
    // The parent's handlers (the Swift runtime's crash backtracer among them) are inherited: a
    // fault here must simply end the child, and liblmdb's assertion text goes into the report.
    int signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGALRM};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) signal(signals[i], SIG_DFL);
    dup2(fd, STDERR_FILENO);
    alarm(timeout_seconds);
    MDB_env *env;
    int rc = mdb_env_create(&env);
    if (rc == 0) rc = mdb_env_set_maxdbs(env, 65536);
    if (rc == 0) rc = mdb_env_open(env, path, MDB_RDONLY | MDB_NOTLS | (use_lock ? 0 : MDB_NOLOCK), 0644);
    MDB_txn *txn = NULL;
    if (rc == 0) rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
    if (rc != 0) {
        dprintf(fd, "error %d (environment): %s\n", rc, mdb_strerror(rc));
        _exit(2);
    }
    walk_database(fd, txn, 0, "(free pages)");
    MDB_dbi main_dbi;
    rc = mdb_dbi_open(txn, NULL, 0, &main_dbi);
    if (rc != 0) {
        dprintf(fd, "error %d (main database): %s\n", rc, mdb_strerror(rc));
        _exit(2);
    }
    unsigned long long databases = walk_database(fd, txn, main_dbi, "(main database)");
    MDB_cursor *cursor;
    if (mdb_cursor_open(txn, main_dbi, &cursor) == 0) {
        MDB_val key, value;
        int step = mdb_cursor_get(cursor, &key, &value, MDB_FIRST);
        while (step == 0) {
            char *name = malloc(key.mv_size + 1);
            if (name == NULL) _exit(3);
            memcpy(name, key.mv_data, key.mv_size);
            name[key.mv_size] = 0;
            MDB_dbi dbi;
            int opened = mdb_dbi_open(txn, name, 0, &dbi);
            if (opened == 0) {
                walk_database(fd, txn, dbi, name);
            } else if (opened != MDB_INCOMPATIBLE) {
                dprintf(fd, "error %d %s: cannot be opened: %s\n", opened, name, mdb_strerror(opened));
            }
            free(name);
            step = mdb_cursor_get(cursor, &key, &value, MDB_NEXT);
        }
        mdb_cursor_close(cursor);
    }
    dprintf(fd, "walked %llu databases\n", databases);
    _exit(0);
}

int strata_lmdb_walk_in_child(
    const char *path, int use_lock, unsigned timeout_seconds, char *report, size_t capacity, int *status) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return errno;
    pid_t child = fork();
    if (child < 0) {
        int error = errno;
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return error;
    }
    if (child == 0) {
        close(pipe_fds[0]);
        walk(path, use_lock, timeout_seconds, pipe_fds[1]);
        _exit(0);
    }
    close(pipe_fds[1]);
    size_t used = 0;
    char scratch[512];
    for (;;) {
        ssize_t got = read(pipe_fds[0], scratch, sizeof scratch);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        size_t room = capacity > used + 1 ? capacity - used - 1 : 0;
        size_t take = (size_t)got < room ? (size_t)got : room;
        memcpy(report + used, scratch, take);
        used += take;
    }
    if (capacity > 0) report[used < capacity ? used : capacity - 1] = 0;
    close(pipe_fds[0]);
    while (waitpid(child, status, 0) < 0) {
        if (errno != EINTR) return errno;
    }
    return 0;
}
