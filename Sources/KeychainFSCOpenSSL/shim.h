// The parts of the system's OpenSSL 3 libcrypto the project uses: RSA in every padding Apple offers,
// SHA-224 and AES-GCM with Apple's 16-byte IV (what swift-crypto lacks) for the Security module; PKCS#12
// and encrypted PKCS#8 (with the legacy provider for RC2/3DES files) for import and export.
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/bio.h>
