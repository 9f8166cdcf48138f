#!/usr/bin/env python3
"""Load for strata-server: read latency with and without slow writers.

Bounded: at most --requests reads per phase (<= 20000) and --seconds per phase (<= 60), at most 32
threads, and traffic only to 127.0.0.1. Standard library only.

    python3 Scripts/load.py --port 8080 --requests 2000 --slow-writers 4
"""
import argparse
import json
import statistics
import threading
import time
import urllib.request

HOST = "127.0.0.1"


def request(port, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://{HOST}:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(req, timeout=30) as response:
        response.read()
    return time.perf_counter() - start


def read_phase(port, requests, seconds, concurrency):
    latencies, lock = [], threading.Lock()
    deadline = time.monotonic() + seconds
    counter = iter(range(requests))
    counter_lock = threading.Lock()

    def worker():
        while time.monotonic() < deadline:
            with counter_lock:
                if next(counter, None) is None:
                    return
            elapsed = request(port, "GET", "/notes/1")
            with lock:
                latencies.append(elapsed)

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(latencies), time.monotonic() - began


def percentile(values, p):
    return values[min(len(values) - 1, int(len(values) * p))] * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--slow-writers", type=int, default=4)
    parser.add_argument("--slow-ms", type=int, default=200)
    args = parser.parse_args()
    requests = max(1, min(args.requests, 20000))
    seconds = max(1.0, min(args.seconds, 60.0))
    concurrency = max(1, min(args.concurrency, 32))
    writers = max(0, min(args.slow_writers, 16))

    request(args.port, "POST", "/notes", {"title": "first", "body": "for the reads"})
    idle, idle_time = read_phase(args.port, requests, seconds, concurrency)

    stop = threading.Event()
    writes = [0]

    def slow_writer():
        while not stop.is_set():
            request(args.port, "POST", f"/slow-write?ms={args.slow_ms}")
            writes[0] += 1

    writer_threads = [threading.Thread(target=slow_writer) for _ in range(writers)]
    for t in writer_threads:
        t.start()
    time.sleep(0.2)  # the writes are queued
    loaded, loaded_time = read_phase(args.port, requests, seconds, concurrency)
    stop.set()
    for t in writer_threads:
        t.join()

    print(f"reads: {len(idle)} idle, {len(loaded)} with {writers} slow writers ({writes[0]} slow writes of {args.slow_ms} ms)")
    print(f"idle:   p50 {percentile(idle, 0.5):.2f} ms  p99 {percentile(idle, 0.99):.2f} ms  {len(idle) / idle_time:.0f} reads/s")
    print(f"loaded: p50 {percentile(loaded, 0.5):.2f} ms  p99 {percentile(loaded, 0.99):.2f} ms  {len(loaded) / loaded_time:.0f} reads/s")
    print(f"p99 ratio: {percentile(loaded, 0.99) / percentile(idle, 0.99):.2f}x (goal: within 2x)")


if __name__ == "__main__":
    main()
