"""Helper of sandbox-load.sh: the baseline server, the load generators and the slowloris probe."""
import http.client
import json
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TMDB_KEY = "5a9d0c1e7f3b4a6d8e2c1b0a9f8e7d6c"
X_TOKEN = "sandbox-x-bearer-token"
MEETUP_TOKEN = "sandbox-meetup-token"

# (name, method, path, headers, body)
ROUTES = [
    ("tmdb search", "GET", f"/tmdb/3/search/movie?query=batman&api_key={TMDB_KEY}", {}, None),
    ("tmdb popular", "GET", f"/tmdb/3/movie/popular?api_key={TMDB_KEY}", {}, None),
    ("tmdb movie", "GET", f"/tmdb/3/movie/1930?append_to_response=credits&api_key={TMDB_KEY}", {}, None),
    ("tmdb configuration", "GET", f"/tmdb/3/configuration?api_key={TMDB_KEY}", {}, None),
    ("meetup v2 groups", "GET", "/meetup/2/groups?lat=51.509980&lon=-0.133700&key=sandbox-meetup-key", {}, None),
    ("meetup graphql", "POST", "/meetup/gql-ext", {"Authorization": f"Bearer {MEETUP_TOKEN}", "Content-Type": "application/json"},
     json.dumps({"query": "query($query: String!, $lat: Float!, $lon: Float!, $first: Int) { groupSearch }",
                 "variables": {"query": "", "lat": 51.50998, "lon": -0.1337, "first": 20}})),
    ("kiva rest newest", "GET", "/kiva/v1/loans/newest.json", {}, None),
    ("kiva rest search", "GET", "/kiva/v1/loans/search.json?q=food&status=fundraising", {}, None),
    ("kiva graphql", "POST", "/kiva/graphql", {"Content-Type": "application/json"},
     json.dumps({"query": "{ lend { loans(offset: $offset, limit: $limit) { totalCount values { id } } } }",
                 "variables": {"offset": 0, "limit": 20}})),
    ("twitter v2 user", "GET", "/twitter/2/users/by/username/orbitalnotes", {"Authorization": f"Bearer {X_TOKEN}"}, None),
    ("twitter v2 tweets", "GET", "/twitter/2/users/1000000000000000001/tweets?max_results=10", {"Authorization": f"Bearer {X_TOKEN}"}, None),
    ("twitter v1.1 timeline", "GET", "/twitter/1.1/statuses/user_timeline.json?screen_name=orbitalnotes&count=20",
     {"Authorization": f"Bearer {X_TOKEN}"}, None),
    ("messageboard list", "GET", "/messageboard/messages.json", {}, None),
]


def fetch(base, method, path, headers, body):
    request = urllib.request.Request(base + path, method=method, headers=headers, data=body.encode() if body else None)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers.get("Content-Type", "application/json"), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", "application/json"), error.read()


def baseline_server(status, content_type, payload):
    # The stock handler, as a quick Python emulator would be written: BaseHTTPRequestHandler's defaults
    # (HTTP/1.0, one connection per request), send_response + send_header + end_headers, then the body.
    class Handler(BaseHTTPRequestHandler):

        def answer(self):
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = answer
        do_POST = answer

        def log_message(self, *args):
            pass

    class QuietServer(ThreadingHTTPServer):
        def handle_error(self, request, client_address):
            pass  # wrk resets its connections at the end; that is not an error worth a traceback

    server = QuietServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def parse_duration(text):
    number, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_wrk(url, method, headers, body, seconds):
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(f"wrk.method = {json.dumps(method)}\n")
        if body:
            script.write(f"wrk.body = {json.dumps(body)}\n")
        for name, value in headers.items():
            script.write(f"wrk.headers[{json.dumps(name)}] = {json.dumps(value)}\n")
    output = subprocess.run(["wrk", "-t2", "-c50", f"-d{seconds}s", "--latency", "-s", script.name, url],
                            capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p50 = parse_duration(re.search(r"\s50%\s+(\S+)", output).group(1))
    p99 = parse_duration(re.search(r"\s99%\s+(\S+)", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return rate, p50, p99


def run_python_load(url, method, headers, body, seconds, connections=8):
    """A bounded loopback-only load: `connections` keep-alive clients for `seconds`."""
    match = re.match(r"http://([^/:]+):(\d+)(.*)", url)
    host, port, path = match.group(1), int(match.group(2)), match.group(3)
    assert host in ("127.0.0.1", "localhost", "::1"), "loopback only"
    latencies = []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client():
        connection = http.client.HTTPConnection(host, port, timeout=10)
        mine = []
        while time.monotonic() < deadline:
            started = time.monotonic()
            connection.request(method, path, body=body, headers=headers)
            connection.getresponse().read()
            mine.append((time.monotonic() - started) * 1000)
        connection.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    latencies.sort()
    return len(latencies) / seconds, latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.99)]


def slowloris(base, count=300, probes=20):
    match = re.match(r"http://([^/:]+):(\d+)", base)
    host, port = match.group(1), int(match.group(2))
    slow = []
    for _ in range(count):
        sock = socket.create_connection((host, port))
        sock.sendall(b"GET /tmdb/3/configuration HTTP/1.1\r\nHost: x\r\nX-Slow: a")
        slow.append(sock)
    stop = threading.Event()

    def trickle():
        while not stop.wait(1):
            for sock in slow:
                try:
                    sock.send(b"a")
                except OSError:
                    pass

    threading.Thread(target=trickle, daemon=True).start()
    time.sleep(0.5)
    timings = []
    answered = 0
    for _ in range(probes):
        started = time.monotonic()
        try:
            connection = http.client.HTTPConnection(host, port, timeout=5)
            connection.request("GET", f"/tmdb/3/configuration?api_key={TMDB_KEY}")
            answered += connection.getresponse().status == 200
            connection.close()
        except OSError:
            pass
        timings.append((time.monotonic() - started) * 1000)
        time.sleep(0.1)
    stop.set()
    for sock in slow:
        sock.close()
    timings.sort()
    return answered, probes, timings[len(timings) // 2], timings[-1]


def main():
    base, seconds, tool = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    load = run_wrk if tool == "wrk" else run_python_load
    print(f"{'route':<24} {'sandbox req/s':>13} {'p50 ms':>7} {'p99 ms':>7} | {'python req/s':>12} {'p50 ms':>7} {'p99 ms':>7} | {'ratio':>5}")
    worst = None
    for name, method, path, headers, body in ROUTES:
        status, content_type, payload = fetch(base, method, path, headers, body)
        if status >= 400:
            print(f"{name:<24} the sandbox answered {status}: {payload[:120]!r}", file=sys.stderr)
            sys.exit(1)
        server = baseline_server(status, content_type, payload)
        try:
            ours = load(base + path, method, headers, body, seconds)
            theirs = load(f"http://127.0.0.1:{server.server_address[1]}{path}", method, headers, body, seconds)
        finally:
            server.shutdown()
            server.server_close()
        ratio = ours[0] / theirs[0]
        worst = ratio if worst is None else min(worst, ratio)
        print(f"{name:<24} {ours[0]:>13.0f} {ours[1]:>7.2f} {ours[2]:>7.2f} | {theirs[0]:>12.0f} {theirs[1]:>7.2f} {theirs[2]:>7.2f} | {ratio:>5.1f}",
              flush=True)
    print(f"lowest ratio sandbox / Python: {worst:.1f} (target >= 5)")
    answered, probes, median, slowest = slowloris(base)
    print(f"slowloris: 300 slow connections open; {answered}/{probes} normal requests answered, "
          f"median {median:.1f} ms, slowest {slowest:.1f} ms (target: each within 100 ms)")


if __name__ == "__main__":
    main()
