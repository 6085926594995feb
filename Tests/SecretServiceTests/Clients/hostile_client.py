#!/usr/bin/python3
"""A hostile Secret Service client, with raw D-Bus calls through jeepney (what secretstorage is built on).

Usage: hostile_client.py huge-attributes | oversize-secret | sessions N | malformed | every-method | row ID
       | item-path NAME=VALUE… | while-locked ITEM-PATH | prompt-and-vanish
Each prints what the service answered, one line per probe: the D-Bus error name or "ok".
"""
import os
import sys
import time

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
from jeepney.wrappers import DBusErrorResponse

SERVICE = DBusAddress("/org/freedesktop/secrets", bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Service")
COLLECTION = DBusAddress("/org/freedesktop/secrets/collection/login", bus_name="org.freedesktop.secrets",
                         interface="org.freedesktop.Secret.Collection")


def call(connection, address, method, signature=None, body=()):
    try:
        reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=20)
        if reply.header.message_type.name == "error":
            return reply.header.fields.get(4, "error"), None  # 4: ERROR_NAME
        return "ok", reply.body
    except DBusErrorResponse as error:
        return error.name, None


def plain_session(connection):
    outcome, body = call(connection, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))
    assert outcome == "ok", outcome
    return body[1]


def create(connection, attributes, secret):
    session = plain_session(connection)
    properties = {"org.freedesktop.Secret.Item.Label": ("s", "hostile"),
                  "org.freedesktop.Secret.Item.Attributes": ("a{ss}", attributes)}
    return call(connection, COLLECTION, "CreateItem", "a{sv}(oayays)b", (properties, (session, b"", secret, "text/plain"), True))[0]


ROWS = ["dbus.get-secret", "dbus.search", "dbus.write", "dbus.lock", "dbus.unlock", "dbus.session"]


def row_calls(connection, row):
    """The answers to the calls of one row of docs/entry-points.md's Secret Service table."""
    item = DBusAddress("/org/freedesktop/secrets/collection/login/00", bus_name="org.freedesktop.secrets",
                       interface="org.freedesktop.Secret.Item")
    properties = DBusAddress("/org/freedesktop/secrets/collection/login", bus_name="org.freedesktop.secrets",
                             interface="org.freedesktop.DBus.Properties")
    session = "/org/freedesktop/secrets/session/s1"
    calls = {
        "dbus.get-secret": [lambda: call(connection, SERVICE, "GetSecrets", "aoo", ([], session)),
                            lambda: call(connection, item, "GetSecret", "o", (session,))],
        "dbus.search": [lambda: call(connection, SERVICE, "SearchItems", "a{ss}", ({},)),
                        lambda: call(connection, properties, "Get", "ss", ("org.freedesktop.Secret.Collection", "Items"))],
        "dbus.write": [lambda: call(connection, COLLECTION, "CreateItem", "a{sv}(oayays)b",
                                    ({}, (session, b"", b"x", "text/plain"), True)),
                       lambda: call(connection, item, "Delete")],
        "dbus.lock": [lambda: call(connection, SERVICE, "Lock", "ao", ([],))],
        "dbus.unlock": [lambda: call(connection, SERVICE, "Unlock", "ao", ([],))],
        "dbus.session": [lambda: call(connection, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))],
    }
    return [probe()[0] for probe in calls.get(row, [])]


def main():
    connection = open_dbus_connection(bus="SESSION")
    command = sys.argv[1]
    if command == "huge-attributes":
        print(create(connection, {f"key{i}": "v" * 100 for i in range(5000)}, b"x"))
        print(create(connection, {"service": "hostile", "username": "long", "big": "v" * 100_000}, b"x"))
    elif command == "oversize-secret":
        print(create(connection, {"service": "hostile", "username": "oversize"}, b"s" * ((1 << 20) + 1)))
    elif command == "sessions":
        opened, refused = 0, "none"
        for _ in range(int(sys.argv[2])):
            outcome, _ = call(connection, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))
            if outcome != "ok":
                refused = outcome
                break
            opened += 1
        print(f"opened {opened} refused {refused}")
    elif command == "malformed":
        print(call(connection, SERVICE, "OpenSession", "ss", ("plain", "x"))[0])
        print(call(connection, SERVICE, "OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("ay", b"\x00" * 500)))[0])
        print(call(connection, SERVICE, "OpenSession", "sv", ("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("ay", b"\x01")))[0])
        print(call(connection, SERVICE, "GetSecrets", "ao", (["/org/freedesktop/secrets/session/s999999"],))[0])
        print(call(connection, SERVICE, "GetSecrets", "aoo", ([], "/org/freedesktop/secrets/session/s999999"))[0])
        item = DBusAddress("/org/freedesktop/secrets/collection/login/zz", bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Item")
        print(call(connection, item, "Delete")[0])
        print(call(connection, SERVICE, "NoSuchMethod")[0])
    elif command == "every-method":
        for row in ROWS:
            for outcome in row_calls(connection, row):
                print(row, outcome)
    elif command == "row":
        for outcome in row_calls(connection, sys.argv[2]):
            print(sys.argv[2], outcome)
    elif command == "item-path":
        # The path SearchItems gives for the attributes ARGV[2:] (name=value), or nothing.
        wanted = dict(argument.split("=", 1) for argument in sys.argv[2:])
        outcome, body = call(connection, SERVICE, "SearchItems", "a{ss}", (wanted,))
        assert outcome == "ok", outcome
        print((body[0] + body[1])[0] if body[0] + body[1] else "")
    elif command == "while-locked":
        # What a client the rules admit gets for the item at ARGV[2] on a locked device, one line per call:
        # the row, the method, and the error name or "ok N" with the number of paths or secrets answered.
        item = DBusAddress(sys.argv[2], bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Item")
        properties = DBusAddress("/org/freedesktop/secrets/collection/login", bus_name="org.freedesktop.secrets",
                                 interface="org.freedesktop.DBus.Properties")
        session = plain_session(connection)

        def counted(outcome_body):
            outcome, body = outcome_body
            if outcome != "ok":
                return outcome
            return f"ok {sum(len(part) for part in body if isinstance(part, (list, dict)))}"

        print("dbus.get-secret GetSecret", counted(call(connection, item, "GetSecret", "o", (session,))))
        print("dbus.get-secret GetSecrets", counted(call(connection, SERVICE, "GetSecrets", "aoo", ([sys.argv[2]], session))))
        print("dbus.search SearchItems", counted(call(connection, SERVICE, "SearchItems", "a{ss}", ({},))))
        print("dbus.search Collection.SearchItems", counted(call(connection, COLLECTION, "SearchItems", "a{ss}", ({},))))
        outcome, body = call(connection, properties, "Get", "ss", ("org.freedesktop.Secret.Collection", "Items"))
        print("dbus.search Items", outcome if outcome != "ok" else f"ok {len(body[0][1])}")
        properties = {"org.freedesktop.Secret.Item.Label": ("s", "while locked"),
                      "org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"service": "locked", "username": "new"})}
        print("dbus.write CreateItem", counted(call(connection, COLLECTION, "CreateItem", "a{sv}(oayays)b",
                                                    (properties, (session, b"", b"x", "text/plain"), True))))
        print("dbus.write SetSecret", counted(call(connection, item, "SetSecret", "(oayays)", ((session, b"", b"y", "text/plain"),))))
    elif command == "prompt-and-vanish":
        outcome, body = call(connection, SERVICE, "Unlock", "ao", (["/org/freedesktop/secrets/collection/login"],))
        assert outcome == "ok" and len(body[1]) > 1, (outcome, body)
        prompt = DBusAddress(body[1], bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Prompt")
        print(call(connection, prompt, "Prompt", "s", ("",))[0], flush=True)
        time.sleep(60)  # the test sees the prompt pending, then kills us: we vanish without an answer
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
