#!/usr/bin/python3
"""Python `secretstorage` (python3-secretstorage) against the Secret Service on DBUS_SESSION_BUS_ADDRESS.

Usage:
  secretstorage_client.py ALGORITHM roundtrip        items, attributes, labels, content types, replace
  secretstorage_client.py ALGORITHM get KEY=VALUE... the first matching item's secret, or LOCKED (exit 3)
  secretstorage_client.py ALGORITHM store LABEL SECRET KEY=VALUE...
  secretstorage_client.py ALGORITHM unlock           prints "dismissed" or "unlocked"
  secretstorage_client.py ALGORITHM lock             Service.Lock on the collection
  secretstorage_client.py ALGORITHM locked           the collection's Locked property
  secretstorage_client.py ALGORITHM label [NEW]      prints the collection's Label; with NEW, sets it again
                                                     unchanged, then to NEW (and shows it is not an item)

ALGORITHM is dh (dh-ietf1024-sha256-aes128-cbc-pkcs7) or plain.
"""
import sys

import secretstorage
import secretstorage.util
from jeepney.wrappers import DBusErrorResponse
from secretstorage.exceptions import LockedException


def attributes(pairs):
    return dict(pair.split("=", 1) for pair in pairs)


def connect(algorithm):
    if algorithm == "plain":
        # secretstorage asks for DH first and falls back to plain when the service answers NotSupported.
        secretstorage.util.ALGORITHM_DH = "keychainfs-test-unknown-algorithm"
    connection = secretstorage.dbus_init()
    return connection


def check_algorithm(connection, algorithm):
    session = secretstorage.util.open_session(connection)
    assert session.encrypted == (algorithm == "dh"), f"session encrypted={session.encrypted} for {algorithm}"


def roundtrip(connection):
    collection = secretstorage.get_default_collection(connection)
    assert collection.collection_path in ("/org/freedesktop/secrets/aliases/default", "/org/freedesktop/secrets/collection/login")
    assert not collection.is_locked()
    item = collection.create_item("first label", {"application": "ss-test", "kind": "token"}, b"\x00binary\xff",
                                  replace=False, content_type="application/octet-stream")
    assert item.get_secret() == b"\x00binary\xff"
    assert item.get_secret_content_type() == "application/octet-stream"
    assert item.get_label() == "first label"
    assert item.get_attributes() == {"application": "ss-test", "kind": "token"}
    # Any subset finds it.
    assert [i.item_path for i in collection.search_items({"kind": "token"})] == [item.item_path]
    assert [i.item_path for i in secretstorage.search_items(connection, {"application": "ss-test"})] == [item.item_path]
    assert list(collection.search_items({"kind": "other"})) == []
    # Without replace, the same attributes are refused (one service and account name one keychain item).
    try:
        collection.create_item("duplicate", {"application": "ss-test", "kind": "token"}, b"dup", replace=False)
        raise AssertionError("a second item with the same attributes was made")
    except DBusErrorResponse as error:
        assert error.name == "org.freedesktop.DBus.Error.Failed", error.name
    assert item.get_secret() == b"\x00binary\xff" and item.get_label() == "first label", "the refused create changed nothing"
    # Replace: the same attributes name the same item.
    again = collection.create_item("second label", {"application": "ss-test", "kind": "token"}, b"replaced",
                                   replace=True, content_type="text/plain")
    assert again.item_path == item.item_path, (again.item_path, item.item_path)
    assert item.get_secret() == b"replaced" and item.get_label() == "second label"
    assert item.get_secret_content_type() == "text/plain"
    item.set_label("third label")
    item.set_secret(b"set again", content_type="text/x-test")
    assert item.get_label() == "third label" and item.get_secret() == b"set again"
    assert item.get_secret_content_type() == "text/x-test"
    item.set_attributes({"application": "ss-test", "kind": "renamed"})
    assert item.get_attributes() == {"application": "ss-test", "kind": "renamed"}
    assert item.get_created() > 0 and item.get_modified() >= item.get_created()
    # A big secret (under the 1 MiB limit) travels whole.
    big = bytes(range(256)) * 4000
    item.set_secret(big)
    assert item.get_secret() == big
    item.delete()
    assert list(collection.search_items({"application": "ss-test"})) == []


def collection_label(collection, new):
    before = collection.get_label()
    print(before)
    if new is None:
        return 0
    collection.set_label(before)  # clients set a label and restore it: the same label is no error
    assert collection.get_label() == before
    collection.set_label(new)
    print(collection.get_label())
    assert all(item.get_label() != new for item in collection.get_all_items()), "the label shows as an item"
    try:
        collection._collection.set_property("Items", "ao", [])
        raise AssertionError("Items was set")
    except DBusErrorResponse as error:
        assert error.name == "org.freedesktop.DBus.Error.PropertyReadOnly", error.name
    return 0


def main():
    algorithm, command, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    connection = connect(algorithm)
    check_algorithm(connection, algorithm)
    collection = secretstorage.get_default_collection(connection)
    if command == "roundtrip":
        roundtrip(connection)
        print("OK")
    elif command == "get":
        try:
            collection.ensure_not_locked()  # secretstorage's own check: LockedException while Locked
            items = list(collection.search_items(attributes(rest)))
            if not items:
                return 2
            sys.stdout.write(items[0].get_secret().decode())
        except LockedException:
            print("LOCKED")
            return 3
    elif command == "store":
        label, secret = rest[0], rest[1]
        collection.create_item(label, attributes(rest[2:]), secret.encode(), replace=True)
    elif command == "unlock":
        print("dismissed" if collection.unlock() else "unlocked")
    elif command == "lock":
        collection.lock()  # Service.Lock
    elif command == "locked":
        print(collection.is_locked())
    elif command == "label":
        return collection_label(collection, rest[0] if rest else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
