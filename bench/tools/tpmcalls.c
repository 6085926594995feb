/* bench/tools/tpmcalls: keychainfs's own TPM calls (Sources/KeychainFSCTPM), timed as the daemon makes them:
   each one connects, makes the primary key and salted session, loads, acts and disconnects.
   `tpmcalls seal TCTI FILE`        seals a random 32-byte key into FILE;
   `tpmcalls unseal TCTI FILE N`    unseals it N times;
   `tpmcalls key TCTI FILE`         makes a P-256 key in the TPM (a Secure Enclave key) into FILE;
   `tpmcalls sign TCTI FILE N`      signs a SHA-256 digest with it N times;
   `tpmcalls ecdh TCTI FILE N`      runs ECDH with it and a fixed peer N times (the peer: its own point).
   The timed modes print the mean seconds. */
#include "keychainfs_tpm.h"

#include <tss2/tss2_mu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: tpmcalls seal|key TCTI FILE | tpmcalls unseal|sign|ecdh TCTI FILE N\n");
        return 64;
    }
    keychainfs_tpm *tpm = NULL;
    uint8_t blob[1024];
    size_t size = 0;
    if (strcmp(argv[1], "key") == 0 || strcmp(argv[1], "seal") == 0) {
        uint8_t key[32], x[32], y[32];
        FILE *random = fopen("/dev/urandom", "rb");
        if (random == NULL || fread(key, 1, sizeof key, random) != sizeof key) return 1;
        fclose(random);
        TSS2_RC rc = keychainfs_tpm_open(argv[2], &tpm);
        if (rc == 0 && argv[1][0] == 'k') rc = keychainfs_tpm_create_p256(tpm, blob, sizeof blob, &size, x, y);
        if (rc == 0 && argv[1][0] == 's') {
            rc = keychainfs_tpm_seal(tpm, key, sizeof key, NULL, 0, 0, blob, sizeof blob, &size);
        }
        keychainfs_tpm_close(tpm);
        if (rc != 0) { fprintf(stderr, "%s: %s\n", argv[1], Tss2_RC_Decode(rc)); return 1; }
        FILE *out = fopen(argv[3], "wb");
        if (out == NULL || fwrite(blob, 1, size, out) != size) return 1;
        fclose(out);
        return 0;
    }
    if (argc < 5) return 64;
    FILE *in = fopen(argv[3], "rb");
    if (in == NULL) return 1;
    size = fread(blob, 1, sizeof blob, in);
    fclose(in);
    int rounds = atoi(argv[4]);
    uint8_t digest[32] = {1, 2, 3}, x[32], y[32];
    if (strcmp(argv[1], "ecdh") == 0) {
        /* The peer: the key's own public point (any point on the curve does). */
        TPM2B_PUBLIC public = {0};
        size_t offset = 0;
        if (Tss2_MU_TPM2B_PUBLIC_Unmarshal(blob, size, &offset, &public) != 0) return 1;
        memcpy(x, public.publicArea.unique.ecc.x.buffer, 32);
        memcpy(y, public.publicArea.unique.ecc.y.buffer, 32);
    }
    double start = now();
    for (int i = 0; i < rounds; i++) {
        uint8_t key[32], r[32], s[32];
        size_t length = 32;
        TSS2_RC rc = keychainfs_tpm_open(argv[2], &tpm);
        if (rc == 0 && strcmp(argv[1], "unseal") == 0) {
            rc = keychainfs_tpm_unseal(tpm, blob, size, NULL, 0, 0, key, sizeof key, &length);
        } else if (rc == 0 && strcmp(argv[1], "sign") == 0) {
            rc = keychainfs_tpm_sign_p256(tpm, blob, size, digest, sizeof digest, r, s);
        } else if (rc == 0 && strcmp(argv[1], "ecdh") == 0) {
            rc = keychainfs_tpm_ecdh_p256(tpm, blob, size, x, y, key);
        }
        keychainfs_tpm_close(tpm);
        if (rc != 0 || length != 32) { fprintf(stderr, "%s: %s\n", argv[1], Tss2_RC_Decode(rc)); return 1; }
    }
    printf("%.6f\n", (now() - start) / rounds);
    return 0;
}
