"""The deploy recipe, run for real: deploy/serve.sh (replicas behind nginx, sticky by cookie),
deploy/install.sh in a fresh virtual environment, and the Dockerfile that calls it.

Everything listens on 127.0.0.1 only. nginx comes from Debian (tests/run.sh installs it).
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from fnmatch import fnmatch
from pathlib import Path

import pytest

from support.deploy import (COOKIE, INSTALL, REPLICA_HEADER, ROOT, SERVE, Served, alive, descendants, free_port,
                            request, requirement_pin, route_cookie, rss_mb, streamlit_session)

pytestmark = pytest.mark.system  # deploy/serve.sh: nginx in front of Streamlit server processes; install.sh in a fresh venv


@pytest.fixture(scope="module")
def served(nginx, tmp_path_factory):
    """One deploy/serve.sh --replicas 2, shared by the tests that leave it as they found it."""
    server = Served(tmp_path_factory.mktemp("serve"))
    pids = server.replica_pids()
    print(f"\nserve.sh ready in {server.seconds_to_ready:.1f} s; idle RSS per replica: "
          + ", ".join(f"r{i} {rss_mb(pid):.0f} MB" for i, pid in sorted(pids.items())))
    yield server
    server.stop()


# ---- serve.sh -----------------------------------------------------------------------------------

def test_scripts_parse():
    for script in (SERVE, INSTALL, ROOT / "tests" / "run.sh"):
        subprocess.run(["bash", "-n", str(script)], check=True)
        if shutil.which("shellcheck"):
            done = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True)
            assert done.returncode == 0, done.stdout


@pytest.mark.parametrize("args, message", [
    (["--replicas", "0"], "--replicas must be a whole number from 1 to 64"),
    (["--replicas", "two"], "--replicas must be a whole number"),
    (["--port", "70000"], "--port must be a port number"),
    (["--port"], "--port needs a value"),
    (["--bind", "1.2.3.4; rm"], "--bind must be an address"),
    (["--colour"], "unknown argument: --colour"),
    (["--frame-ancestors", "'self'; add_header X y"], "--frame-ancestors must be CSP sources"),
    (["--frame-ancestors", "$host"], "--frame-ancestors must be CSP sources"),
])
def test_serve_rejects_bad_arguments_with_usage(args, message):
    done = subprocess.run(["bash", str(SERVE), *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Usage: deploy/serve.sh" in done.stderr
    assert subprocess.run(["bash", str(SERVE), "--help"], capture_output=True, text=True).stdout.startswith("Usage:")


def test_serve_without_nginx_says_how_to_install_it():
    done = subprocess.run(["bash", str(SERVE), "--port", str(free_port())], capture_output=True, text=True,
                          timeout=30, env={**os.environ, "NGINX": "/nonexistent/nginx"})
    assert done.returncode == 2
    assert "apt-get install nginx" in done.stderr


def test_health_through_the_proxy(served):
    status, headers, body = request(served.port, "/_stcore/health")
    assert (status, body) == (200, b"ok")
    assert headers[REPLICA_HEADER] in {"r0", "r1"}
    status, _, body = request(served.port, "/")
    assert status == 200 and b"<html" in body.lower()


SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Content-Security-Policy": "frame-ancestors 'self'",
}


def assert_security_headers(headers: http.client.HTTPMessage, what: str, frame_ancestors: str = "'self'") -> None:
    expected = {**SECURITY_HEADERS, "Content-Security-Policy": f"frame-ancestors {frame_ancestors}"}
    for name, value in expected.items():
        assert headers.get_all(name) == [value], (what, name, headers.get_all(name))


def test_every_response_carries_the_security_headers(served):
    """The page, a static file of Streamlit's front end, the upstream's own 404 and nginx's 404
    (the blocked metrics) each carry nosniff, the referrer policy and frame-ancestors 'self', once."""
    status, headers, body = request(served.port, "/playground")
    assert status == 200
    assert_security_headers(headers, "page")
    script = re.search(rb'src="\.?/?(static/js/[^"]+\.js)"', body)
    assert script, body[:2000]
    status, headers, _ = request(served.port, "/" + script[1].decode())
    assert status == 200 and "javascript" in headers["Content-Type"], (status, headers["Content-Type"])
    assert_security_headers(headers, "static file")
    status, headers, _ = request(served.port, "/favicon.png")
    assert status == 200
    assert_security_headers(headers, "favicon")
    status, headers, _ = request(served.port, "/media/0123456789abcdef.csv")  # Streamlit's 404
    assert status == 404 and headers[REPLICA_HEADER] in {"r0", "r1"}
    assert_security_headers(headers, "upstream 404")
    status, headers, _ = request(served.port, "/_stcore/metrics")  # nginx's own 404
    assert status == 404 and not headers[REPLICA_HEADER]
    assert_security_headers(headers, "nginx 404")


@pytest.mark.parametrize("path", [
    "/_stcore/metrics", "/_stcore/metrics?families=session_events", "/_stcore/metrics/", "/_stcore//metrics",
    "//_stcore/metrics", "/_stcore%2Fmetrics", "/_stcore/%6detrics", "/x/../_stcore/metrics",
])
def test_streamlit_metrics_are_not_served_through_the_proxy(served, path):
    """/_stcore/metrics lists sessions and cache hits by function name: a replica answers it, the
    proxy does not, however the path is spelled."""
    replica_port = served.replica_ports()[0]
    status, _, body = request(replica_port, "/_stcore/metrics")
    assert status == 200 and b"session_events" in body  # what a stranger would have read
    for method in ("GET", "OPTIONS", "HEAD"):
        status, headers, body = request(served.port, path, method=method)
        assert status == 404, (method, path, status)
        assert b"session" not in body and not headers[REPLICA_HEADER]


def test_frame_ancestors_can_allow_an_embedding_site(nginx, tmp_path):
    """--frame-ancestors (or SELFATTN_FRAME_ANCESTORS) lets a site such as a Hugging Face Space frame the app."""
    sources = "'self' https://huggingface.co"
    server = Served(tmp_path, replicas=1, args=("--frame-ancestors", sources),
                    env={"SELFATTN_FRAME_ANCESTORS": "'none'"})  # the option wins over the variable
    try:
        for path in ("/", "/_stcore/metrics"):
            _, headers, _ = request(server.port, path)
            assert_security_headers(headers, path, frame_ancestors=sources)
    finally:
        server.stop()
    server = Served(tmp_path, replicas=1, env={"SELFATTN_FRAME_ANCESTORS": "'none'"})
    try:
        _, headers, _ = request(server.port, "/")
        assert_security_headers(headers, "/", frame_ancestors="'none'")
    finally:
        server.stop()


def test_every_replica_is_warmed_before_its_first_visitor(served):
    """deploy/warm.py opens each replica's home page once (its log says so), and that run starts the background
    load: torch's library is mapped into the replica process without any visitor having opened a page."""
    deadline = time.monotonic() + 120
    for i, pid in sorted(served.replica_pids().items()):
        log = served.log_dir / f"replica-{i}.log"
        while not (re.search(r"(?m)^warm: http://127\.0\.0\.1:\d+/ opened in ", log.read_text())
                   and "libtorch_cpu" in Path(f"/proc/{pid}/maps").read_text()):
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.5)


def test_a_long_shared_link_passes_the_proxy(served):
    """The Playground's largest link with every cell typed (about 25,000 characters) is not a 414."""
    query = "x=" + "_".join(["-0.12345678901234567"] * 1_300)
    assert len(query) > 25_000
    status, _, body = request(served.port, f"/playground?{query}")
    assert status == 200 and b"<html" in body.lower()


def test_new_visitors_from_one_address_spread_over_the_replicas(served):
    counts = {"r0": 0, "r1": 0}
    for _ in range(20):
        status, headers, _ = request(served.port, "/")  # no cookie: a new visitor, same address
        assert status == 200
        replica = headers[REPLICA_HEADER]
        counts[replica] += 1
        cookie = route_cookie(headers)
        assert cookie is not None and cookie.startswith(f"{COOKIE}={replica};"), cookie
        for attribute in ("Path=/", "HttpOnly", "SameSite=Lax"):
            assert attribute in cookie
    print(f"\n20 fresh visitors from 127.0.0.1: {counts}")
    assert min(counts.values()) >= 5, counts


def test_a_visitor_with_its_cookie_stays_on_its_replica(served):
    for _ in range(2):  # two visitors, one on each replica (new visitors take turns)
        status, headers, _ = request(served.port, "/")
        replica = headers[REPLICA_HEADER]
        cookie = route_cookie(headers).split(";")[0]
        later = [("GET", "/"), ("GET", "/_stcore/health"), ("GET", "/_stcore/host-config"),
                 ("GET", "/media/0123456789abcdef.csv"),          # a download link (unknown: 404)
                 ("PUT", "/_stcore/upload_file/session/file"),     # an upload (refused: no token)
                 ("GET", "/playground")] * 3
        for method, path in later:
            status, headers, _ = request(served.port, path, cookie=cookie, method=method,
                                         body=b"x" if method == "PUT" else None)
            assert headers[REPLICA_HEADER] == replica, (method, path, status)
            assert route_cookie(headers) is None  # already right: not set again
        # The websocket of that visitor lands there too.
        assert streamlit_session(served.port, cookie)[0] == replica


def test_uploads_are_bounded_per_session_by_the_proxy(served):
    """Issue 29: the upload route takes at most 3 MB a request and 20 a minute per Streamlit session
    (bursts of 8), keyed by the session in its path, so a class behind one address is not limited."""
    status, headers, _ = request(served.port, "/_stcore/upload_file/s-big/f1", method="PUT", body=b"1" * 4_000_000)
    assert status == 413, status
    assert headers["X-Content-Type-Options"] == "nosniff"
    statuses = [request(served.port, f"/_stcore/upload_file/s-flood/f{i}", method="PUT", body=b"1")[0]
                for i in range(14)]
    assert statuses.count(429) >= 4 and 429 not in statuses[:8], statuses  # the burst passes, the rest wait
    other = request(served.port, "/_stcore/upload_file/s-other/f1", method="PUT", body=b"1")[0]
    assert other != 429, other  # another session (a classmate at the same address) is not held back
    assert request(served.port, "/_stcore/health")[0] == 200


def test_a_streamlit_session_runs_through_the_proxy(served):
    replica, kinds = streamlit_session(served.port)
    assert replica in {"r0", "r1"}
    assert kinds[0] == "new_session"
    assert {"delta", "script_finished"} <= set(kinds)


@pytest.mark.browser
@pytest.mark.browser
def test_two_browser_visitors_download_and_upload_on_their_own_replicas(served):
    """Two visitors in Chromium through the proxy land on different replicas; each one's CSV
    download (/media) and CSV upload (/_stcore/upload_file) are answered by that visitor's
    replica. Without stickiness either would fail about half the time."""
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS, wait_until_idle

    url = f"http://127.0.0.1:{served.port}"
    routes = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for _ in range(2):
                context = browser.new_context(viewport={"width": 1400, "height": 1600})
                page = context.new_page()
                seen: list[tuple[str, str, int, str | None]] = []
                page.on("response", lambda r: seen.append(
                    (r.request.method, r.url.removeprefix(url), r.status, r.headers.get("x-selfattn-replica"))))
                page.goto(f"{url}/playground")
                page.wait_for_selector("[class*='st-key-map_outputs'] td", timeout=90000)  # the step maps
                wait_until_idle(page)
                route = next(c for c in context.cookies() if c["name"] == COOKIE)
                assert route["httpOnly"] and route["sameSite"] == "Lax"
                routes.append(route["value"])

                with page.expect_download(timeout=30000) as info:
                    page.locator(".st-key-dl_outputs button").click()
                assert Path(info.value.path()).read_bytes().startswith(b"\xef\xbb\xbf,v1,v2,v3")  # UTF-8 for Excel
                page.locator(".st-key-pg_import_panel summary").click()  # the import's box: its uploader made once open
                page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(
                    files=[{"name": "x.csv", "mimeType": "text/csv", "buffer": b"1,0,1,0\n0,2,0,2\n1,1,1,1\n"}])
                deadline = time.monotonic() + 30
                while not any(method == "PUT" for method, *_ in seen) and time.monotonic() < deadline:
                    page.wait_for_timeout(200)
                wait_until_idle(page)
                context.close()

                media = [s for s in seen if s[1].startswith("/media/")]
                uploads = [s for s in seen if s[0] == "PUT" and s[1].startswith("/_stcore/upload_file/")]
                assert media and uploads, seen
                assert all(status == 200 for _, _, status, _ in media), media
                assert all(status in (200, 204) for _, _, status, _ in uploads), uploads
                assert {replica for *_, replica in seen if replica} == {route["value"]}, seen
        finally:
            browser.close()
    assert sorted(routes) == ["r0", "r1"]


def test_an_unknown_route_cookie_is_a_new_visitor(served):
    status, headers, _ = request(served.port, "/", cookie=f"{COOKIE}=r7")
    assert status == 200
    assert route_cookie(headers).startswith(f"{COOKIE}={headers[REPLICA_HEADER]};")
    assert "Secure" not in route_cookie(headers)


def test_the_cookie_is_secure_behind_a_tls_terminator(served):
    _, headers, _ = request(served.port, "/", headers={"X-Forwarded-Proto": "https"})
    assert route_cookie(headers).endswith("; Secure")


def test_a_killed_replica_is_restarted_and_its_visitors_get_a_page(nginx, tmp_path):
    server = Served(tmp_path)
    try:
        other, old = server.replica_pids()[0], server.replica_pids()[1]
        seen = len(server.lines)
        os.kill(old, signal.SIGKILL)
        # A visitor of replica 1 who reloads at once gets a working page (another replica answers).
        status, headers, _ = request(server.port, "/", cookie=f"{COOKIE}=r1")
        assert status == 200, status
        new = int(server.wait_for_line(r"^replica 1: pid (\d+) ", timeout=60, start=seen)[1])
        assert new != old and alive(new)
        deadline = time.monotonic() + 60
        while True:  # the restarted replica serves its own visitors again
            status, headers, _ = request(server.port, "/_stcore/health", cookie=f"{COOKIE}=r1")
            if status == 200 and headers[REPLICA_HEADER] == "r1":
                break
            assert time.monotonic() < deadline, (status, dict(headers))
            time.sleep(0.5)
        assert streamlit_session(server.port, f"{COOKIE}=r1")[0] == "r1"
        assert server.replica_pids()[0] == other and alive(other)  # the other replica was left alone
    finally:
        server.stop()


@pytest.mark.parametrize("sig,ignored", [(signal.SIGTERM, ()), (signal.SIGINT, ()),
                                         (signal.SIGINT, (signal.SIGINT,)), (signal.SIGTERM, (signal.SIGINT,
                                                                                              signal.SIGTERM))],
                         ids=["SIGTERM", "SIGINT", "SIGINT-started-ignoring-it", "SIGTERM-started-ignoring-it"])
def test_a_signal_stops_every_process_it_started(nginx, tmp_path, sig, ignored):
    """Also when serve.sh was started by a process that ignores the signal (``serve.sh &`` in a script ignores
    SIGINT; a test worker once did too): a shell cannot trap a signal ignored when it started, so serve.sh starts
    itself again with them at their defaults (the whole suite's SIGINT failure, issue 38)."""
    server = Served(tmp_path, ignored=ignored)
    try:
        children = descendants(server.proc.pid)
        names = {Path(f"/proc/{pid}/comm").read_text().strip() for pid in children if alive(pid)}
        assert "nginx" in names and any(n.startswith("python") or n == "streamlit" for n in names), names
        assert set(server.replica_pids().values()) <= children
        started = time.monotonic()
        server.proc.send_signal(sig)
        assert server.proc.wait(timeout=15) == 0
        while any(alive(pid) for pid in children) and time.monotonic() - started < 10:
            time.sleep(0.1)
        left = [pid for pid in children if alive(pid)]
        assert not left, f"still running after {sig.name}: {left}"
        print(f"\n{sig.name}: serve.sh and its {len(children)} processes gone in {time.monotonic() - started:.1f} s")
        with pytest.raises(OSError):
            request(server.port, "/_stcore/health")
    finally:
        server.stop()


# ---- install.sh and the Dockerfile ---------------------------------------------------------------

@pytest.mark.timeout(600)
def test_install_sh_runs_its_steps_in_a_venv(tmp_path):
    """The Dockerfile's install steps, run for real outside a container, in a venv that also sees this machine's
    packages: pip finds the pins satisfied (or installs what is missing), the character vectors are built, the check
    imports everything. The same steps from nothing, every package downloaded and unpacked into a bare Python, are
    the container test's (tests/test_container.py builds the Dockerfile, which runs them; 4 minutes apart from
    this one's ~20 s). TORCH_INDEX_URL is empty: this machine cannot reach the PyTorch CPU index, and pip here is
    configured to find the CPU wheel of the pin."""
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(tmp_path / "venv")], check=True,
                   timeout=300)
    python = tmp_path / "venv" / "bin" / "python"
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(TORCH_INDEX_URL="", PYTHON=str(python), SELFATTN_CACHE_DIR=str(cache))
    done = subprocess.run(["bash", str(INSTALL)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=500)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "install.sh: done" in done.stdout

    check = subprocess.run(
        [str(python), "-c", "import selfattn, streamlit, torch; print(torch.__version__, streamlit.__version__)"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stderr
    torch_version, streamlit_version = check.stdout.split()
    assert torch_version.split("+")[0] == requirement_pin("torch")
    assert streamlit_version == requirement_pin("streamlit")
    assert list(cache.glob("charvec-*.npz")), list(cache.iterdir()) if cache.exists() else "no cache folder"
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"], env=env,
                            capture_output=True, text=True, timeout=120).stdout
    assert not re.search(r"(?im)^nvidia-", listed), "CUDA packages came in with torch"


def test_install_sh_rejects_an_unknown_step():
    done = subprocess.run(["bash", str(INSTALL), "everything"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "unknown step" in done.stderr


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            pairs.append((word.upper(), rest.strip()))
    return pairs


def test_dockerfile_follows_the_recipe():
    steps = dockerfile_instructions()
    args = [rest for _, rest in steps]
    assert steps[0] == ("FROM", "python:3.11-slim")
    run_install = [i for i, (word, rest) in enumerate(steps) if word == "RUN" and "deploy/install.sh" in rest]
    assert run_install, "no RUN line calls deploy/install.sh"
    assert {"deps", "cache", "check", "prefetch"} <= set(re.findall(r"[a-z]+", " ".join(args[i] for i in run_install)))
    useradd = next(i for i, (word, rest) in enumerate(steps) if word == "RUN" and "useradd" in rest)
    assert re.search(r"(--uid|-u) 1000\b", args[useradd])
    user = next(i for i, (word, _) in enumerate(steps) if word == "USER")
    assert steps[user][1] in {"user", "1000"} and useradd < user < run_install[0]  # installs as the user
    env = " ".join(rest for word, rest in steps if word == "ENV")
    assert "SELFATTN_HOSTED=1" in env and "PORT=7860" in env and "HOME=/home/user" in env
    assert ("WORKDIR", "/home/user/app") in steps
    assert ("EXPOSE", "$PORT") in steps  # the port is set in one place
    health = next(rest for word, rest in steps if word == "HEALTHCHECK")
    assert "deploy/healthcheck.py" in health  # the same script serves OCI images' platforms
    script = (ROOT / "deploy" / "healthcheck.py").read_text()
    assert "/_stcore/health" in script and '"PORT"' in script
    # --build-arg TORCH_INDEX_URL reaches install.sh: an ARG before the RUN that installs torch.
    arg = steps.index(("ARG", "TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu"))
    deps = next(i for i in run_install if "deps" in args[i])
    assert arg < deps and "TORCH_INDEX_URL" in args[deps]
    # The default build needs no model hub; after the prefetch the container stays off it.
    assert ("ARG", "PREFETCH=") in steps
    prefetch = next(i for i in run_install if "prefetch" in args[i])
    assert steps.index(("ENV", "HF_HUB_OFFLINE=1")) > prefetch
    cmd = next(rest for word, rest in steps if word == "CMD")
    assert "streamlit run app.py" in cmd and '\\"$PORT\\"' in cmd


def test_dockerignore_keeps_what_the_app_reads():
    patterns = [p.strip().rstrip("/") for p in (ROOT / ".dockerignore").read_text().splitlines()
                if p.strip() and not p.startswith("#")]
    needed = ["app.py", "requirements.txt", "deploy/install.sh", "deploy/serve.sh", "deploy/nginx.conf.template",
              "deploy/healthcheck.py",
              "selfattn/text/charvec.py", "ui/widgets.py", "pages/home.py", ".streamlit/config.toml",
              "benchmarks/results/cpu-amd-epyc-2core.csv"]
    for path in needed:
        assert (ROOT / path).exists(), path
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        hits = [p for p in patterns if not p.startswith("!") and any(fnmatch(q, p.removeprefix("**/")) for q in prefixes)]
        assert not hits, f"{path} is left out of the image by {hits}"
    for left_out in (".git", "tests", "**/__pycache__"):
        assert left_out in patterns
