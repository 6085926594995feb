#!/usr/bin/python3
"""A client of the user's that tries to borrow what is not its own (docs/threat-model.md), with
raw D-Bus calls through jeepney.

Usage: borrowing_client.py exec-then-read ALLOWED SERVICE USERNAME
         connects, forks, and execs ALLOWED (a program a rule allows, which does nothing); the child goes on
         with the connection and prints the secret it reads, or the D-Bus error it gets.
       borrowing_client.py take-name [SECONDS]
         asks for org.freedesktop.secrets with replace-existing and prints the bus's answer (1: it became
         the owner, 2: queued, 3: it exists), or the error; holds it SECONDS before leaving.
"""
import os
import sys
import time

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
from jeepney.wrappers import DBusErrorResponse

SERVICE = DBusAddress("/org/freedesktop/secrets", bus_name="org.freedesktop.secrets",
                      interface="org.freedesktop.Secret.Service")
BUS = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")


def call(connection, address, method, signature=None, body=()):
    reply = connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=20)
    if reply.header.message_type.name == "error":
        raise DBusErrorResponse(reply)
    return reply.body


def read_secret(connection, service, username):
    _, session = call(connection, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))
    unlocked, _ = call(connection, SERVICE, "SearchItems", "a{ss}", ({"service": service, "username": username},))
    if not unlocked:
        return "no item"
    item = DBusAddress(unlocked[0], bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Item")
    (secret,) = call(connection, item, "GetSecret", "o", (session,))
    return secret[2].decode()


def main():
    mode = sys.argv[1]
    connection = open_dbus_connection(bus="SESSION")
    if mode == "exec-then-read":
        allowed, service, username = sys.argv[2:5]
        time.sleep(0.5)  # the service has seen the connection appear, as a real client's first call would let it
        if os.fork() == 0:
            time.sleep(0.7)  # the parent runs the allowed program by now
            try:
                print(read_secret(connection, service, username))
            except DBusErrorResponse as error:
                print(error.name, error.data)
            sys.stdout.flush()
            os._exit(0)
        os.execv(allowed, [allowed, "3"])
    elif mode == "take-name":
        try:
            (answer,) = call(connection, BUS, "RequestName", "su", ("org.freedesktop.secrets", 2 | 4))
            print(answer)
        except DBusErrorResponse as error:
            print(error.name)
        sys.stdout.flush()
        time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0)


main()
