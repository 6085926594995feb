// durablefloor: the floor for a durable creation and update (docs/spec.md §7): COUNT genp-like rows inserted,
// then COUNT updated, each statement its own transaction, in SQLite WAL mode with the given synchronous
// setting (FULL: each commit fsyncs the WAL, as keychainfs's store does; NORMAL: as it once did).
//   durablefloor DIRECTORY COUNT full|normal      prints "INSERT_MS UPDATE_MS" (ms per row)
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }

static void check(int rc, sqlite3 *db, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: durablefloor DIRECTORY COUNT full|normal\n"); return 2; }
    int count = atoi(argv[2]), full = strcmp(argv[3], "full") == 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/floor-%d.sqlite", argv[1], (int)getpid());
    sqlite3 *db;
    check(sqlite3_open(path, &db), db, "open");
    check(sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL), db, "wal");
    check(sqlite3_exec(db, full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL", NULL, NULL, NULL), db, "sync");
    // The item table's shape: lookup hashes under a unique index, the sealed value in a blob.
    check(sqlite3_exec(db, "CREATE TABLE genp (id INTEGER PRIMARY KEY, svce BLOB, acct BLOB, data BLOB, mdat REAL, "
                           "UNIQUE (svce, acct))", NULL, NULL, NULL), db, "create");
    sqlite3_stmt *insert, *update;
    check(sqlite3_prepare_v2(db, "INSERT INTO genp (svce, acct, data, mdat) VALUES (?, ?, ?, ?)", -1, &insert, NULL), db, "prepare");
    check(sqlite3_prepare_v2(db, "UPDATE genp SET data = ?, mdat = ? WHERE svce = ? AND acct = ?", -1, &update, NULL), db, "prepare");
    unsigned char sealed[96], hash[32];
    memset(sealed, 7, sizeof sealed);
    double times[2];
    for (int pass = 0; pass < 2; pass++) {
        sqlite3_stmt *statement = pass == 0 ? insert : update;
        double start = now();
        for (int i = 0; i < count; i++) {
            memset(hash, 0, sizeof hash);
            memcpy(hash, &i, sizeof i);
            check(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), db, "begin");
            if (pass == 0) {
                sqlite3_bind_blob(statement, 1, "svc-hash-0123456789abcdef0123456", 32, SQLITE_STATIC);
                sqlite3_bind_blob(statement, 2, hash, 32, SQLITE_TRANSIENT);
                sqlite3_bind_blob(statement, 3, sealed, sizeof sealed, SQLITE_STATIC);
                sqlite3_bind_double(statement, 4, now());
            } else {
                sqlite3_bind_blob(statement, 1, sealed, sizeof sealed, SQLITE_STATIC);
                sqlite3_bind_double(statement, 2, now());
                sqlite3_bind_blob(statement, 3, "svc-hash-0123456789abcdef0123456", 32, SQLITE_STATIC);
                sqlite3_bind_blob(statement, 4, hash, 32, SQLITE_TRANSIENT);
            }
            check(sqlite3_step(statement), db, "step");
            sqlite3_reset(statement);
            check(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), db, "commit");
        }
        times[pass] = (now() - start) * 1000 / count;
    }
    printf("%.4f %.4f\n", times[0], times[1]);
    sqlite3_finalize(insert);
    sqlite3_finalize(update);
    sqlite3_close(db);
    for (const char *suffix = ""; ; suffix = suffix[0] == 0 ? "-wal" : "-shm") {
        char file[4200];
        snprintf(file, sizeof file, "%s%s", path, suffix);
        unlink(file);
        if (strcmp(suffix, "-shm") == 0) break;
    }
    return 0;
}
