// enginefloor: the floor under one engine call (docs/spec.md §7), written by hand in C with no abstraction, on
// the engine's own vault shape, so that bench/run can print each engine call as a ratio to it.
//   enginefloor ITEMS_SQLITE [ITERATIONS]   prints per operation: median and p99 in µs
// ITEMS_SQLITE is any vault's items.sqlite made by the engine (bench/run makes one with BuildVault): its
// genp table and indexes are copied into a fresh database, opened as ItemStore opens its own (WAL,
// synchronous NORMAL, secure_delete ON), and filled with 1,000 items as bench/engine's fixture is.
// Per call, what the engine must do at the least (sizes as the engine's rows have them):
//   add          13 keyed BLAKE2b-128 lookup hashes (the columns a new genp row fills), a random row key
//                wrapped by the class key, the secret sealed under it, the attributes (151 bytes) sealed
//                under the metadata key bound to the lookups; one INSERT in one write transaction
//   copyMatching 3 hashes (svce, acct, agrp), one SELECT on the UNIQUE index; the metadata box opened
//                (a query's answer must be authenticated), the row key unwrapped, the secret opened
//   update       3 hashes, SELECT, metadata opened; mdat hashed again, a new row key, secret and metadata
//                sealed; one UPDATE by rowid; select and update in one write transaction
//   delete       3 hashes, one DELETE on the UNIQUE index in one write transaction (the row it deletes is
//                added first, untimed, as bench/engine's delete does)
// Boxes are libsodium's XChaCha20-Poly1305 (IETF), as KeychainFSSodium's AEAD; statements are prepared once.
#include <sodium.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ITEMS 1000
#define HASH 16
#define KEY crypto_aead_xchacha20poly1305_ietf_KEYBYTES
#define NONCE crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define TAG crypto_aead_xchacha20poly1305_ietf_ABYTES
#define METADATA 151  // the plaintext of a bench item's metadata box (191-byte box)

static sqlite3 *db;
static unsigned char class_key[KEY], metadata_key[KEY], index_key[32];
static sqlite3_stmt *insert_row, *select_row, *update_row, *delete_row;

static void die(const char *what) { fprintf(stderr, "enginefloor: %s: %s\n", what, db ? sqlite3_errmsg(db) : ""); exit(1); }
static void exec(const char *sql) { if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) die(sql); }
static uint64_t now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec; }

// KeyDerivation.keyedHash: each part preceded by its length (32-bit big-endian), keyed BLAKE2b-128.
static void lookup_hash(unsigned char out[HASH], const char *code, const void *value, size_t length) {
    crypto_generichash_state state;
    crypto_generichash_init(&state, index_key, sizeof index_key, HASH);
    unsigned char prefix[4];
    size_t codelength = strlen(code);
    prefix[0] = 0; prefix[1] = 0; prefix[2] = codelength >> 8; prefix[3] = codelength & 0xff;
    crypto_generichash_update(&state, prefix, 4);
    crypto_generichash_update(&state, (const unsigned char *)code, codelength);
    prefix[0] = length >> 24; prefix[1] = length >> 16; prefix[2] = length >> 8; prefix[3] = length & 0xff;
    crypto_generichash_update(&state, prefix, 4);
    crypto_generichash_update(&state, value, length);
    crypto_generichash_final(&state, out, HASH);
}

static size_t seal(unsigned char *box, const unsigned char *plain, size_t length, const unsigned char *key,
                   const unsigned char *ad, size_t adlength) {
    unsigned long long written;
    randombytes_buf(box, NONCE);
    crypto_aead_xchacha20poly1305_ietf_encrypt(box + NONCE, &written, plain, length, ad, adlength, NULL, box, key);
    return NONCE + written;
}

static int open_box(unsigned char *plain, const unsigned char *box, size_t length, const unsigned char *key,
                    const unsigned char *ad, size_t adlength) {
    unsigned long long written;
    if (length < NONCE + TAG) return -1;
    return crypto_aead_xchacha20poly1305_ietf_decrypt(plain, &written, NULL, box + NONCE, length - NONCE, ad, adlength, box, key);
}

// The identity a box is bound to (ItemSealer.identity), and the metadata binding: identity + lookups.
static size_t identity(unsigned char *out, const char *part, const unsigned char uuid[16]) {
    size_t n = (size_t)sprintf((char *)out, "keychainfs.item.v1/%s/genp/ak/", part);
    memcpy(out + n, uuid, 16);
    return n + 16;
}

static size_t binding(unsigned char *out, const unsigned char uuid[16], unsigned char lookups[][HASH], int count, size_t secret) {
    size_t n = identity(out, "metadata", uuid);
    for (int i = 0; i < 30; i++) {  // every column of the row, present or not
        if (i < count) { out[n++] = 1; memcpy(out + n, lookups[i], HASH); n += HASH; } else out[n++] = 0;
    }
    memcpy(out + n, "/shape/\1", 8); n += 8;
    uint64_t le = secret; memcpy(out + n, &le, 8);
    return n + 8;
}

struct row { unsigned char uuid[16], rowkey[NONCE + KEY + TAG], secret[NONCE + 64 + TAG], metadata[NONCE + METADATA + TAG];
             size_t secretlength, metadatalength; unsigned char lookups[13][HASH]; };

// Everything an add or an update computes for one row: 13 hashes, three boxes.
static void seal_row(struct row *r, const char *service, const char *account, const char *secret) {
    static const char *codes[13] = {"cdat", "mdat", "agrp", "pdmn", "sync", "tomb", "vwht", "tkid", "musr", "ggrp", "acct", "svce", "labl"};
    char now[16]; snprintf(now, sizeof now, "%llu", (unsigned long long)now_ns());
    for (int i = 0; i < 13; i++) {
        const char *value = i == 10 ? account : i == 11 ? service : i < 2 ? now : "default";
        lookup_hash(r->lookups[i], codes[i], value, strlen(value));
    }
    unsigned char rowkey[KEY], ad[600], attributes[METADATA];
    randombytes_buf(rowkey, KEY);
    size_t n = identity(ad, "rowkey", r->uuid);
    seal(r->rowkey, rowkey, KEY, class_key, ad, n);
    n = identity(ad, "secret", r->uuid);
    r->secretlength = seal(r->secret, (const unsigned char *)secret, strlen(secret), rowkey, ad, n);
    memset(attributes, 'a', sizeof attributes);
    n = binding(ad, r->uuid, r->lookups, 13, r->secretlength);
    r->metadatalength = seal(r->metadata, attributes, sizeof attributes, metadata_key, ad, n);
    sodium_memzero(rowkey, sizeof rowkey);
}

static void bind_row(sqlite3_stmt *s, const struct row *r) {
    sqlite3_bind_blob(s, 1, r->uuid, 16, SQLITE_STATIC);
    sqlite3_bind_int(s, 2, 1);
    sqlite3_bind_blob(s, 3, r->metadata, (int)r->metadatalength, SQLITE_STATIC);
    sqlite3_bind_blob(s, 4, r->rowkey, sizeof r->rowkey, SQLITE_STATIC);
    sqlite3_bind_blob(s, 5, r->secret, (int)r->secretlength, SQLITE_STATIC);
    for (int i = 0; i < 13; i++) sqlite3_bind_blob(s, 6 + i, r->lookups[i], HASH, SQLITE_STATIC);
}

static void step_done(sqlite3_stmt *s, const char *what) {
    if (sqlite3_step(s) != SQLITE_DONE) die(what);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

static void add(const char *service, const char *account, const char *secret) {
    struct row r;
    randombytes_buf(r.uuid, 16);
    seal_row(&r, service, account, secret);
    exec("BEGIN IMMEDIATE");
    bind_row(insert_row, &r);
    step_done(insert_row, "insert");
    exec("COMMIT");
}

// The name lookup every by-name call starts with: svce, acct and the caller's access group.
static void name_hashes(unsigned char h[3][HASH], const char *service, const char *account) {
    lookup_hash(h[0], "acct", account, strlen(account));
    lookup_hash(h[1], "svce", service, strlen(service));
    lookup_hash(h[2], "agrp", "default", 7);
}

// Selects the row by name and opens its metadata box; with `secret`, also its secret. Returns the rowid.
static sqlite3_int64 find(const char *service, const char *account, unsigned char *secret) {
    unsigned char h[3][HASH], ad[600], plain[512], lookups[13][HASH] = {{0}};
    name_hashes(h, service, account);
    for (int i = 0; i < 3; i++) sqlite3_bind_blob(select_row, 1 + i, h[i], HASH, SQLITE_STATIC);
    if (sqlite3_step(select_row) != SQLITE_ROW) die("select");
    sqlite3_int64 rowid = sqlite3_column_int64(select_row, 0);
    const unsigned char *uuid = sqlite3_column_blob(select_row, 1);
    size_t secretlength = (size_t)sqlite3_column_bytes(select_row, 5);
    for (int i = 0; i < 13; i++) { const void *b = sqlite3_column_blob(select_row, 6 + i); if (b) memcpy(lookups[i], b, HASH); }
    size_t n = binding(ad, uuid, lookups, 13, secretlength);
    if (open_box(plain, sqlite3_column_blob(select_row, 3), (size_t)sqlite3_column_bytes(select_row, 3), metadata_key, ad, n) != 0) die("metadata");
    if (secret) {
        unsigned char rowkey[KEY];
        n = identity(ad, "rowkey", uuid);
        if (open_box(rowkey, sqlite3_column_blob(select_row, 4), (size_t)sqlite3_column_bytes(select_row, 4), class_key, ad, n) != 0) die("row key");
        n = identity(ad, "secret", uuid);
        if (open_box(secret, sqlite3_column_blob(select_row, 5), secretlength, rowkey, ad, n) != 0) die("secret");
        sodium_memzero(rowkey, sizeof rowkey);
    }
    sqlite3_reset(select_row);
    sqlite3_clear_bindings(select_row);
    return rowid;
}

static void update(const char *service, const char *account) {
    exec("BEGIN IMMEDIATE");
    struct row r;
    sqlite3_int64 rowid = find(service, account, NULL);
    randombytes_buf(r.uuid, 16);  // the engine keeps the UUID; the cost is the same
    seal_row(&r, service, account, "rotated");
    bind_row(update_row, &r);
    sqlite3_bind_int64(update_row, 19, rowid);
    step_done(update_row, "update");
    exec("COMMIT");
}

static void delete(const char *service, const char *account) {
    unsigned char h[3][HASH];
    exec("BEGIN IMMEDIATE");
    name_hashes(h, service, account);
    for (int i = 0; i < 3; i++) sqlite3_bind_blob(delete_row, 1 + i, h[i], HASH, SQLITE_STATIC);
    step_done(delete_row, "delete");
    if (sqlite3_changes(db) != 1) die("delete found no row");
    exec("COMMIT");
}

static int compare(const void *a, const void *b) { uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b; return x < y ? -1 : x > y; }

static void report(const char *name, uint64_t *ns, int count) {
    qsort(ns, (size_t)count, sizeof *ns, compare);
    printf("%-14s %10.2f %10.2f %10d\n", name, ns[count / 2] / 1000.0, ns[(int)(count * 0.99)] / 1000.0, count);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: enginefloor ITEMS_SQLITE [ITERATIONS]\n"); return 2; }
    int iterations = argc > 2 ? atoi(argv[2]) : 5000;
    if (sodium_init() < 0 || iterations < 100) return 2;
    randombytes_buf(class_key, KEY); randombytes_buf(metadata_key, KEY); randombytes_buf(index_key, sizeof index_key);

    // The engine's genp table and indexes, as the engine made them.
    sqlite3 *schema;
    if (sqlite3_open_v2(argv[1], &schema, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) { fprintf(stderr, "enginefloor: cannot open %s\n", argv[1]); return 1; }
    sqlite3_stmt *ddl;
    if (sqlite3_prepare_v2(schema, "SELECT sql FROM sqlite_master WHERE tbl_name = 'genp' AND sql IS NOT NULL ORDER BY type DESC", -1, &ddl, NULL) != SQLITE_OK) return 1;
    char directory[] = "/tmp/enginefloor-XXXXXX", path[64];
    if (!mkdtemp(directory)) { perror("mkdtemp"); return 1; }
    snprintf(path, sizeof path, "%s/items.sqlite", directory);
    if (sqlite3_open(path, &db) != SQLITE_OK) die(path);
    exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON");
    int tables = 0;
    while (sqlite3_step(ddl) == SQLITE_ROW) { exec((const char *)sqlite3_column_text(ddl, 0)); tables++; }
    sqlite3_finalize(ddl);
    sqlite3_close(schema);
    if (tables == 0) { fprintf(stderr, "enginefloor: %s has no genp table\n", argv[1]); return 1; }

    const char *columns = "uuid, keyclass, metadata, rowkey, secret, h_cdat, h_mdat, h_agrp, h_pdmn, h_sync, h_tomb, h_vwht, h_tkid, h_musr, h_ggrp, h_acct, h_svce, h_labl";
    char sql[1024];
    snprintf(sql, sizeof sql, "INSERT INTO genp (%s) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", columns);
    if (sqlite3_prepare_v2(db, sql, -1, &insert_row, NULL) != SQLITE_OK) die("prepare insert");
    snprintf(sql, sizeof sql, "SELECT rowid, %s FROM genp WHERE h_acct = ? AND h_svce = ? AND h_agrp = ?", columns);
    if (sqlite3_prepare_v2(db, sql, -1, &select_row, NULL) != SQLITE_OK) die("prepare select");
    if (sqlite3_prepare_v2(db, "UPDATE genp SET uuid=?, keyclass=?, metadata=?, rowkey=?, secret=?, h_cdat=?, h_mdat=?, h_agrp=?, h_pdmn=?, "
                               "h_sync=?, h_tomb=?, h_vwht=?, h_tkid=?, h_musr=?, h_ggrp=?, h_acct=?, h_svce=?, h_labl=? WHERE rowid = ?",
                           -1, &update_row, NULL) != SQLITE_OK) die("prepare update");
    if (sqlite3_prepare_v2(db, "DELETE FROM genp WHERE h_acct = ? AND h_svce = ? AND h_agrp = ?", -1, &delete_row, NULL) != SQLITE_OK) die("prepare delete");

    char account[64], secret[64];
    for (int i = 0; i < ITEMS; i++) {
        snprintf(account, sizeof account, "account%d", i);
        snprintf(secret, sizeof secret, "secret-%d", i);
        add("bench.service", account, secret);
    }
    uint64_t *ns = calloc((size_t)iterations, sizeof *ns);
    unsigned char plain[128];
    printf("%-14s %10s %10s %10s\n", "operation", "median_us", "p99_us", "iterations");
    for (int i = 0; i < iterations; i++) {
        snprintf(account, sizeof account, "new-%d", i);
        uint64_t start = now_ns();
        add("bench.added", account, "s");
        ns[i] = now_ns() - start;
    }
    report("add", ns, iterations);
    // The same walk as bench/engine's: a stride coprime with the count never repeats a neighbour.
    for (int i = 0, cursor = 0; i < iterations; i++) {
        cursor = (cursor + 7919) % ITEMS;
        snprintf(account, sizeof account, "account%d", cursor);
        uint64_t start = now_ns();
        find("bench.service", account, plain);
        ns[i] = now_ns() - start;
    }
    report("copyMatching", ns, iterations);
    for (int i = 0, cursor = 0; i < iterations; i++) {
        cursor = (cursor + 7919) % ITEMS;
        snprintf(account, sizeof account, "account%d", cursor);
        uint64_t start = now_ns();
        update("bench.service", account);
        ns[i] = now_ns() - start;
    }
    report("update", ns, iterations);
    for (int i = 0; i < iterations; i++) {
        snprintf(account, sizeof account, "gone-%d", i);
        add("bench.deleted", account, "s");
        uint64_t start = now_ns();
        delete("bench.deleted", account);
        ns[i] = now_ns() - start;
    }
    report("delete", ns, iterations);
    free(ns);
    sqlite3_close(db);
    char wal[80];
    snprintf(wal, sizeof wal, "%s-wal", path); unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path); unlink(wal);
    unlink(path);
    rmdir(directory);
    return 0;
}
