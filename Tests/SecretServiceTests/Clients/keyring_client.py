#!/usr/bin/python3
"""Python `keyring` (python3-keyring) through its SecretService backend.

Usage: keyring_client.py set SERVICE USER PASSWORD | get SERVICE USER | delete SERVICE USER
`get` prints the password (nothing and exit 2 when there is none); KeyringLocked prints LOCKED, exit 3.
"""
import sys

from keyring.backends.SecretService import Keyring
from keyring.errors import KeyringLocked


def main():
    backend = Keyring()
    command, service, user = sys.argv[1], sys.argv[2], sys.argv[3]
    try:
        if command == "set":
            backend.set_password(service, user, sys.argv[4])
        elif command == "get":
            password = backend.get_password(service, user)
            if password is None:
                return 2
            sys.stdout.write(password)
        elif command == "delete":
            backend.delete_password(service, user)
    except KeyringLocked:
        print("LOCKED")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
