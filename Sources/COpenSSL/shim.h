// The parts of the system's OpenSSL 3 libcrypto the Security module uses: RSA in every padding Apple
// offers, SHA-224, and AES-GCM with Apple's 16-byte IV (what swift-crypto lacks).
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/err.h>
