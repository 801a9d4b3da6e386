"""The Kubernetes manifests (deploy/k8s/), checked offline: no cluster exists on these machines.

Each kustomization (the base and the two overlays) is rendered with `kubectl kustomize`, and every object
it renders is validated strictly (no unknown field) against the schemas of Kubernetes 1.37 that the PyPI
package kubernetes-validate carries (pinned in requirements-dev.txt; nothing is downloaded here). Then the
rules a school's server admin relies on: the pod runs as a user with a read-only image, is sized, probed on
/_stcore/health and drained before it stops; the objects point at each other; and the Ingress carries the
same numbers as deploy/nginx.conf.template, read from that file, so that the two deployments cannot drift.
Each rule is a function that names every offender, and is shown to catch a real mistake.
"""

from __future__ import annotations

import copy
import http.server
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
K8S = ROOT / "deploy" / "k8s"
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
CONTROLLER_CONFIG = K8S / "ingress-nginx-controller-config.yaml"
KUBERNETES_VERSION = "1.37.0"  # the schemas of kubernetes-validate==1.37.0 (requirements-dev.txt)
VARIANTS = {"base": K8S / "base", "class": K8S / "overlays" / "class", "school": K8S / "overlays" / "school"}
NAMESPACES = {"base": "selfattn", "class": "selfattn-class", "school": "selfattn-school"}
HEALTH = "/_stcore/health"
ANNOTATION = "nginx.ingress.kubernetes.io/"

sys.path.insert(0, str(K8S))
import drain  # noqa: E402  deploy/k8s/drain.py, the pod's preStop hook


# ---- rendering -----------------------------------------------------------------------------------

def render(folder: Path) -> list[dict]:
    """The objects `kubectl kustomize folder` prints (local files only: no network)."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed, so the kustomizations cannot be rendered (apt: kubectl; "
                    "or https://kubernetes.io/docs/tasks/tools/)")
    done = subprocess.run([kubectl, "kustomize", str(folder)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[dict]]:
    return {name: render(folder) for name, folder in VARIANTS.items()}


def only(objects: list[dict], kind: str, name: str | None = None) -> dict:
    found = [o for o in objects if o["kind"] == kind and name in (None, o["metadata"]["name"])]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {[o['metadata']['name'] for o in found]}"
    return found[0]


def ingresses(objects: list[dict]) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == "Ingress"}


# ---- what deploy/nginx.conf.template says ------------------------------------------------------------

NGINX_TIME = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
NGINX_SIZE = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}


def seconds(value: str) -> float:
    """nginx's time syntax ("1d", "5s", "90") in seconds."""
    found = re.fullmatch(r"(\d+)(ms|s|m|h|d|w)?", value.strip())
    assert found, f"not an nginx time: {value!r}"
    return int(found[1]) * NGINX_TIME[found[2] or "s"]


def size_bytes(value: str) -> int:
    """nginx's (and ingress-nginx's) size syntax ("3m", "64k") in bytes."""
    found = re.fullmatch(r"(\d+)([kKmMgG]?)", value.strip())
    assert found, f"not an nginx size: {value!r}"
    return int(found[1]) * NGINX_SIZE[found[2].lower()]


def directive(text: str, name: str) -> list[str]:
    """The arguments of every `name ...;` in an nginx config (comments dropped)."""
    text = re.sub(r"(?m)#.*$", "", text)
    return [found.strip() for found in re.findall(rf"(?m)^\s*{name}\s+([^;]+);", text)]


def one_value(text: str, name: str) -> str:
    values = set(directive(text, name))
    assert len(values) == 1, f"{name}: expected one value in {TEMPLATE.name}, found {values or 'none'}"
    return values.pop()


def template_numbers(text: str) -> dict:
    """What the Ingress must agree with, read from the nginx template itself."""
    rate = re.search(r"limit_req_zone\s+\$selfattn_upload_session\s+zone=\S+\s+rate=(\d+)r/([sm]);", text)
    assert rate, "no per-session upload limit_req_zone in the template"
    cookie = re.search(r'default "(\w+)=\$selfattn_served;([^"$]*)', text)
    assert cookie, "no Set-Cookie value in the template"
    attributes = dict(part.strip().partition("=")[::2] for part in cookie[2].split(";") if part.strip())
    upload = re.search(r"location ~ (\S*upload_file\S*) \{", text)
    metrics = re.search(r"location ~ (\S*metrics\S*) \{\s*return 404;", text)
    assert upload and metrics, "the template's upload and metrics locations moved"
    return {
        "body_bytes": size_bytes(one_value(text, "client_max_body_size")),
        "read_timeout_s": seconds(one_value(text, "proxy_read_timeout")),
        "send_timeout_s": seconds(one_value(text, "proxy_send_timeout")),
        "connect_timeout_s": seconds(one_value(text, "proxy_connect_timeout")),
        "next_upstream": one_value(text, "proxy_next_upstream"),
        "request_buffering": one_value(text, "proxy_request_buffering"),
        "uploads_per_minute": int(rate[1]) * (60 if rate[2] == "s" else 1),
        "limit_status": one_value(text, "limit_req_status"),
        "header_buffers": one_value(text, "large_client_header_buffers"),
        "cookie_name": cookie[1],
        "cookie_path": attributes.get("Path"),
        "cookie_samesite": attributes.get("SameSite"),
        "upload_location": upload[1],
        "metrics_location": metrics[1],
    }


# ---- the rules -----------------------------------------------------------------------------------

def quantity(value) -> float:
    """A Kubernetes quantity ("500m", "1", "1536Mi", "1Gi") as a number (cores or bytes)."""
    found = re.fullmatch(r"(\d+(?:\.\d+)?)(m|k|M|G|Ki|Mi|Gi|Ti)?", str(value))
    if not found:
        raise ValueError(f"not a quantity: {value!r}")
    scale = {None: 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30,
             "Ti": 2 ** 40}
    return float(found[1]) * scale[found[2]]


REQUIRED_ENV = {"SELFATTN_HOSTED": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                "MKL_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}


def pod_problems(deployment: dict) -> list[str]:
    """Everything wrong with the Deployment's pod for a hosted, shared demo; [] when nothing is."""
    problems = []
    pod = deployment["spec"]["template"]["spec"]
    pod_security = pod.get("securityContext", {})
    grace = pod.get("terminationGracePeriodSeconds", 30)
    if pod.get("automountServiceAccountToken") is not False:
        problems.append("the pod mounts a service account token it never needs")
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for c in pod["containers"] + pod.get("initContainers", []):
        name = c["name"]
        security = {**pod_security, **c.get("securityContext", {})}
        if security.get("runAsNonRoot") is not True:
            problems.append(f"{name}: runAsNonRoot is not true")
        if security.get("runAsUser", 0) == 0:
            problems.append(f"{name}: runs as root (runAsUser {security.get('runAsUser', 'unset: the image')})")
        if security.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{name}: allowPrivilegeEscalation is not false")
        if security.get("readOnlyRootFilesystem") is not True:
            problems.append(f"{name}: the root filesystem is writable")
        if "ALL" not in security.get("capabilities", {}).get("drop", []):
            problems.append(f"{name}: capabilities are not all dropped")
        if str(c.get("image", "")).endswith(":latest") or ":" not in str(c.get("image", "")):
            problems.append(f"{name}: image {c.get('image')!r} has no fixed tag, so a rollout cannot name it")
        resources = c.get("resources", {})
        for resource in ("cpu", "memory"):
            request = resources.get("requests", {}).get(resource)
            limit = resources.get("limits", {}).get(resource)
            if request is None or limit is None:
                problems.append(f"{name}: {resource} needs a request and a limit (request {request}, limit {limit})")
            elif quantity(request) > quantity(limit):
                problems.append(f"{name}: {resource} request {request} is above its limit {limit}")
        ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
        env = {e["name"]: e.get("value") for e in c.get("env", [])}
        for key, value in REQUIRED_ENV.items():
            if env.get(key) != value:
                problems.append(f"{name}: env {key} is {env.get(key)!r}, not {value!r}")
        if "PORT" in env and str(env["PORT"]) not in {str(p) for p in ports.values()}:
            problems.append(f"{name}: PORT {env['PORT']} is not a container port {sorted(ports.values())}")
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            get = c.get(probe, {}).get("httpGet")
            if probe != "startupProbe" and get is None:
                problems.append(f"{name}: no {probe} over HTTP")
            elif get is not None:
                if get.get("path") != HEALTH:
                    problems.append(f"{name}: {probe} asks {get.get('path')!r}, not {HEALTH}")
                if get.get("port") not in ports and get.get("port") not in ports.values():
                    problems.append(f"{name}: {probe} asks port {get.get('port')!r}, not the container's {ports}")
        mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
        if "emptyDir" not in volumes.get(mounts.get("/tmp"), {}):
            problems.append(f"{name}: no writable /tmp (an emptyDir) under a read-only root")
        command = c.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
        if not any(part.endswith("deploy/k8s/drain.py") for part in command):
            problems.append(f"{name}: no preStop drain (deploy/k8s/drain.py)")
        else:
            wait = float(command[command.index("--max-seconds") + 1]) if "--max-seconds" in command else 3300.0
            if wait < 45 * 60:
                problems.append(f"{name}: the drain waits {wait:.0f} s, less than a 45-minute lesson")
            if grace < wait + 30:
                problems.append(f"{name}: terminationGracePeriodSeconds {grace} leaves under 30 s after a "
                                f"{wait:.0f} s drain: the pod would be killed mid-drain")
    return problems


def wiring_problems(objects: list[dict], namespace: str) -> list[str]:
    """Objects that do not point at each other as they must; [] when all do."""
    problems = []
    deployment = only(objects, "Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    ports = {p.get("name"): p["containerPort"] for p in container["ports"]}

    def selects(selector: dict) -> bool:
        wanted = selector.get("matchLabels", selector)
        return bool(wanted) and all(labels.get(k) == v for k, v in wanted.items())

    if not selects(deployment["spec"]["selector"]):
        problems.append("the Deployment's selector does not match its own pods")
    service = only(objects, "Service")
    if not selects(service["spec"]["selector"]):
        problems.append("the Service selects no pod of the Deployment")
    service_ports = {p.get("name"): p for p in service["spec"]["ports"]}
    for p in service_ports.values():
        if p["targetPort"] not in ports and p["targetPort"] not in ports.values():
            problems.append(f"the Service sends to port {p['targetPort']!r}, which the container lacks")
    for name, ingress in ingresses(objects).items():
        if ingress["spec"].get("ingressClassName") != "nginx":
            problems.append(f"Ingress {name} is not for ingress-nginx")
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                backend = path["backend"]["service"]
                if backend["name"] != service["metadata"]["name"] or backend["port"].get("name") not in service_ports:
                    problems.append(f"Ingress {name} sends {path['path']} to {backend}, not to the Service")
        hosts = {rule.get("host") for rule in ingress["spec"]["rules"]}
        tls_hosts = {h for tls in ingress["spec"].get("tls", []) for h in tls.get("hosts", [])}
        if not hosts <= tls_hosts:
            problems.append(f"Ingress {name}: hosts {hosts - tls_hosts} have no TLS (the cookie is Secure only on https)")
    hpa = only(objects, "HorizontalPodAutoscaler")
    target = hpa["spec"]["scaleTargetRef"]
    if (target["kind"], target["name"]) != ("Deployment", deployment["metadata"]["name"]):
        problems.append(f"the autoscaler scales {target}, not the Deployment")
    if not 2 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]:
        problems.append(f"the autoscaler's range {hpa['spec']['minReplicas']}..{hpa['spec']['maxReplicas']} "
                        "is not at least 2 pods (one pod's restart would drop the whole class)")
    if "replicas" in deployment["spec"]:
        problems.append("the Deployment sets replicas, which every apply would reset under the autoscaler")
    down = hpa["spec"].get("behavior", {}).get("scaleDown", {})
    if down.get("stabilizationWindowSeconds", 300) < 1800:
        problems.append("the autoscaler may remove pods within half an hour of a lesson's load")
    if not selects(only(objects, "PodDisruptionBudget")["spec"]["selector"]):
        problems.append("the PodDisruptionBudget selects no pod")
    policy = only(objects, "NetworkPolicy")
    if not selects(policy["spec"]["podSelector"]):
        problems.append("the NetworkPolicy selects no pod")
    sources = [peer for rule in policy["spec"].get("ingress", []) for peer in rule.get("from", [])]
    if not sources or any("ipBlock" in peer or "namespaceSelector" not in peer for peer in sources):
        problems.append(f"the NetworkPolicy lets in more than the ingress controller's namespace: {sources}")
    allowed = {p["port"] for rule in policy["spec"].get("ingress", []) for p in rule.get("ports", [])}
    if allowed != set(ports.values()):
        problems.append(f"the NetworkPolicy opens ports {allowed}, not the app's {set(ports.values())}")
    for o in objects:
        expected = None if o["kind"] == "Namespace" else namespace
        if o["metadata"].get("namespace") != expected:
            problems.append(f"{o['kind']} {o['metadata']['name']} is in namespace {o['metadata'].get('namespace')}")
    space = only(objects, "Namespace")
    if space["metadata"]["name"] != namespace or \
            space["metadata"].get("labels", {}).get("pod-security.kubernetes.io/enforce") != "restricted":
        problems.append("the namespace does not enforce the restricted Pod Security Standard")
    return problems


def ingress_problems(objects: list[dict], numbers: dict) -> list[str]:
    """Where the Ingresses disagree with deploy/nginx.conf.template's numbers; [] when they agree."""
    problems = []
    found = ingresses(objects)
    expected = {
        "affinity": "cookie",
        "affinity-mode": "persistent",
        "session-cookie-name": numbers["cookie_name"],
        "session-cookie-path": numbers["cookie_path"],
        "session-cookie-samesite": numbers["cookie_samesite"],
        "proxy-next-upstream": numbers["next_upstream"],
        "proxy-request-buffering": numbers["request_buffering"],
    }
    for name, ingress in found.items():
        notes = ingress["metadata"].get("annotations", {})
        for key, value in expected.items():
            if notes.get(ANNOTATION + key) != value:
                problems.append(f"{name}: {key} is {notes.get(ANNOTATION + key)!r}, the template's is {value!r}")
        for key, want in (("proxy-read-timeout", numbers["read_timeout_s"]),
                          ("proxy-send-timeout", numbers["send_timeout_s"]),
                          ("proxy-connect-timeout", numbers["connect_timeout_s"])):
            got = notes.get(ANNOTATION + key)
            if got is None or seconds(got) != want:  # ingress-nginx takes plain seconds
                problems.append(f"{name}: {key} is {got!r}, the template's is {want:g} s")
        body = notes.get(ANNOTATION + "proxy-body-size")
        if body is None or size_bytes(body) != numbers["body_bytes"]:
            problems.append(f"{name}: proxy-body-size is {body!r}, the template's is {numbers['body_bytes']} bytes")

    def paths(ingress: dict) -> list[str]:
        return [p["path"] for rule in ingress["spec"]["rules"] for p in rule["http"]["paths"]]

    def limited(ingress: dict) -> bool:
        return ANNOTATION + "limit-rpm" in ingress["metadata"].get("annotations", {})

    upload_re = re.compile(numbers["upload_location"])
    uploads = [i for i in found.values() if any(upload_re.search(p + "/s/f") for p in paths(i))]
    if len(uploads) != 1:
        problems.append(f"expected one Ingress for {numbers['upload_location']}, found {len(uploads)}")
    else:
        rpm = uploads[0]["metadata"]["annotations"].get(ANNOTATION + "limit-rpm")
        if rpm != str(numbers["uploads_per_minute"]):
            problems.append(f"uploads: limit-rpm is {rpm!r}, the template allows {numbers['uploads_per_minute']} a minute")
    for name, ingress in found.items():
        if limited(ingress) and ingress not in uploads:
            problems.append(f"{name}: the upload rate limit also holds back {paths(ingress)} (a class shares one address)")
    metrics_re = re.compile(numbers["metrics_location"])
    denied = [i for i in found.values() if any(metrics_re.search(p) for p in paths(i))]
    deny = denied[0]["metadata"].get("annotations", {}).get(ANNOTATION + "denylist-source-range", "") if denied else ""
    if len(denied) != 1 or {r.strip() for r in deny.split(",")} != {"0.0.0.0/0", "::/0"}:
        problems.append(f"{numbers['metrics_location']} is not denied to every address ({deny!r})")
    return problems


# ---- tests: rendering and schemas ------------------------------------------------------------------

EXPECTED_KINDS = {("Namespace", 1), ("ServiceAccount", 1), ("Deployment", 1), ("Service", 1), ("Ingress", 3),
                  ("HorizontalPodAutoscaler", 1), ("PodDisruptionBudget", 1), ("NetworkPolicy", 1)}


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_kustomization_renders_every_object(rendered, variant):
    kinds = [o["kind"] for o in rendered[variant]]
    assert {(kind, kinds.count(kind)) for kind in kinds} == EXPECTED_KINDS


def schema_errors(objects: list[dict]) -> list[str]:
    """Every object that the pinned Kubernetes version's strict schema refuses, with the reason."""
    errors = []
    for o in objects:
        where = f"{o.get('kind')} {o.get('metadata', {}).get('name')}"
        try:
            version = kubernetes_validate.validate(o, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            errors.append(f"{where} at {'.'.join(map(str, error.path)) or '(top)'}: {error.message}")
        except kubernetes_validate.SchemaNotFoundError as error:
            errors.append(f"{where}: {error.message}")
        else:
            if version != "1.37":
                errors.append(f"{where}: validated against {version}, not 1.37")
    return errors


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_rendered_object_is_valid_kubernetes_1_37_with_no_unknown_field(rendered, variant):
    assert schema_errors(rendered[variant]) == []


def test_the_controller_settings_are_valid_kubernetes():
    assert schema_errors([yaml.safe_load(CONTROLLER_CONFIG.read_text())]) == []


@pytest.mark.parametrize("mistake, path", [
    ("a misspelt field", ("spec", "template", "spec", "containers", 0, "readinessprobe")),
    ("a field at the wrong level", ("spec", "template", "spec", "readOnlyRootFilesystem")),
    ("an annotation that is not a string", ("metadata", "annotations", "nginx.ingress.kubernetes.io/limit-rpm")),
])
def test_the_schema_check_is_strict(rendered, mistake, path):
    """The validation above could fail: an unknown field or a wrong type in a rendered object is refused."""
    objects = copy.deepcopy(rendered["base"])
    target = only(objects, "Ingress" if "annotations" in path else "Deployment",
                  "selfattn-uploads" if "annotations" in path else None)
    node = target
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = 20 if "annotations" in path else True
    errors = schema_errors(objects)
    assert len(errors) == 1, (mistake, errors)


# ---- tests: the pod, the wiring, the Ingress -------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_the_pod_is_non_root_read_only_sized_probed_and_drained(rendered, variant):
    assert pod_problems(only(rendered[variant], "Deployment")) == []


def _set(path: tuple, value):
    def change(deployment: dict) -> None:
        node = deployment
        for key in path[:-1]:
            node = node[key]
        if value is None:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    return change


CONTAINER = ("spec", "template", "spec", "containers", 0)


@pytest.mark.parametrize("mistake, change, complaint", [
    ("a probe path that is not the health endpoint",
     _set(CONTAINER + ("livenessProbe", "httpGet", "path"), "/healthz"), "livenessProbe asks '/healthz'"),
    ("a missing memory limit", _set(CONTAINER + ("resources", "limits", "memory"), None), "memory needs"),
    ("a request above the limit", _set(CONTAINER + ("resources", "requests", "cpu"), "3"), "above its limit"),
    ("a container that runs as root", _set(("spec", "template", "spec", "securityContext", "runAsUser"), 0),
     "runs as root"),
    ("a writable image", _set(CONTAINER + ("securityContext", "readOnlyRootFilesystem"), False), "writable"),
    ("BLAS left on all cores", _set(CONTAINER + ("env",), [{"name": "SELFATTN_HOSTED", "value": "1"}]),
     "OPENBLAS_NUM_THREADS"),
    ("no writable /tmp", _set(CONTAINER + ("volumeMounts",), []), "no writable /tmp"),
    ("a grace period shorter than the drain", _set(("spec", "template", "spec", "terminationGracePeriodSeconds"), 30),
     "killed mid-drain"),
    ("no drain", _set(CONTAINER + ("lifecycle",), None), "no preStop drain"),
    ("a probe on another port", _set(CONTAINER + ("readinessProbe", "httpGet", "port"), 8501), "asks port 8501"),
])
def test_the_pod_rules_catch_a_real_mistake(rendered, mistake, change, complaint):
    deployment = copy.deepcopy(only(rendered["base"], "Deployment"))
    change(deployment)
    problems = pod_problems(deployment)
    assert any(complaint in p for p in problems), (mistake, problems)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_objects_point_at_each_other(rendered, variant):
    assert wiring_problems(rendered[variant], NAMESPACES[variant]) == []


@pytest.mark.parametrize("mistake, kind, path, value, complaint", [
    ("a Service selector with a typo", "Service", ("spec", "selector"), {"app.kubernetes.io/name": "selfatn"},
     "the Service selects no pod"),
    ("an autoscaler aimed elsewhere", "HorizontalPodAutoscaler", ("spec", "scaleTargetRef", "name"), "web",
     "the autoscaler scales"),
    ("a single pod", "HorizontalPodAutoscaler", ("spec", "minReplicas"), 1, "at least 2 pods"),
    ("a quick scale-down", "HorizontalPodAutoscaler", ("spec", "behavior", "scaleDown", "stabilizationWindowSeconds"),
     300, "within half an hour"),
    ("a policy open to every address", "NetworkPolicy", ("spec", "ingress", 0, "from"),
     [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "lets in more than"),
    ("an Ingress to another service", "Ingress", ("spec", "rules", 0, "http", "paths", 0, "backend", "service", "name"),
     "other", "not to the Service"),
])
def test_the_wiring_rules_catch_a_real_mistake(rendered, mistake, kind, path, value, complaint):
    objects = copy.deepcopy(rendered["class"])
    node = [o for o in objects if o["kind"] == kind][0]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    problems = wiring_problems(objects, NAMESPACES["class"])
    assert any(complaint in p for p in problems), (mistake, problems)


def test_the_template_numbers_are_the_ones_documented():
    """The reader of the template below; its figures are those deploy/README.md states (3 MB, one day, 20 a minute)."""
    numbers = template_numbers(TEMPLATE.read_text())
    assert numbers["body_bytes"] == 3 * 2 ** 20
    assert numbers["read_timeout_s"] == numbers["send_timeout_s"] == 86400
    assert numbers["uploads_per_minute"] == 20
    assert (numbers["cookie_name"], numbers["cookie_path"], numbers["cookie_samesite"]) == ("selfattn_route", "/", "Lax")


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_ingress_agrees_with_the_nginx_template(rendered, variant):
    """Same body limit, timeouts, cookie and upload rate as deploy/serve.sh's nginx, read from its template."""
    assert ingress_problems(rendered[variant], template_numbers(TEMPLATE.read_text())) == []


@pytest.mark.parametrize("mistake, edit, complaint", [
    ("a larger body limit in the template", ("client_max_body_size 3m;", "client_max_body_size 5m;"), "proxy-body-size"),
    ("a shorter websocket timeout in the template", ("proxy_read_timeout 1d;", "proxy_read_timeout 1h;"),
     "proxy-read-timeout"),
    ("another cookie name in the template", ('default "selfattn_route=', 'default "route='), "session-cookie-name"),
    ("another upload rate in the template", ("rate=20r/m;", "rate=30r/m;"), "limit-rpm"),
])
def test_a_drift_between_template_and_ingress_is_caught(rendered, mistake, edit, complaint):
    text = TEMPLATE.read_text()
    assert edit[0] in text, f"the template no longer has {edit[0]!r}: update this test"
    problems = ingress_problems(rendered["base"], template_numbers(text.replace(edit[0], edit[1])))
    assert any(complaint in p for p in problems), (mistake, problems)


def test_an_unlimited_upload_path_or_open_metrics_are_caught(rendered):
    objects = copy.deepcopy(rendered["base"])
    found = ingresses(objects)
    del found["selfattn-uploads"]["metadata"]["annotations"][ANNOTATION + "limit-rpm"]
    found["selfattn-metrics-denied"]["metadata"]["annotations"][ANNOTATION + "denylist-source-range"] = "10.0.0.0/8"
    found["selfattn"]["metadata"]["annotations"][ANNOTATION + "limit-rpm"] = "20"
    problems = " | ".join(ingress_problems(objects, template_numbers(TEMPLATE.read_text())))
    assert "limit-rpm is None" in problems
    assert "is not denied to every address" in problems
    assert "selfattn: the upload rate limit also holds back ['/']" in problems


def test_the_controller_settings_agree_with_the_template():
    """What only the controller can set (long links' header buffers, the 429) is the template's too."""
    data = yaml.safe_load(CONTROLLER_CONFIG.read_text())["data"]
    numbers = template_numbers(TEMPLATE.read_text())
    assert data["large-client-header-buffers"] == numbers["header_buffers"]
    assert data["limit-req-status-code"] == numbers["limit_status"]


def test_the_readme_commands_name_real_kustomizations():
    """deploy/README.md's `kubectl apply -k` and `kubectl kustomize` lines point at folders that exist."""
    text = (ROOT / "deploy" / "README.md").read_text()
    named = set(re.findall(r"kubectl (?:apply -k|kustomize|diff -k|delete -k) (deploy/k8s/[\w./-]+\w)", text))
    assert {"deploy/k8s/overlays/class", "deploy/k8s/overlays/school"} <= named, named
    for folder in named:
        assert (ROOT / folder / "kustomization.yaml").is_file(), folder


# ---- tests: the drain (deploy/k8s/drain.py) ---------------------------------------------------------

class _Metrics(http.server.BaseHTTPRequestHandler):
    counts: list[int] = []  # what successive requests answer; the last one repeats

    def do_GET(self):  # noqa: N802 - http.server's name
        count = self.counts.pop(0) if len(self.counts) > 1 else self.counts[0]
        body = ("# TYPE active_sessions gauge\n# HELP active_sessions Current number of active sessions.\n"
                f"active_sessions {count}\n# EOF\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/openmetrics-text")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def metrics_server():
    """A stand-in for Streamlit's /_stcore/metrics on loopback; set `.counts` on the handler class."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Metrics)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_the_drain_waits_until_the_last_visitor_left(metrics_server):
    _Metrics.counts = [3, 2, 1, 0]
    started = time.monotonic()
    assert drain.drain(metrics_server, max_seconds=30, settle=0, every=0.05) == "empty"
    assert time.monotonic() - started < 5
    assert _Metrics.counts == [0]  # it looked until the count reached 0


def test_the_drain_gives_up_at_its_deadline(metrics_server):
    _Metrics.counts = [5]
    started = time.monotonic()
    assert drain.drain(metrics_server, max_seconds=0.5, settle=0, every=0.1) == "deadline"
    assert 0.4 < time.monotonic() - started < 5


def test_the_drain_stops_when_no_server_answers():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once the socket is closed
    assert drain.drain(port, max_seconds=30, settle=0, every=0.05) == "no server"


def test_the_drain_reads_streamlits_own_metrics_format():
    """The line Streamlit 1.67 writes for ?families=active_sessions (seen on a real server), and a labelled one."""
    assert drain.ACTIVE.search("# TYPE active_sessions gauge\nactive_sessions 0\n# EOF\n")[1] == "0"
    assert drain.ACTIVE.search('active_sessions{pod="a"} 12\n')[1] == "12"
    assert drain.ACTIVE.search("active_sessions_total 3\n") is None
