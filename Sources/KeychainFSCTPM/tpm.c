#include "keychainfs_tpm.h"

#include <stdlib.h>
#include <string.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_tctildr.h>

struct keychainfs_tpm {
    TSS2_TCTI_CONTEXT *tcti;
    ESYS_CONTEXT *esys;
    ESYS_TR primary;
    ESYS_TR session;
};

static const TPMT_SYM_DEF session_cipher = {
    .algorithm = TPM2_ALG_AES, .keyBits = {.aes = 128}, .mode = {.aes = TPM2_ALG_CFB}};

/* The TCG storage root key template, ECC P-256 (TCG TPM v2.0 Provisioning Guidance, 7.5.1). */
static TPM2B_PUBLIC primary_template(void) {
    TPM2B_PUBLIC template = {0};
    template.publicArea.type = TPM2_ALG_ECC;
    template.publicArea.nameAlg = TPM2_ALG_SHA256;
    template.publicArea.objectAttributes = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_FIXEDTPM |
        TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA;
    TPMS_ECC_PARMS *ecc = &template.publicArea.parameters.eccDetail;
    ecc->symmetric.algorithm = TPM2_ALG_AES;
    ecc->symmetric.keyBits.aes = 128;
    ecc->symmetric.mode.aes = TPM2_ALG_CFB;
    ecc->scheme.scheme = TPM2_ALG_NULL;
    ecc->curveID = TPM2_ECC_NIST_P256;
    ecc->kdf.scheme = TPM2_ALG_NULL;
    return template;
}

static TPML_PCR_SELECTION pcr_selection(uint32_t pcrs) {
    TPML_PCR_SELECTION selection = {0};
    selection.count = 1;
    selection.pcrSelections[0].hash = TPM2_ALG_SHA256;
    selection.pcrSelections[0].sizeofSelect = 3;
    for (int i = 0; i < 24; i++) {
        if (pcrs & (1u << i)) selection.pcrSelections[0].pcrSelect[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    return selection;
}

/* Whether `rc` is the TPM's response code `code`, whatever handle, session or parameter it names. */
static int keychainfs_tpm_rc_is(TSS2_RC rc, uint32_t code) {
    if ((rc & TSS2_RC_LAYER_MASK) != TSS2_TPM_RC_LAYER) return 0;
    uint32_t value = rc & 0xFFFF;
    if (value & TPM2_RC_FMT1) return (value & (TPM2_RC_FMT1 | 0x3F)) == code;
    return value == code;
}

keychainfs_tpm_failure keychainfs_tpm_classify(TSS2_RC rc) {
    if (keychainfs_tpm_rc_is(rc, TPM2_RC_LOCKOUT)) return KEYCHAINFS_TPM_LOCKOUT;
    if (keychainfs_tpm_rc_is(rc, TPM2_RC_POLICY_FAIL) || keychainfs_tpm_rc_is(rc, TPM2_RC_PCR_CHANGED)) {
        return KEYCHAINFS_TPM_BOOT_STATE_CHANGED;
    }
    if (keychainfs_tpm_rc_is(rc, TPM2_RC_AUTH_FAIL) || keychainfs_tpm_rc_is(rc, TPM2_RC_BAD_AUTH)) {
        return KEYCHAINFS_TPM_WRONG_AUTHORIZATION;
    }
    if (keychainfs_tpm_rc_is(rc, TPM2_RC_INTEGRITY) || keychainfs_tpm_rc_is(rc, TPM2_RC_BINDING) ||
        keychainfs_tpm_rc_is(rc, TPM2_RC_SIZE) || keychainfs_tpm_rc_is(rc, TPM2_RC_VALUE) ||
        keychainfs_tpm_rc_is(rc, TPM2_RC_HIERARCHY) || (rc & TSS2_RC_LAYER_MASK) == TSS2_MU_RC_LAYER) {
        return KEYCHAINFS_TPM_NOT_THIS_TPM;
    }
    return KEYCHAINFS_TPM_OTHER;
}

/* Whether `rc` says the TPM has no room for another object or session. */
static int out_of_room(TSS2_RC rc) {
    return keychainfs_tpm_rc_is(rc, TPM2_RC_OBJECT_MEMORY) || keychainfs_tpm_rc_is(rc, TPM2_RC_SESSION_MEMORY) ||
        keychainfs_tpm_rc_is(rc, TPM2_RC_OBJECT_HANDLES) || keychainfs_tpm_rc_is(rc, TPM2_RC_SESSION_HANDLES);
}

/* Flushes every transient object and loaded session. Only called when the TPM is out of room: then no
   resource manager stands between us and it (the kernel's flushes what a closed connection loaded: swtpm
   over TCP, /dev/tpm0), and what fills it was left by connections that ended without flushing (a process
   killed mid-call, tpm2-tools without a resource manager). */
static void flush_leftovers(keychainfs_tpm *tpm) {
    const TPM2_HANDLE firsts[] = {TPM2_TRANSIENT_FIRST, TPM2_LOADED_SESSION_FIRST};
    for (size_t kind = 0; kind < 2; kind++) {
        TPMS_CAPABILITY_DATA *data = NULL;
        TPMI_YES_NO more = TPM2_NO;
        if (Esys_GetCapability(
                tpm->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CAP_HANDLES, firsts[kind], 64, &more,
                &data) != TSS2_RC_SUCCESS) {
            continue;
        }
        for (UINT32 i = 0; i < data->data.handles.count && i < 64; i++) {
            ESYS_TR handle = ESYS_TR_NONE;
            if (Esys_TR_FromTPMPublic(
                    tpm->esys, data->data.handles.handle[i], ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &handle) ==
                TSS2_RC_SUCCESS) {
                Esys_FlushContext(tpm->esys, handle);
            }
        }
        Esys_Free(data);
    }
}

static TSS2_RC create_primary(keychainfs_tpm *tpm) {
    TPM2B_SENSITIVE_CREATE sensitive = {0};
    TPM2B_PUBLIC template = primary_template();
    TPM2B_DATA outside = {0};
    TPML_PCR_SELECTION none = {0};
    return Esys_CreatePrimary(
        tpm->esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive, &template, &outside,
        &none, &tpm->primary, NULL, NULL, NULL, NULL);
}

static TSS2_RC start_session(keychainfs_tpm *tpm) {
    TSS2_RC rc = Esys_StartAuthSession(
        tpm->esys, tpm->primary, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, NULL, TPM2_SE_HMAC,
        &session_cipher, TPM2_ALG_SHA256, &tpm->session);
    if (rc != TSS2_RC_SUCCESS) return rc;
    return Esys_TRSess_SetAttributes(
        tpm->esys, tpm->session, TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION, 0xFF);
}

static UINT32 tpm_property(keychainfs_tpm *tpm, TPM2_PT property) {
    TPMS_CAPABILITY_DATA *data = NULL;
    TPMI_YES_NO more = TPM2_NO;
    UINT32 value = 0;
    if (Esys_GetCapability(
            tpm->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, TPM2_CAP_TPM_PROPERTIES, property, 1, &more,
            &data) == TSS2_RC_SUCCESS) {
        if (data->data.tpmProperties.count == 1 && data->data.tpmProperties.tpmProperty[0].property == property) {
            value = data->data.tpmProperties.tpmProperty[0].value;
        }
        Esys_Free(data);
    }
    return value;
}

uint32_t keychainfs_tpm_lockout_interval(keychainfs_tpm *tpm) { return tpm_property(tpm, TPM2_PT_LOCKOUT_INTERVAL); }

/* Whether the TPM can hold what one seal or unseal adds to our primary and session: an object and a
   policy session. (Behind the kernel's resource manager it always can.) */
static int room_for_a_call(keychainfs_tpm *tpm) {
    return tpm_property(tpm, TPM2_PT_HR_TRANSIENT_AVAIL) >= 1 && tpm_property(tpm, TPM2_PT_HR_LOADED_AVAIL) >= 1;
}

static TSS2_RC make_primary_and_session(keychainfs_tpm *tpm) {
    TSS2_RC rc = create_primary(tpm);
    return rc == TSS2_RC_SUCCESS ? start_session(tpm) : rc;
}

/* When the TPM is out of room: flushes what fills it (ours too) and makes our primary and session again. */
static TSS2_RC start_over(keychainfs_tpm *tpm) {
    flush_leftovers(tpm);
    tpm->primary = ESYS_TR_NONE;
    tpm->session = ESYS_TR_NONE;
    return make_primary_and_session(tpm);
}

TSS2_RC keychainfs_tpm_open(const char *conf, keychainfs_tpm **out) {
    keychainfs_tpm *tpm = calloc(1, sizeof *tpm);
    if (tpm == NULL) return TSS2_ESYS_RC_MEMORY;
    tpm->primary = ESYS_TR_NONE;
    tpm->session = ESYS_TR_NONE;
    TSS2_RC rc = Tss2_TctiLdr_Initialize(conf, &tpm->tcti);
    if (rc == TSS2_RC_SUCCESS) rc = Esys_Initialize(&tpm->esys, tpm->tcti, NULL);
    if (rc == TSS2_RC_SUCCESS) {
        rc = Esys_Startup(tpm->esys, TPM2_SU_CLEAR);
        if (keychainfs_tpm_rc_is(rc, TPM2_RC_INITIALIZE)) rc = TSS2_RC_SUCCESS; /* started already */
    }
    if (rc == TSS2_RC_SUCCESS) rc = make_primary_and_session(tpm);
    if (out_of_room(rc) || (rc == TSS2_RC_SUCCESS && !room_for_a_call(tpm))) rc = start_over(tpm);
    if (rc != TSS2_RC_SUCCESS) {
        keychainfs_tpm_close(tpm);
        return rc;
    }
    *out = tpm;
    return TSS2_RC_SUCCESS;
}

void keychainfs_tpm_close(keychainfs_tpm *tpm) {
    if (tpm == NULL) return;
    if (tpm->esys != NULL) {
        if (tpm->session != ESYS_TR_NONE) Esys_FlushContext(tpm->esys, tpm->session);
        if (tpm->primary != ESYS_TR_NONE) Esys_FlushContext(tpm->esys, tpm->primary);
        Esys_Finalize(&tpm->esys);
    }
    if (tpm->tcti != NULL) Tss2_TctiLdr_Finalize(&tpm->tcti);
    free(tpm);
}

/* A policy session (or, `trial`, one that only computes a digest) with the PCR and auth-value policy. */
static TSS2_RC start_policy(keychainfs_tpm *tpm, uint32_t pcrs, int with_auth, int trial, ESYS_TR *session) {
    TPMT_SYM_DEF no_cipher = {.algorithm = TPM2_ALG_NULL};
    TSS2_RC rc = Esys_StartAuthSession(
        tpm->esys, trial ? ESYS_TR_NONE : tpm->primary, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
        NULL, trial ? TPM2_SE_TRIAL : TPM2_SE_POLICY, trial ? &no_cipher : &session_cipher, TPM2_ALG_SHA256,
        session);
    if (rc != TSS2_RC_SUCCESS) return rc;
    if (!trial) {
        rc = Esys_TRSess_SetAttributes(tpm->esys, *session, TPMA_SESSION_ENCRYPT, 0xFF);
    }
    TPM2B_DIGEST current = {0}; /* empty: the PCRs' values now (at seal) must be their values at use */
    TPML_PCR_SELECTION selection = pcr_selection(pcrs);
    if (rc == TSS2_RC_SUCCESS) {
        rc = Esys_PolicyPCR(tpm->esys, *session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &current, &selection);
    }
    if (rc == TSS2_RC_SUCCESS && with_auth) {
        rc = Esys_PolicyAuthValue(tpm->esys, *session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE);
    }
    if (rc != TSS2_RC_SUCCESS) {
        Esys_FlushContext(tpm->esys, *session);
        *session = ESYS_TR_NONE;
    }
    return rc;
}

/* Writes an object as TPM2B_PUBLIC then TPM2B_PRIVATE, marshalled (what tpm2_load reads). */
static TSS2_RC marshal_object(
    const TPM2B_PUBLIC *public, const TPM2B_PRIVATE *private, uint8_t *blob, size_t blob_capacity,
    size_t *blob_size) {
    size_t offset = 0;
    TSS2_RC rc = Tss2_MU_TPM2B_PUBLIC_Marshal(public, blob, blob_capacity, &offset);
    if (rc == TSS2_RC_SUCCESS) rc = Tss2_MU_TPM2B_PRIVATE_Marshal(private, blob, blob_capacity, &offset);
    *blob_size = offset;
    return rc;
}

/* Loads a marshalled object of `type` (a P-256 key when TPM2_ALG_ECC) under the primary key: bytes that are
   not exactly one such object are refused before the TPM sees them. */
static TSS2_RC load_object(
    keychainfs_tpm *tpm, const uint8_t *blob, size_t blob_size, TPMI_ALG_PUBLIC type, ESYS_TR *object) {
    TPM2B_PUBLIC public = {0};
    TPM2B_PRIVATE private = {0};
    size_t offset = 0;
    TSS2_RC rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(blob, blob_size, &offset, &public);
    if (rc == TSS2_RC_SUCCESS) rc = Tss2_MU_TPM2B_PRIVATE_Unmarshal(blob, blob_size, &offset, &private);
    if (rc == TSS2_RC_SUCCESS && offset != blob_size) rc = TSS2_MU_RC_BAD_SIZE;
    if (rc == TSS2_RC_SUCCESS && public.publicArea.type != type) rc = TSS2_ESYS_RC_BAD_VALUE;
    if (rc == TSS2_RC_SUCCESS && type == TPM2_ALG_ECC &&
        public.publicArea.parameters.eccDetail.curveID != TPM2_ECC_NIST_P256) {
        rc = TSS2_ESYS_RC_BAD_VALUE;
    }
    if (rc != TSS2_RC_SUCCESS) return rc;
    return Esys_Load(tpm->esys, tpm->primary, tpm->session, ESYS_TR_NONE, ESYS_TR_NONE, &private, &public, object);
}

TSS2_RC keychainfs_tpm_seal(
    keychainfs_tpm *tpm, const uint8_t *secret, size_t secret_size, const uint8_t *auth, size_t auth_size,
    uint32_t pcrs, uint8_t *blob, size_t blob_capacity, size_t *blob_size) {
    TPM2B_SENSITIVE_CREATE sensitive = {0};
    if (secret_size > sizeof sensitive.sensitive.data.buffer || auth_size > 32) return TSS2_ESYS_RC_BAD_VALUE;
    TPM2B_PUBLIC template = {0};
    template.publicArea.type = TPM2_ALG_KEYEDHASH;
    template.publicArea.nameAlg = TPM2_ALG_SHA256;
    template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT;
    if (pcrs == 0) template.publicArea.objectAttributes |= TPMA_OBJECT_USERWITHAUTH;
    if (auth_size == 0) template.publicArea.objectAttributes |= TPMA_OBJECT_NODA;
    template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL;
    TSS2_RC rc = TSS2_RC_SUCCESS;
    if (pcrs != 0) {
        ESYS_TR trial = ESYS_TR_NONE;
        rc = start_policy(tpm, pcrs, auth_size > 0, 1, &trial);
        if (rc != TSS2_RC_SUCCESS) return rc;
        TPM2B_DIGEST *digest = NULL;
        rc = Esys_PolicyGetDigest(tpm->esys, trial, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &digest);
        Esys_FlushContext(tpm->esys, trial);
        if (rc != TSS2_RC_SUCCESS) return rc;
        template.publicArea.authPolicy = *digest;
        Esys_Free(digest);
    }
    memcpy(sensitive.sensitive.data.buffer, secret, secret_size);
    sensitive.sensitive.data.size = (UINT16)secret_size;
    if (auth_size > 0) memcpy(sensitive.sensitive.userAuth.buffer, auth, auth_size);
    sensitive.sensitive.userAuth.size = (UINT16)auth_size;
    TPM2B_DATA outside = {0};
    TPML_PCR_SELECTION none = {0};
    TPM2B_PRIVATE *private = NULL;
    TPM2B_PUBLIC *public = NULL;
    rc = Esys_Create(
        tpm->esys, tpm->primary, tpm->session, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive, &template, &outside, &none,
        &private, &public, NULL, NULL, NULL);
    explicit_bzero(&sensitive, sizeof sensitive);
    if (rc != TSS2_RC_SUCCESS) return rc;
    rc = marshal_object(public, private, blob, blob_capacity, blob_size);
    Esys_Free(private);
    Esys_Free(public);
    return rc;
}

TSS2_RC keychainfs_tpm_unseal(
    keychainfs_tpm *tpm, const uint8_t *blob, size_t blob_size, const uint8_t *auth, size_t auth_size,
    uint32_t pcrs, uint8_t *secret, size_t secret_capacity, size_t *secret_size) {
    if (auth_size > 32) return TSS2_ESYS_RC_BAD_VALUE;
    ESYS_TR object = ESYS_TR_NONE;
    TSS2_RC rc = load_object(tpm, blob, blob_size, TPM2_ALG_KEYEDHASH, &object);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_AUTH value = {0};
    if (auth_size > 0) memcpy(value.buffer, auth, auth_size);
    value.size = (UINT16)auth_size;
    rc = Esys_TR_SetAuth(tpm->esys, object, &value);
    explicit_bzero(&value, sizeof value);
    ESYS_TR policy = ESYS_TR_NONE;
    if (rc == TSS2_RC_SUCCESS && pcrs != 0) rc = start_policy(tpm, pcrs, auth_size > 0, 0, &policy);
    TPM2B_SENSITIVE_DATA *data = NULL;
    if (rc == TSS2_RC_SUCCESS) {
        rc = Esys_Unseal(
            tpm->esys, object, pcrs != 0 ? policy : tpm->session, ESYS_TR_NONE, ESYS_TR_NONE, &data);
    }
    /* Without continueSession a session ends with the command that used it, unless that command failed. */
    if (policy != ESYS_TR_NONE && rc != TSS2_RC_SUCCESS) Esys_FlushContext(tpm->esys, policy);
    Esys_FlushContext(tpm->esys, object);
    if (rc != TSS2_RC_SUCCESS) return rc;
    if (data->size > secret_capacity) {
        rc = TSS2_ESYS_RC_INSUFFICIENT_BUFFER;
    } else {
        memcpy(secret, data->buffer, data->size);
        *secret_size = data->size;
    }
    explicit_bzero(data, sizeof *data);
    Esys_Free(data);
    return rc;
}

static int copy_coordinate(const TPM2B_ECC_PARAMETER *from, uint8_t to[32]) {
    if (from->size > 32) return 0;
    memset(to, 0, 32);
    memcpy(to + 32 - from->size, from->buffer, from->size);
    return 1;
}

TSS2_RC keychainfs_tpm_create_p256(
    keychainfs_tpm *tpm, uint8_t *blob, size_t blob_capacity, size_t *blob_size, uint8_t x[32], uint8_t y[32]) {
    TPM2B_SENSITIVE_CREATE sensitive = {0};
    TPM2B_PUBLIC template = {0};
    template.publicArea.type = TPM2_ALG_ECC;
    template.publicArea.nameAlg = TPM2_ALG_SHA256;
    template.publicArea.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
        TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA | TPMA_OBJECT_SIGN_ENCRYPT |
        TPMA_OBJECT_DECRYPT;
    TPMS_ECC_PARMS *ecc = &template.publicArea.parameters.eccDetail;
    ecc->symmetric.algorithm = TPM2_ALG_NULL;
    ecc->scheme.scheme = TPM2_ALG_NULL; /* sign and decrypt: the scheme is chosen per use */
    ecc->curveID = TPM2_ECC_NIST_P256;
    ecc->kdf.scheme = TPM2_ALG_NULL;
    TPM2B_DATA outside = {0};
    TPML_PCR_SELECTION none = {0};
    TPM2B_PRIVATE *private = NULL;
    TPM2B_PUBLIC *public = NULL;
    TSS2_RC rc = Esys_Create(
        tpm->esys, tpm->primary, tpm->session, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive, &template, &outside, &none,
        &private, &public, NULL, NULL, NULL);
    if (rc != TSS2_RC_SUCCESS) return rc;
    rc = marshal_object(public, private, blob, blob_capacity, blob_size);
    if (rc == TSS2_RC_SUCCESS && (!copy_coordinate(&public->publicArea.unique.ecc.x, x) ||
                                  !copy_coordinate(&public->publicArea.unique.ecc.y, y))) {
        rc = TSS2_ESYS_RC_BAD_VALUE;
    }
    Esys_Free(private);
    Esys_Free(public);
    return rc;
}

TSS2_RC keychainfs_tpm_sign_p256(
    keychainfs_tpm *tpm, const uint8_t *blob, size_t blob_size, const uint8_t *digest, size_t digest_size,
    uint8_t r[32], uint8_t s[32]) {
    TPMI_ALG_HASH hash;
    switch (digest_size) {
    case 20: hash = TPM2_ALG_SHA1; break;
    case 32: hash = TPM2_ALG_SHA256; break;
    case 48: hash = TPM2_ALG_SHA384; break;
    case 64: hash = TPM2_ALG_SHA512; break;
    default: return TSS2_ESYS_RC_BAD_VALUE;
    }
    ESYS_TR key = ESYS_TR_NONE;
    TSS2_RC rc = load_object(tpm, blob, blob_size, TPM2_ALG_ECC, &key);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_DIGEST message = {0};
    message.size = (UINT16)digest_size;
    memcpy(message.buffer, digest, digest_size);
    TPMT_SIG_SCHEME scheme = {.scheme = TPM2_ALG_ECDSA, .details = {.ecdsa = {.hashAlg = hash}}};
    /* Not restricted: the TPM signs any digest, so no hash ticket is needed. */
    TPMT_TK_HASHCHECK ticket = {.tag = TPM2_ST_HASHCHECK, .hierarchy = TPM2_RH_NULL, .digest = {0}};
    TPMT_SIGNATURE *signature = NULL;
    rc = Esys_Sign(tpm->esys, key, tpm->session, ESYS_TR_NONE, ESYS_TR_NONE, &message, &scheme, &ticket, &signature);
    Esys_FlushContext(tpm->esys, key);
    if (rc != TSS2_RC_SUCCESS) return rc;
    if (!copy_coordinate(&signature->signature.ecdsa.signatureR, r) ||
        !copy_coordinate(&signature->signature.ecdsa.signatureS, s)) {
        rc = TSS2_ESYS_RC_BAD_VALUE;
    }
    Esys_Free(signature);
    return rc;
}

TSS2_RC keychainfs_tpm_ecdh_p256(
    keychainfs_tpm *tpm, const uint8_t *blob, size_t blob_size, const uint8_t peer_x[32],
    const uint8_t peer_y[32], uint8_t shared_x[32]) {
    ESYS_TR key = ESYS_TR_NONE;
    TSS2_RC rc = load_object(tpm, blob, blob_size, TPM2_ALG_ECC, &key);
    if (rc != TSS2_RC_SUCCESS) return rc;
    TPM2B_ECC_POINT peer = {0};
    peer.point.x.size = 32;
    memcpy(peer.point.x.buffer, peer_x, 32);
    peer.point.y.size = 32;
    memcpy(peer.point.y.buffer, peer_y, 32);
    TPM2B_ECC_POINT *shared = NULL;
    rc = Esys_ECDH_ZGen(tpm->esys, key, tpm->session, ESYS_TR_NONE, ESYS_TR_NONE, &peer, &shared);
    Esys_FlushContext(tpm->esys, key);
    if (rc != TSS2_RC_SUCCESS) return rc;
    if (!copy_coordinate(&shared->point.x, shared_x)) rc = TSS2_ESYS_RC_BAD_VALUE;
    explicit_bzero(shared, sizeof *shared);
    Esys_Free(shared);
    return rc;
}
