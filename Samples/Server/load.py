#!/usr/bin/env python3
"""Load on the server sample: --writers threads (8) each adding, listing and changing todos for --seconds (30)
through docket-server-sample, beside the docket CLI adding to the same store every 0.5 s, a second store adding
and syncing through the remote every 2 s, and a POST /sync every 2 s; once without a /events listener and once
with one. Prints requests/s and p50/p99 per route for both, and whether the listener heard every todo added.

Run (after swift build): python3 Samples/Server/load.py [--seconds 30] [--writers 8] [--size 2000] [--rounds N]
    [--bin DIR]
"""
import argparse, http.client, json, os, shutil, socket, subprocess, tempfile, threading, time

parser = argparse.ArgumentParser()
parser.add_argument("--seconds", type=float, default=30)
parser.add_argument("--writers", type=int, default=8)
parser.add_argument("--size", type=int, default=2000)
parser.add_argument("--bin", default=".build/debug")
parser.add_argument("--rounds", type=int, default=1, help="runs of each, taken in turn (the machine's load varies)")
args = parser.parse_args()
binary = lambda name: os.path.abspath(os.path.join(args.bin, name))


def run(*command, cwd=None):
    return subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True).stdout


def request(port, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    data = json.dumps(body).encode() if body is not None else None
    connection.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response.status, payload


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_run(listening):
    scratch = tempfile.mkdtemp(prefix="docket-server-load-")
    env = dict(os.environ, DOCKET_LOCK_TIMEOUT="10")
    try:
        remote, store, second = (os.path.join(scratch, n) for n in ("remote.git", "store", "second"))
        run("git", "init", "-q", "--bare", "-b", "main", remote)
        run(binary("docket-bench"), "generate", store, "--size", str(args.size))
        run(binary("docket"), "-C", store, "remote", "add", "origin", remote)
        run(binary("docket"), "-C", store, "push")
        run(binary("docket"), "clone", remote, second)
        port = free_port()
        server = subprocess.Popen([binary("docket-server-sample"), "--store", store, "--port", str(port)],
                                  stdout=subprocess.DEVNULL, env=env)
        for _ in range(200):
            try:
                request(port, "GET", "/todos?tag=none")
                break
            except OSError:
                time.sleep(0.05)
        times, lock, heard, added = {}, threading.Lock(), set(), set()
        stop, heard_all = threading.Event(), threading.Event()

        def timed(route, method, path, body=None):
            start = time.monotonic()
            status, payload = request(port, method, path, body)
            with lock:
                times.setdefault(route, []).append((time.monotonic() - start) * 1000)
                if status >= 500:
                    times.setdefault(route + " failed", []).append(0)
            return status, payload

        def listener():
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", "/events")
            response = connection.getresponse()
            while not heard_all.is_set():
                line = response.readline()
                if not line:
                    break
                if line.startswith(b"data: "):
                    with lock:
                        heard.update(json.loads(line[6:]).get("added", []))

        def writer(number):
            count = 0
            while not stop.is_set():
                count += 1
                status, payload = timed("POST /todos", "POST", "/todos", {"text": f"Load {number}.{count}"})
                if status == 201:
                    todo = json.loads(payload)
                    with lock:
                        added.add(todo["id"].upper())
                    timed("GET /todos", "GET", "/todos?sort=priority")
                    if count % 3 == 0:
                        timed("PATCH /todos/<id>", "PATCH", f"/todos/{todo['id']}", {"done": True})

        def syncer():
            while not stop.wait(2):
                timed("POST /sync", "POST", "/sync")

        def cli():
            count = 0
            while not stop.wait(0.5):
                count += 1
                subprocess.run([binary("docket"), "-C", store, "add", f"From the CLI {count}"],
                               capture_output=True, env=env)

        def other_store():
            count = 0
            while not stop.wait(2):
                count += 1
                subprocess.run([binary("docket"), "-C", second, "add", f"From the second store {count}"],
                               capture_output=True, env=env)
                subprocess.run([binary("docket"), "-C", second, "sync"], capture_output=True, env=env)

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(args.writers)]
        threads += [threading.Thread(target=t) for t in (syncer, cli, other_store)]
        if listening:
            threading.Thread(target=listener, daemon=True).start()
            time.sleep(1)
        began = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(args.seconds)
        stop.set()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - began
        time.sleep(1)
        heard_all.set()
        server.terminate()
        server.wait()
        total = sum(len(v) for k, v in times.items() if not k.endswith("failed"))
        percentiles = {}
        print(f"{'with' if listening else 'without'} a listener: {total / elapsed:.1f} requests/s "
              f"({total} in {elapsed:.0f} s)")
        for route in sorted(times):
            values = sorted(times[route])
            if route.endswith("failed"):
                print(f"  {route}: {len(values)}")
                continue
            p = lambda q: values[min(len(values) - 1, int(q * len(values)))]
            print(f"  {route}: {len(values)} requests, p50 {p(0.5):.0f} ms, p99 {p(0.99):.0f} ms")
            percentiles[route] = (p(0.5), p(0.99))
        if listening:
            print(f"  listener heard {len(added & {h.upper() for h in heard})} of the {len(added)} todos added")
        return total / elapsed, percentiles
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


rates, routes = {False: [], True: []}, {False: {}, True: {}}
for round in range(args.rounds):
    # NB: the order turns each round, so a machine whose load drifts does not favour one side.
    for listening in (False, True) if round % 2 == 0 else (True, False):
        rate, percentiles = one_run(listening)
        rates[listening].append(rate)
        for route, values in percentiles.items():
            routes[listening].setdefault(route, []).append(values)
median = lambda values: sorted(values)[len(values) // 2]
ratio = median(rates[True]) / median(rates[False])
within = lambda ratio: "within" if abs(ratio - 1) <= 0.1 else "beyond"
print(f"median over {args.rounds} run(s) each: {median(rates[False]):.1f} requests/s without a listener, "
      f"{median(rates[True]):.1f} with one: {ratio:.2f}x ({within(ratio)} 10%)")
for route in sorted(set(routes[False]) & set(routes[True])):
    p50s = [median([v[0] for v in routes[listening][route]]) for listening in (False, True)]
    p99s = [median([v[1] for v in routes[listening][route]]) for listening in (False, True)]
    print(f"  {route}: median p50 {p50s[0]:.0f} / {p50s[1]:.0f} ms ({p50s[1] / max(p50s[0], 1):.2f}x), "
          f"median p99 {p99s[0]:.0f} / {p99s[1]:.0f} ms ({p99s[1] / max(p99s[0], 1):.2f}x), without / with")
