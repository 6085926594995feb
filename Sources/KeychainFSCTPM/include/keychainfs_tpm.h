// The TPM 2.0 calls of keychainfs (docs/tpm.md), over tpm2-tss's ESAPI: a connection that owns its
// storage primary key and a salted session, and sealing/unsealing a small secret under it. Every function
// returns a TSS2_RC (0 on success); Tss2_RC_Decode names any other.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <tss2/tss2_common.h>
#include <tss2/tss2_rc.h>

typedef struct keychainfs_tpm keychainfs_tpm;

/* Connects through the TCTI `conf` ("device:/dev/tpmrm0", "swtpm:host=127.0.0.1,port=2321"), starts the
   TPM if it is not, and makes the storage primary key (ECC P-256, the TCG SRK template, so every
   connection to one TPM makes the same key) and an HMAC session salted by it, whose parameters travel
   encrypted. */
TSS2_RC keychainfs_tpm_open(const char *conf, keychainfs_tpm **out);
void keychainfs_tpm_close(keychainfs_tpm *tpm);

/* Seals `secret` (at most 128 bytes) under the primary key: a keyed-hash object whose authorization is
   `auth` (may be empty; then it is exempt from dictionary-attack counting) and, when `pcrs` (a bit mask
   of SHA-256 PCRs 0-23) is not 0, a policy of those PCRs' current values (and of `auth` when it is not
   empty). Writes the object as TPM2B_PUBLIC then TPM2B_PRIVATE, marshalled (what tpm2_load reads). */
TSS2_RC keychainfs_tpm_seal(
    keychainfs_tpm *tpm, const uint8_t *secret, size_t secret_size, const uint8_t *auth, size_t auth_size,
    uint32_t pcrs, uint8_t *blob, size_t blob_capacity, size_t *blob_size);

/* Loads a sealed blob under the primary key and unseals it into `secret` (capacity at least 128). The
   same `auth` and `pcrs` as when it was sealed; PCRs that changed fail the policy. */
TSS2_RC keychainfs_tpm_unseal(
    keychainfs_tpm *tpm, const uint8_t *blob, size_t blob_size, const uint8_t *auth, size_t auth_size,
    uint32_t pcrs, uint8_t *secret, size_t secret_capacity, size_t *secret_size);

/* Makes a P-256 key inside the TPM under the primary key (unrestricted, sign and decrypt: ECDSA and ECDH;
   fixedTPM, fixedParent: its private part never leaves it unwrapped). Writes the object as TPM2B_PUBLIC then
   TPM2B_PRIVATE and its public point (x, y: 32 bytes each). */
TSS2_RC keychainfs_tpm_create_p256(
    keychainfs_tpm *tpm, uint8_t *blob, size_t blob_capacity, size_t *blob_size, uint8_t x[32], uint8_t y[32]);

/* ECDSA with the key of `blob` over `digest` (20, 32, 48 or 64 bytes: SHA-1, -256, -384, -512), in the
   TPM: the signature's r and s, 32 bytes each. */
TSS2_RC keychainfs_tpm_sign_p256(
    keychainfs_tpm *tpm, const uint8_t *blob, size_t blob_size, const uint8_t *digest, size_t digest_size,
    uint8_t r[32], uint8_t s[32]);

/* ECDH with the key of `blob` and the peer's point (x, y), in the TPM (TPM2_ECDH_ZGen): the shared
   point's x coordinate, 32 bytes. */
TSS2_RC keychainfs_tpm_ecdh_p256(
    keychainfs_tpm *tpm, const uint8_t *blob, size_t blob_size, const uint8_t peer_x[32],
    const uint8_t peer_y[32], uint8_t shared_x[32]);

/* The seconds after which the TPM forgives one failed authorization (TPM2_PT_LOCKOUT_INTERVAL); 0 if unknown. */
uint32_t keychainfs_tpm_lockout_interval(keychainfs_tpm *tpm);

/* What a failed unseal means for its user. */
typedef enum {
    KEYCHAINFS_TPM_OTHER = 0,
    /* The object is not this TPM's (made by another, or its storage hierarchy was cleared), or damaged. */
    KEYCHAINFS_TPM_NOT_THIS_TPM,
    /* The PCRs the object is bound to hold other values than when it was sealed. */
    KEYCHAINFS_TPM_BOOT_STATE_CHANGED,
    /* The authorization is wrong; the TPM counted the failure. */
    KEYCHAINFS_TPM_WRONG_AUTHORIZATION,
    /* The TPM's dictionary-attack protection refuses every authorization for now. */
    KEYCHAINFS_TPM_LOCKOUT,
} keychainfs_tpm_failure;

keychainfs_tpm_failure keychainfs_tpm_classify(TSS2_RC rc);
