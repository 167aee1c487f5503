#!/usr/bin/env python3
"""Real TCP endpoints for the flows tests and benchmark (stdlib only).

  flow_peer.py sink --listen ADDR:PORT[:RCVBUF[:READ_DELAY_S]] ...
      accepts on each listener and reads everything; a small RCVBUF and a
      read delay make a receiver whose window limits the sender.
  flow_peer.py send --to ADDR:PORT[:CHUNK[:SLEEP_S]] ...
      one connection per --to, writing CHUNK bytes then sleeping SLEEP_S
      (0: as fast as TCP takes it) until killed.
  flow_peer.py idle --to ADDR:PORT --count N
      opens N connections that never send, prints "ready", then waits.

Each prints "ready" on stdout once its sockets are set up.
"""
import argparse
import resource
import socket
import sys
import threading
import time


def raise_fd_limit(n):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(soft, n)
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))


def split_spec(spec):
    host, port, *rest = spec.split(":")
    return host, int(port), rest


def serve(listener, read_delay):
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=drain, args=(conn, read_delay), daemon=True).start()


def drain(conn, read_delay):
    size = 256 * 1024 if read_delay == 0 else 4096
    try:
        while conn.recv(size):
            if read_delay:
                time.sleep(read_delay)
    except OSError:
        pass


def sink(specs):
    raise_fd_limit(8192)
    for spec in specs:
        host, port, rest = split_spec(spec)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if rest and int(rest[0]) > 0:
            # Set before listen() so accepted sockets inherit it (and the
            # window scale is negotiated for it).
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(rest[0]))
        listener.bind((host, port))
        listener.listen(4096)
        delay = float(rest[1]) if len(rest) > 1 else 0.0
        threading.Thread(target=serve, args=(listener, delay), daemon=True).start()


def pump(host, port, chunk, pause):
    data = b"\0" * chunk
    try:
        conn = socket.create_connection((host, port))
        while True:
            conn.sendall(data)
            if pause:
                time.sleep(pause)
    except OSError:
        pass


def send(specs):
    for spec in specs:
        host, port, rest = split_spec(spec)
        chunk = int(rest[0]) if rest else 1 << 20
        pause = float(rest[1]) if len(rest) > 1 else 0.0
        threading.Thread(target=pump, args=(host, port, chunk, pause), daemon=True).start()


def idle(spec, count):
    raise_fd_limit(count + 256)
    host, port, _ = split_spec(spec)
    conns = [socket.create_connection((host, port)) for _ in range(count)]
    return conns


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["sink", "send", "idle"])
    parser.add_argument("--listen", action="append", default=[])
    parser.add_argument("--to", action="append", default=[])
    parser.add_argument("--count", type=int, default=0)
    args = parser.parse_args()
    keep = None
    if args.mode == "sink":
        sink(args.listen)
    elif args.mode == "send":
        send(args.to)
    else:
        keep = idle(args.to[0], args.count)
    print("ready", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    del keep
    return 0


if __name__ == "__main__":
    # SIGTERM keeps its default action (no Python handler): thousands of
    # threads blocked in recv() must not delay the exit.
    sys.exit(main())
