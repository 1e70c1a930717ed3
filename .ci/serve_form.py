#!/usr/bin/env python3
"""Drives the query form of a running `aggregate serve` in headless Chromium, with JavaScript on, and checks the
result table: loads `/`, picks a provider and an operation (the page's script must show that operation's fields),
fills the query and the limit, presses Run, and compares the table's titles, in order, with the titles given.

Chromium is spoken to over --remote-debugging-pipe (the DevTools protocol, JSON messages ending in NUL on fds 3
and 4), so nothing but Debian's chromium and Python's standard library is needed.

Usage: serve_form.py BASE_URL PROVIDER OPERATION QUERY LIMIT TITLES_JSON_FILE
Exits 1 with one line per problem when the form or the table is not as expected.
"""
import fcntl
import json
import os
import select
import subprocess
import sys
import tempfile
import time

DEADLINE = time.monotonic() + 90


class Browser:
    def __init__(self):
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()
        # Out of the way of 3 and 4, which the child's dup2 calls write to.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 20) for fd in (to_chrome_r, from_chrome_w)]
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.profile = tempfile.mkdtemp(prefix="serve-form-")

        def child():
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=child)
        for fd in high:
            os.close(fd)
        self.out, self.inp = to_chrome_w, from_chrome_r
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def read(self):
        while b"\0" not in self.buffer:
            remaining = DEADLINE - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self.inp], [], [], remaining)
            if ready:
                chunk = os.read(self.inp, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed its pipe")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_for(self, method):
        while True:
            for index, event in enumerate(self.events):
                if event.get("method") == method:
                    del self.events[index]
                    return event
            self.events.append(self.read())

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        subprocess.run(["rm", "-rf", self.profile], check=False)


def main():
    base, provider, operation, query, limit, titles_file = sys.argv[1:7]
    with open(titles_file, encoding="utf-8") as handle:
        expected = json.load(handle)
    problems = []
    browser = Browser()
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

        def evaluate(expression):
            result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
            if "exceptionDetails" in result:
                raise RuntimeError(f"the page threw: {result['exceptionDetails'].get('exception', {}).get('description')}")
            return result["result"].get("value")

        browser.send("Page.enable", session=session)
        browser.send("Page.navigate", {"url": base.rstrip("/") + "/"}, session)
        browser.wait_for("Page.loadEventFired")
        if not evaluate("document.documentElement.classList.contains('js')"):
            problems.append("the page's script did not run (no class=\"js\" on <html>)")
        fieldset = f'fieldset[data-provider="{provider}"][data-operation="{operation}"]'
        state = evaluate(f"""(function () {{
            var change = function (element) {{ element.dispatchEvent(new Event("change", {{bubbles: true}})); }};
            var provider = document.getElementById("provider");
            provider.value = {json.dumps(provider)};
            change(provider);
            var operation = document.getElementById({json.dumps("operation-" + provider)});
            operation.value = {json.dumps(operation)};
            change(operation);
            var fields = document.querySelector({json.dumps(fieldset)});
            var query = fields.querySelector('input[name="query"]');
            query.value = {json.dumps(query)};
            document.getElementById("limit").value = {json.dumps(limit)};
            var shown = Array.prototype.filter.call(document.querySelectorAll("fieldset[data-provider]"), function (set) {{ return !set.hidden; }});
            var state = {{
                shown: shown.map(function (set) {{ return set.getAttribute("data-provider") + " " + set.getAttribute("data-operation"); }}),
                queryEnabled: !query.disabled && !fields.disabled,
                operationEnabled: !operation.disabled,
                chooseHidden: getComputedStyle(document.querySelector("button.choose")).display === "none"
            }};
            document.querySelector('#query-form .actions button[type="submit"]').click();
            return state;
        }})()""")
        if state["shown"] != [f"{provider} {operation}"]:
            problems.append(f"after picking {provider} {operation}, the fieldsets shown are {state['shown']}")
        if not state["queryEnabled"] or not state["operationEnabled"]:
            problems.append("the picked operation's fields are disabled, so the form would not send them")
        browser.wait_for("Page.loadEventFired")
        page = evaluate("""({
            search: location.search,
            titles: Array.prototype.map.call(document.querySelectorAll("table.results tbody tr .title"), function (title) { return title.textContent; }),
            caption: (document.querySelector("table.results caption") || {}).textContent || null,
            alert: (document.querySelector('[role="alert"]') || {}).textContent || null
        })""")
        if page["alert"]:
            problems.append(f"the page shows an error: {page['alert'].strip()}")
        if page["titles"] != expected:
            problems.append(f"the table's titles are {page['titles']}, not {expected} (the command line's)")
        sent = page["search"]
        for part in (f"provider={provider}", f"operation={operation}", f"limit={limit}"):
            if part not in sent:
                problems.append(f"the form sent {sent}, without {part}")
        if sent.count("operation=") != 1:
            problems.append(f"the form sent {sent}: the hidden operations' fields must stay disabled")
        if not problems:
            print(f"ok   the form, driven in Chromium, ran {provider} {operation} and its table lists {len(expected)} titles as the command line does ({sent})")
    except Exception as error:  # one line, whatever broke
        problems.append(f"driving the form failed: {error}")
    finally:
        browser.close()
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
