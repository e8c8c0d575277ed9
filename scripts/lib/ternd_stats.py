#!/usr/bin/env python3
"""Usage: ternd_stats.py PORT [NAME...]

Prints ternd's general statistics (STAT with no key) as "name value" lines, only NAMEs when
given, in the server's order. It logs in as no one: the connection is on the config's
anonymous_bucket, whose statistics (a persistent bucket's warmup and flusher too) it sees.
Exits 1 if the server does not answer Success (for example while it is starting)."""

import socket
import struct
import sys

STAT = 0x10
HEADER = struct.Struct(">BBHBBHIIQ")  # magic, opcode, key len, extras len, datatype,
                                      # vbucket or status, body len, opaque, cas


def read_exactly(sock, size):
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    return data


def stats(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(HEADER.pack(0x80, STAT, 0, 0, 0, 0, 0, 0, 0))
        while True:
            _, _, key_len, extras_len, _, status, body_len, _, _ = HEADER.unpack(
                read_exactly(sock, HEADER.size))
            body = read_exactly(sock, body_len)
            if status != 0:
                raise RuntimeError(f"STAT: status 0x{status:04x}")
            if key_len == 0:  # the terminator
                return
            key = body[extras_len:extras_len + key_len].decode()
            yield key, body[extras_len + key_len:].decode()


def main():
    port = int(sys.argv[1])
    wanted = set(sys.argv[2:])
    try:
        for name, value in stats(port):
            if not wanted or name in wanted:
                print(name, value)
    except (OSError, RuntimeError) as error:
        print(f"ternd_stats: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
