#!/usr/bin/env python3
"""What clients that send without reading cost ternd: starts TERND (default
build/release/server/ternd) on --io IO, opens CONNECTIONS (16) that send NOOPs and read
nothing until none has been able to send for a second (ternd stopped reading them all), then
prints how much ternd's resident memory grew and how many bytes it read and did not answer
(GET /metrics). The memory a flood costs on each I/O backend (docs/performance.md).

Usage: scripts/flood-memory.py [--io epoll|uring] [--connections N] [TERND]
"""
import argparse, re, select, socket, struct, subprocess, tempfile, time, urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("ternd", nargs="?", default="build/release/server/ternd")
parser.add_argument("--io", default="uring")
parser.add_argument("--connections", type=int, default=16)
args = parser.parse_args()

log = tempfile.NamedTemporaryFile("w+", suffix=".log")
server = subprocess.Popen([args.ternd, "--port", "0", "--mgmt-port", "0", "--io", args.io],
                          stderr=log, stdout=subprocess.DEVNULL)
try:
    port = mgmt_port = None
    deadline = time.time() + 30
    while (port is None or mgmt_port is None) and time.time() < deadline:
        time.sleep(0.05)
        text = open(log.name).read()
        found = re.search(r"listening on [\d.]+:(\d+) with", text)
        port = port or (found and int(found.group(1)))
        found = re.search(r"management port listening on [\d.]+:(\d+)", text)
        mgmt_port = mgmt_port or (found and int(found.group(1)))

    def resident_mib():
        for line in open(f"/proc/{server.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

    def traffic():
        text = urllib.request.urlopen(f"http://127.0.0.1:{mgmt_port}/metrics").read().decode()
        values = dict(re.findall(r"^kv_(read_bytes|written_bytes) (\S+)$", text, re.M))
        return float(values["read_bytes"]), float(values["written_bytes"])

    rss_before, (read_before, written_before) = resident_mib(), traffic()
    noops = struct.pack(">BBHBBHIIQ", 0x80, 0x0A, 0, 0, 0, 0, 0, 0, 0) * 1000
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(args.connections)]
    offsets = {}
    for client in clients:
        client.setblocking(False)
        offsets[client] = 0
    while True:
        _, writable, _ = select.select([], clients, [], 1.0)
        if not writable:
            break
        for client in writable:
            try:
                while True:
                    sent = client.send(noops[offsets[client]:])
                    offsets[client] = (offsets[client] + sent) % len(noops)
            except BlockingIOError:
                pass
    read, written = traffic()
    mib = 1 << 20
    print(f"--io {args.io}, {args.connections} connections: resident memory grew by "
          f"{resident_mib() - rss_before:.0f} MiB; read {(read - read_before) / mib:.0f} MiB, "
          f"not answered {(read - read_before - written + written_before) / mib / args.connections:.2f} MiB "
          f"a connection")
finally:
    server.terminate()
    server.wait(30)
