#!/usr/bin/env python3
"""Apple's SecKey ECIES and ECDH-X9.63 built from Python's `cryptography` package, an implementation
independent of keychainfs, for the interop tests. Apple's construction (SecKeyAdaptors.c):
ECDH with an ephemeral key, ANSI X9.63 KDF with the ephemeral public key (x9.63) as shared info,
AES-GCM with a 16-byte IV (all zero, or 16 more KDF bytes for the variable-IV algorithms), 16-byte tag;
the packet is ephemeral public key ‖ ciphertext ‖ tag. AES-128 for curves up to 256 bits, else AES-256.

Reads one JSON request on stdin (keys never travel in argv), writes one JSON answer; bytes are hex."""
import json
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF

HASHES = {"SHA1": hashes.SHA1, "SHA224": hashes.SHA224, "SHA256": hashes.SHA256, "SHA384": hashes.SHA384, "SHA512": hashes.SHA512}
CURVES = {32: ec.SECP256R1, 48: ec.SECP384R1, 66: ec.SECP521R1}
X963 = serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint


def public_key(data):
    return ec.EllipticCurvePublicKey.from_encoded_point(CURVES[(len(data) - 1) // 2](), data)


def private_key(data):
    """Apple's private x9.63: 04 ‖ X ‖ Y ‖ K."""
    size = (len(data) - 1) // 3
    return ec.derive_private_key(int.from_bytes(data[1 + 2 * size:], "big"), CURVES[size]())


def x963_private(key):
    size = (key.curve.key_size + 7) // 8
    return key.public_key().public_bytes(*X963) + key.private_numbers().private_value.to_bytes(size, "big")


def kdf(hash_name, secret, shared_info, size):
    return X963KDF(algorithm=HASHES[hash_name](), length=size, sharedinfo=shared_info).derive(secret)


def ecies_key(hash_name, variable_iv, secret, ephemeral_public, recipient_public):
    key_size = 32 if ((len(recipient_public) - 1) // 2) * 8 > 256 else 16
    derived = kdf(hash_name, secret, ephemeral_public, key_size + (16 if variable_iv else 0))
    return derived[:key_size], (derived[key_size:] if variable_iv else bytes(16))


def main():
    request = json.load(sys.stdin)
    op = request["op"]
    h = lambda name: bytes.fromhex(request[name])
    if op == "keygen":
        curve = {256: ec.SECP256R1, 384: ec.SECP384R1, 521: ec.SECP521R1}[request["bits"]]
        answer = x963_private(ec.generate_private_key(curve()))
    elif op == "ecies-encrypt":
        recipient = h("recipient")
        curve = CURVES[(len(recipient) - 1) // 2]()
        ephemeral = private_key(h("ephemeral")) if request.get("ephemeral") else ec.generate_private_key(curve)
        ephemeral_public = ephemeral.public_key().public_bytes(*X963)
        secret = ephemeral.exchange(ec.ECDH(), public_key(recipient))
        key, iv = ecies_key(request["hash"], request["variableIV"], secret, ephemeral_public, recipient)
        answer = ephemeral_public + AESGCM(key).encrypt(iv, h("plaintext"), None)
    elif op == "ecies-decrypt":
        key_data = h("key")
        private = private_key(key_data)
        size = (len(key_data) - 1) // 3
        packet = h("ciphertext")
        ephemeral_public = packet[:2 * size + 1]
        secret = private.exchange(ec.ECDH(), public_key(ephemeral_public))
        recipient_public = private.public_key().public_bytes(*X963)
        key, iv = ecies_key(request["hash"], request["variableIV"], secret, ephemeral_public, recipient_public)
        answer = AESGCM(key).decrypt(iv, packet[2 * size + 1:], None)
    elif op == "ecdh":
        secret = private_key(h("key")).exchange(ec.ECDH(), public_key(h("peer")))
        answer = kdf(request["hash"], secret, h("sharedInfo"), request["size"]) if request.get("hash") else secret
    else:
        raise SystemExit("unknown op " + op)
    json.dump({"result": answer.hex()}, sys.stdout)


if __name__ == "__main__":
    main()
