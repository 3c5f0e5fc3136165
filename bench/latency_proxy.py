#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that delays every byte by half a round trip in each direction,
so a server on loopback answers like one RTT_MS milliseconds away (home to a VPS: 30).
Usage: latency_proxy.py LISTEN_PORT TARGET_PORT RTT_MS. Runs until killed."""
import asyncio, sys

listen_port, target_port, rtt_ms = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
delay = rtt_ms / 2000.0


async def pump(reader, writer):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue(maxsize=256)  # at most 16 MiB in flight per direction

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
            data = await reader.read(65536)
            await queue.put((loop.time() + delay, data))
            if not data:
                break
        await sender
    except (ConnectionError, asyncio.CancelledError):
        sender.cancel()
        writer.close()


async def handle(client_reader, client_writer):
    try:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(pump(client_reader, server_writer), pump(server_reader, client_writer), return_exceptions=True)


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


asyncio.run(main())
