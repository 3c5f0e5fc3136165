#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that makes a server on loopback answer like one across a link:
every byte is delayed by half a round trip in each direction (home to a VPS: 30 ms) and,
given UP_MBIT and DOWN_MBIT, the bytes of every connection share one link per direction of
that bandwidth, as on a home line (up = towards the server). Bytes are counted per direction
at the proxy (HTTP headers and bodies, as a tool sends them); on SIGUSR1 the proxy writes
"UP_BYTES DOWN_BYTES" to STATS_FILE (written whole, then renamed into place).
Usage: latency_proxy.py LISTEN_PORT TARGET_PORT RTT_MS [UP_MBIT DOWN_MBIT] [--stats FILE]
Runs until killed."""
import argparse, asyncio, os, signal

parser = argparse.ArgumentParser()
parser.add_argument("listen_port", type=int)
parser.add_argument("target_port", type=int)
parser.add_argument("rtt_ms", type=float)
parser.add_argument("up_mbit", type=float, nargs="?")
parser.add_argument("down_mbit", type=float, nargs="?")
parser.add_argument("--stats")
args = parser.parse_args()
delay = args.rtt_ms / 2000.0
CHUNK = 16384  # the unit the link is shared in: connections interleave at this grain


class Link:
    """One direction of the line: a FIFO that sends `rate` bytes a second (None: no limit),
    shared by every connection, with a bounded backlog like a router's buffer."""

    def __init__(self, mbit):
        self.rate = mbit * 1e6 / 8 if mbit else None
        self.free_at = 0.0
        self.bytes = 0
        # 100 ms of the line's bandwidth queued at most; a reader beyond it waits, which
        # backs its sender off through TCP as a full router queue would.
        self.buffer = 0.1

    def reserve(self, size, now):
        """When `size` bytes read now have left the line."""
        self.bytes += size
        if self.rate is None:
            return now
        self.free_at = max(now, self.free_at) + size / self.rate
        return self.free_at

    def backlog(self, now):
        return 0.0 if self.rate is None else max(0.0, self.free_at - now - self.buffer)


up, down = Link(args.up_mbit), Link(args.down_mbit)


async def pump(reader, writer, link):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue(maxsize=1024)  # at most 16 MiB in flight per direction

    async def send():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                writer.close()
                return
            writer.write(data)
            await writer.drain()

    sender = asyncio.create_task(send())
    try:
        while True:
            wait = link.backlog(loop.time())
            if wait > 0:
                await asyncio.sleep(wait)
            data = await reader.read(CHUNK)
            left = link.reserve(len(data), loop.time()) if data else loop.time()
            await queue.put((left + delay, data))
            if not data:
                break
        await sender
    except (ConnectionError, asyncio.CancelledError):
        sender.cancel()
        writer.close()


async def handle(client_reader, client_writer):
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", args.target_port)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pump(client_reader, server_writer, up), pump(server_reader, client_writer, down),
                         return_exceptions=True)


def write_stats():
    if not args.stats:
        return
    partial = args.stats + ".part"
    with open(partial, "w") as f:
        f.write(f"{up.bytes} {down.bytes}\n")
    os.replace(partial, args.stats)


async def main():
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, write_stats)
    server = await asyncio.start_server(handle, "127.0.0.1", args.listen_port)
    async with server:
        await server.serve_forever()


asyncio.run(main())
