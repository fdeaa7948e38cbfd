#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""An ordinary TCP client (nothing RDMA in it) for the librspreload test.

Usage: tcp_copy.py ADDR PORT MIB [--libc-socket]: send MIB MiB of a seeded pseudo-random
stream, shut the write side, print the count and CRC-32 of what was sent,
and check the CRC-32 the server (tcp-sink) sends back is the same.  MIB 0
sends until the connection fails.  "connected" is printed once connected.
(Python's own accept uses accept4, which librspreload does not
intercept, so the server is tcp_sink.c.)  --libc-socket makes the socket
with libc's socket(AF_INET, SOCK_STREAM, 0), as a C program does: Python
adds SOCK_CLOEXEC to every socket's type, and librspreload's fork
support (RDMAV_FORK_SAFE=1) takes only a type of exactly SOCK_STREAM.
"""
import ctypes
import random
import socket
import sys
import time
import zlib

CHUNK = 1 << 16


def libc_socket():
    """A TCP socket made by libc's socket(2) with a plain SOCK_STREAM."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "socket")
    return socket.socket(fileno=fd)


def connect_once(addr, port, libc):
    if not libc:
        return socket.create_connection((addr, port))
    sock = libc_socket()
    try:
        sock.connect((addr, port))
    except OSError:
        sock.close()
        raise
    return sock


def connect(addr, port, libc=False):
    """Connect, retrying while the server is not listening yet."""
    for _ in range(40):
        try:
            return connect_once(addr, port, libc)
        except OSError as err:
            last = err
            time.sleep(0.5)
    raise last


def client(addr, port, mib, libc=False):
    rng = random.Random(22)
    crc = 0
    with connect(addr, port, libc) as sock:
        print("connected", flush=True)
        for _ in iter(int, 1) if mib == 0 else range(mib * (1 << 20) // CHUNK):
            data = rng.randbytes(CHUNK)
            crc = zlib.crc32(data, crc)
            sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while True:
            data = sock.recv(128)
            if not data:
                break
            answer += data
    print(f"sent {mib << 20} bytes crc32 {crc:08x}")
    if answer.decode() != f"{crc:08x}":
        print(f"FAIL: the server's crc32 {answer.decode()!r} differs")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(client(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                    sys.argv[4:] == ["--libc-socket"]))
