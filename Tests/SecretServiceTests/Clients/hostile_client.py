#!/usr/bin/python3
"""A hostile Secret Service client, with raw D-Bus calls through jeepney (what secretstorage is built on).

Usage: hostile_client.py huge-attributes | oversize-secret | sessions N | malformed | every-method | prompt-and-vanish
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
        # One call per row of docs/entry-points.md's Secret Service table, each printing its answer.
        item = DBusAddress("/org/freedesktop/secrets/collection/login/00", bus_name="org.freedesktop.secrets",
                           interface="org.freedesktop.Secret.Item")
        properties = DBusAddress("/org/freedesktop/secrets/collection/login", bus_name="org.freedesktop.secrets",
                                 interface="org.freedesktop.DBus.Properties")
        session = "/org/freedesktop/secrets/session/s1"
        print("dbus.get-secret", call(connection, SERVICE, "GetSecrets", "aoo", ([], session))[0])
        print("dbus.get-secret", call(connection, item, "GetSecret", "o", (session,))[0])
        print("dbus.search", call(connection, SERVICE, "SearchItems", "a{ss}", ({},))[0])
        print("dbus.search", call(connection, properties, "Get", "ss", ("org.freedesktop.Secret.Collection", "Items"))[0])
        print("dbus.write", call(connection, COLLECTION, "CreateItem", "a{sv}(oayays)b", ({}, (session, b"", b"x", "text/plain"), True))[0])
        print("dbus.write", call(connection, item, "Delete")[0])
        print("dbus.lock", call(connection, SERVICE, "Lock", "ao", ([],))[0])
        print("dbus.unlock", call(connection, SERVICE, "Unlock", "ao", ([],))[0])
        print("dbus.session", call(connection, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))[0])
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
