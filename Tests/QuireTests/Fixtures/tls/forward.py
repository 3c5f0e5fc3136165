#!/usr/bin/env python3
"""A TLS front for a plain-HTTP server on this machine, for tests of certificate trust.

    python3 forward.py CERT.pem KEY.pem UPSTREAM_PORT

Listens on 127.0.0.1 on a free port and carries each TLS connection's bytes to and from
127.0.0.1:UPSTREAM_PORT until either side closes. Prints "PORT PID" on one line and exits:
the front runs on as PID, stopped by it (SIGTERM). The certificates here are for tests only
(see README)."""
import os
import signal
import socket
import ssl
import sys
import threading


def pump(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(context, connection, upstream_port):
    try:
        secure = context.wrap_socket(connection, server_side=True)
    except (ssl.SSLError, OSError):
        connection.close()  # the client did not trust the certificate: what the tests look for
        return
    upstream = socket.create_connection(("127.0.0.1", upstream_port))
    threading.Thread(target=pump, args=(secure, upstream), daemon=True).start()
    pump(upstream, secure)


def main():
    # Started from a thread that blocks signals, it would inherit the mask and never hear
    # the SIGTERM that stops it.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    cert, key, upstream_port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    # The front runs on in a process of its own, which drops every descriptor it was given:
    # a test process that starts quires meanwhile hands them all their pipes and sockets,
    # and one held here would keep their readers waiting for an end that never comes.
    child = os.fork()
    if child:
        print(listener.getsockname()[1], child, flush=True)
        os._exit(0)
    os.setsid()
    keep = listener.fileno()
    os.closerange(3, keep)
    os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
    nothing = os.open(os.devnull, os.O_RDWR)
    for standard in (0, 1, 2):
        os.dup2(nothing, standard)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(context, connection, upstream_port), daemon=True).start()


if __name__ == "__main__":
    main()
