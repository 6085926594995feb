#!/usr/bin/python3
"""Prints every signal the Secret Service sends, one line each (member, then its body), for SECONDS.

Usage: watch_signals.py SECONDS. Prints "ready" once subscribed.
"""
import sys
import time

from jeepney import MatchRule, message_bus
from jeepney.io.blocking import Proxy, open_dbus_connection


def main():
    connection = open_dbus_connection(bus="SESSION")
    rule = MatchRule(type="signal", path_namespace="/org/freedesktop/secrets")
    Proxy(message_bus, connection).AddMatch(rule)
    deadline = time.time() + float(sys.argv[1])
    with connection.filter(rule) as queue:
        print("ready", flush=True)
        while time.time() < deadline:
            try:
                message = connection.recv_until_filtered(queue, timeout=max(0.01, deadline - time.time()))
            except TimeoutError:
                break
            print(message.header.fields.get(3), message.header.fields.get(1), repr(message.body), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
