/* bench/tools/tpmunseal: keychainfs's own TPM calls (Sources/KeychainFSCTPM), timed as a mount makes them.
   `tpmunseal seal TCTI FILE` seals a random 32-byte key into FILE; `tpmunseal unseal TCTI FILE N` connects,
   makes the primary key and salted session, unseals and disconnects N times and prints the mean seconds. */
#include "keychainfs_tpm.h"

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
        fprintf(stderr, "usage: tpmunseal seal TCTI FILE | tpmunseal unseal TCTI FILE N\n");
        return 64;
    }
    keychainfs_tpm *tpm = NULL;
    uint8_t blob[1024];
    size_t size = 0;
    if (strcmp(argv[1], "seal") == 0) {
        uint8_t key[32];
        FILE *random = fopen("/dev/urandom", "rb");
        if (random == NULL || fread(key, 1, sizeof key, random) != sizeof key) return 1;
        fclose(random);
        TSS2_RC rc = keychainfs_tpm_open(argv[2], &tpm);
        if (rc == 0) rc = keychainfs_tpm_seal(tpm, key, sizeof key, NULL, 0, 0, blob, sizeof blob, &size);
        keychainfs_tpm_close(tpm);
        if (rc != 0) { fprintf(stderr, "seal: %s\n", Tss2_RC_Decode(rc)); return 1; }
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
    double start = now();
    for (int i = 0; i < rounds; i++) {
        uint8_t key[32];
        size_t length = 0;
        TSS2_RC rc = keychainfs_tpm_open(argv[2], &tpm);
        if (rc == 0) rc = keychainfs_tpm_unseal(tpm, blob, size, NULL, 0, 0, key, sizeof key, &length);
        keychainfs_tpm_close(tpm);
        if (rc != 0 || length != 32) { fprintf(stderr, "unseal: %s\n", Tss2_RC_Decode(rc)); return 1; }
    }
    printf("%.6f\n", (now() - start) / rounds);
    return 0;
}
