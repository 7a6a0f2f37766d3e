"""Validate an output tree against a real, throwaway Kubernetes control plane.

kubeconform checks OpenAPI shape only. A real kube-apiserver also evaluates the CEL rules
(``x-kubernetes-validations``) of the CRDs, its own validation of built-in and DRA types and
Pod Security admission. ``ControlPlane`` starts the pinned etcd and kube-apiserver bound to
127.0.0.1 on free ports, in a temp dir, with credentials generated for this run only,
installs the CRD sets the packs declare, and ``validate_tree`` creates the tree's Namespaces
for real (so their Pod Security labels apply) and then server-side dry-runs every object.
Every rejection and every ``Warning`` response header is a problem ``validate/server`` at
``file: Kind/ns/name`` with the server's own message.

The control plane is always torn down, on errors, Ctrl-C and SIGTERM too: no process, port or
file survives it. Its processes also die with strata if strata is killed outright.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import datetime
import http.client
import ipaddress
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Self

import yaml

from strata import progress, tools
from strata.errors import ControlPlaneFailed, UsageError
from strata.problems import Problem, Severity, sorted_problems
from strata.rules import Rule

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the Argo Workflows CRDs are ~3 MB each

SERVER = Rule(
    "validate/server",
    "a real Kubernetes API server rejects or warns about an output object (CRD CEL rules, built-in validation, Pod Security)",
    "fix the spec (or the pack template) that produced the object, as the server's message says",
)
RULES = (SERVER,)

FIELD_MANAGER = "strata"
LOOPBACK = "127.0.0.1"
STARTUP_TIMEOUT = 90.0  # seconds; the apiserver is ready in ~3 s on an idle 2-core machine
ESTABLISHED_TIMEOUT = 180.0
REQUEST_TIMEOUT = 120.0
WORKERS = 4  # the apiserver is CPU-bound; more parallel requests than cores gain nothing
_PROCESS_NAMES = ("etcd", "kube-apiserver")
# Namespaces a fresh control plane has already.
_BUILTIN_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})


@dataclasses.dataclass(frozen=True)
class _Object:
    file: str
    doc: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.doc.get("kind", ""))

    @property
    def api_version(self) -> str:
        return str(self.doc.get("apiVersion", ""))

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or "")

    @property
    def meta(self) -> dict[str, Any]:
        meta = self.doc.get("metadata")
        return meta if isinstance(meta, dict) else {}

    def where(self, display: str, namespace: str) -> str:
        shown = self.name or f"{self.meta.get('generateName', '')}{{{{ generateName }}}}"
        return f"{display}/{self.file}: {self.kind}/{namespace + '/' if namespace else ''}{shown}"


@dataclasses.dataclass(frozen=True)
class _Resource:
    plural: str
    namespaced: bool


@dataclasses.dataclass(frozen=True)
class _Response:
    status: int
    body: dict[str, Any]
    warnings: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def message(self) -> str:
        text = self.body.get("message") if isinstance(self.body, dict) else None
        return " ".join(str(text or f"HTTP {self.status}").split())


def versions() -> dict[str, str]:
    """The pinned versions of the control plane, for messages and reports."""
    return {name: tools.PINS[name].version for name in _PROCESS_NAMES}


def default_crds_dir() -> Path | None:
    env = os.environ.get("STRATA_CRDS")
    return Path(env) if env else None


def crd_sets(names: Sequence[str], crds_dir: Path | None) -> list[Path]:
    """The CRD set directories ``names`` (a lock's ``schemas``) inside ``crds_dir`` (default
    ``$STRATA_CRDS``): the same upstream CRD YAML the schema store was imported from."""
    if not names:
        return []
    crds_dir = crds_dir or default_crds_dir()
    if crds_dir is None:
        raise UsageError("the API server needs the CRD YAML the packs declare: give --crds DIR (e.g. ../shared/reference/crds) or set STRATA_CRDS")
    missing = [n for n in names if not (crds_dir / n).is_dir()]
    if missing:
        raise UsageError(f"{crds_dir} lacks the CRD sets {', '.join(missing)}")
    return [crds_dir / n for n in names]


def validate(root: Path, files: Sequence[str], crd_set_names: Sequence[str], crds_dir: Path | None, display: str) -> list[Problem]:
    """Start a control plane with the CRD sets a tree's lock names (its ``schemas``), validate
    the tree's objects ``files``, tear the plane down."""
    with ControlPlane(crd_sets(crd_set_names, crds_dir)) as plane:
        return plane.validate_tree(root, files, display)


@dataclasses.dataclass(frozen=True)
class ServerValidation:
    """The `--server` validator of ``pipeline.Validation``: one control plane per run."""

    crds_dir: Path | None = None  # default $STRATA_CRDS

    @property
    def __name__(self) -> str:
        """What validate/record.py keys a remembered clean validation by: the pinned server
        and the CRD YAML it installed (set directories are named by release)."""
        crds = self.crds_dir or default_crds_dir()
        pins = " ".join(f"{name}@{version}" for name, version in versions().items())
        return f"server {pins} {crds.resolve() if crds else ''}"

    def __call__(self, target: Any) -> list[Problem]:  # pipeline.Target (which imports this module)
        with progress.step("dry-run of every object on a throwaway kube-apiserver"):
            return validate(target.root, target.manifests, target.lock.schemas, self.crds_dir, target.display)


class ControlPlane:
    """A throwaway etcd + kube-apiserver on loopback; a context manager. ``start`` is the
    only slow part (CRDs), so one plane can validate many trees (tests share one)."""

    def __init__(self, crd_dirs: Sequence[Path] = ()) -> None:
        self.crd_dirs = tuple(crd_dirs)
        self._workdir: Path | None = None
        self._processes: list[subprocess.Popen[bytes]] = []
        self._local = threading.local()
        self._resources: dict[tuple[str, str], _Resource] = {}
        self._discovered: set[str] = set()  # apiVersions whose discovery was read
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._connections: set[http.client.HTTPSConnection] = set()
        self._connections_lock = threading.Lock()
        self._resources_lock = threading.Lock()
        self._port = 0
        self._token = ""
        self._tls: ssl.SSLContext | None = None
        self._previous_handlers: dict[int, Any] = {}

    # -- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self._trap_signals()
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        tools.require(["etcd", "kube-apiserver"])
        etcd, apiserver = tools.find("etcd"), tools.find("kube-apiserver")  # ToolMissing names the install command
        self._workdir = Path(tempfile.mkdtemp(prefix="strata-server-"))
        work = self._workdir
        client_port, peer_port, self._port = _free_ports(3)
        self._token = secrets.token_urlsafe(32)
        self._tls = _write_credentials(work, self._token)
        self._spawn(etcd, [
            "--name", "strata", "--data-dir", str(work / "etcd"),
            "--listen-client-urls", f"http://{LOOPBACK}:{client_port}",
            "--advertise-client-urls", f"http://{LOOPBACK}:{client_port}",
            "--listen-peer-urls", f"http://{LOOPBACK}:{peer_port}",
            "--initial-advertise-peer-urls", f"http://{LOOPBACK}:{peer_port}",
            "--initial-cluster", f"strata=http://{LOOPBACK}:{peer_port}",
            "--unsafe-no-fsync",  # throwaway data: durability buys nothing
            "--log-level", "warn",
        ], work / "etcd.log")
        self._wait_for_port(client_port, "etcd")
        self._spawn(apiserver, [
            "--etcd-servers", f"http://{LOOPBACK}:{client_port}",
            "--bind-address", LOOPBACK, "--advertise-address", LOOPBACK, "--secure-port", str(self._port),
            "--tls-cert-file", str(work / "serving.crt"), "--tls-private-key-file", str(work / "serving.key"),
            "--cert-dir", str(work / "certs"),
            "--token-auth-file", str(work / "tokens.csv"), "--anonymous-auth=false",
            "--authorization-mode", "AlwaysAllow",  # loopback, one random token, nobody else
            "--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file", str(work / "service-accounts.pub"),
            "--service-account-signing-key-file", str(work / "service-accounts.key"),
            "--service-cluster-ip-range", "10.96.0.0/16",  # addresses handed to Services, never bound
            # No controller manager runs, so no "default" ServiceAccount exists; that plugin
            # would reject every Pod for it. PodSecurity (on by default) stays on.
            "--disable-admission-plugins", "ServiceAccount",
            # As EKS runs its API servers: privileged containers are allowed by the server and
            # judged by Pod Security per namespace (kube-apiserver's default refuses them outright).
            "--allow-privileged=true",
            "--endpoint-reconciler-type", "none",
            "--enable-priority-and-fairness=false",
            "--profiling=false",
        ], work / "kube-apiserver.log")
        self._wait_ready()
        self._install_crds()

    def stop(self) -> None:
        """Stop both processes and remove the temp dir; safe to call more than once. A second
        Ctrl-C or SIGTERM while this runs is ignored: it would leave the plane half stopped."""
        self._ignore_signals()
        self._close_connections()
        # The apiserver first, while etcd still answers: without etcd its shutdown hangs.
        for process in reversed(self._processes):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:  # not reaped yet, so the group id is still its own
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self._processes.clear()
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None
        self._restore_signals()

    def _trap_signals(self) -> None:
        """SIGTERM and SIGHUP end strata like Ctrl-C does, so the ``finally`` that tears the
        plane down runs (Python's default for them is to die on the spot)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGTERM, signal.SIGHUP):
            self._previous_handlers[sig] = signal.signal(sig, _interrupt)
        self._previous_handlers.setdefault(signal.SIGINT, signal.getsignal(signal.SIGINT))

    def _ignore_signals(self) -> None:
        if self._previous_handlers and threading.current_thread() is threading.main_thread():
            for sig in self._previous_handlers:
                signal.signal(sig, signal.SIG_IGN)

    def _restore_signals(self) -> None:
        for sig, handler in self._previous_handlers.items():
            signal.signal(sig, handler)
        self._previous_handlers.clear()

    def _spawn(self, binary: Path, args: list[str], log: Path) -> None:
        with open(log, "wb") as out:
            self._processes.append(subprocess.Popen(
                [str(binary), *args], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                cwd=self._workdir,
                # Its own process group: Ctrl-C reaches strata only, which then stops the plane
                # in order. The parent-death signal covers a strata killed outright.
                start_new_session=True, preexec_fn=_die_with_parent,  # noqa: PLW1509 - set before any thread starts
            ))

    def _check_running(self) -> None:
        for process, name in zip(self._processes, _PROCESS_NAMES, strict=False):  # fewer while starting
            if process.poll() is not None:
                raise ControlPlaneFailed(f"{name} exited with code {process.returncode}: {_log_tail(self._workdir, name)}")

    def _wait_for_port(self, port: int, name: str) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            self._check_running()
            with contextlib.suppress(OSError), socket.create_connection((LOOPBACK, port), timeout=1):
                return
            time.sleep(0.05)
        raise ControlPlaneFailed(f"{name} did not listen on {LOOPBACK}:{port} within {STARTUP_TIMEOUT:.0f} s: {_log_tail(self._workdir, name)}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            self._check_running()
            with contextlib.suppress(OSError, http.client.HTTPException):
                if self._request("GET", "/readyz", timeout=5).ok:
                    return
            self._drop_connection()
            time.sleep(0.1)
        raise ControlPlaneFailed(f"kube-apiserver was not ready within {STARTUP_TIMEOUT:.0f} s: {_log_tail(self._workdir, 'kube-apiserver')}")

    # -- CRDs ------------------------------------------------------------------------------

    def _install_crds(self) -> None:
        """Server-side apply every CRD (the Argo Workflows CRDs are too large for the
        last-applied annotation of client-side apply), then wait until all are Established."""
        crds = [doc for directory in self.crd_dirs for doc in _crd_documents(directory)]
        path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
        params = {"fieldManager": FIELD_MANAGER, "force": "true"}

        def apply(crd: dict[str, Any]) -> _Response:
            return self._request("PATCH", path + _quote(crd["metadata"]["name"]), crd, params=params, apply=True)

        for crd, response in zip(crds, self._map(apply, crds), strict=True):
            if not response.ok:
                raise ControlPlaneFailed(f"the API server refused CRD {crd['metadata']['name']}: {response.message()}")
        pending = {crd["metadata"]["name"] for crd in crds}
        deadline = time.monotonic() + ESTABLISHED_TIMEOUT
        while pending:
            for name in sorted(pending):
                conditions = self._request("GET", path + _quote(name)).body.get("status", {}).get("conditions") or []
                if any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions):
                    pending.discard(name)
            if pending and time.monotonic() > deadline:
                raise ControlPlaneFailed(f"CRDs not Established within {ESTABLISHED_TIMEOUT:.0f} s: {', '.join(sorted(pending))}")
            if pending:
                time.sleep(0.5)  # each GET of an Argo Workflows CRD is megabytes
        # Established, and discovery lists every served version's kind: only then would a
        # missing kind in a tree be the tree's fault rather than a race.
        served = {(f"{crd['spec']['group']}/{v['name']}", crd["spec"]["names"]["kind"])
                  for crd in crds for v in crd["spec"]["versions"] if v.get("served", True)}
        while True:
            with self._resources_lock:
                self._resources.clear()
                self._discovered.clear()
                for api_version in sorted({a for a, _ in served}):
                    self._discover(api_version)
                missing = served - set(self._resources)
            if not missing:
                return
            if time.monotonic() > deadline:
                raise ControlPlaneFailed(f"the API server does not serve {', '.join(sorted(f'{k} {a}' for a, k in missing))}")
            time.sleep(0.2)

    # -- validation ------------------------------------------------------------------------

    def validate_tree(self, root: Path, files: Sequence[str], display: str) -> list[Problem]:
        """Every object of ``files`` (relative to ``root``; kustomizations and Helm values
        excluded by the caller) checked by the server. Namespaces are created for real first;
        objects inside a Namespace the server refused are not reported again."""
        objects = _read_objects(root, files)
        problems: list[Problem] = []
        tree_namespaces = [o for o in objects if o.kind == "Namespace" and o.api_version == "v1"]
        defined = {o.name for o in tree_namespaces}
        referenced = sorted({self._namespace_of(o) for o in objects} - defined - _BUILTIN_NAMESPACES - {""})
        # The tree's Namespaces with their labels, then those charts or Argo CD create. One
        # field manager: applying again drops labels an earlier tree set on a shared plane.
        bare = [_Object("", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}}) for n in referenced]
        refused: set[str] = set()
        for obj, response in zip([*tree_namespaces, *bare], self._map(lambda o: self._apply(o, dry_run=False), [*tree_namespaces, *bare]), strict=True):
            if not response.ok:
                refused.add(obj.name)
            if obj.file:
                problems.extend(_problems(obj, response, "", display))
        rest = [o for o in objects if o not in tree_namespaces and self._namespace_of(o) not in refused]
        for obj, response in zip(rest, self._map(lambda o: self._apply(o, dry_run=True), rest), strict=True):
            problems.extend(_problems(obj, response, self._namespace_of(obj), display))
        return sorted_problems(problems)

    def _namespace_of(self, obj: _Object) -> str:
        resource = self._resource(obj.api_version, obj.kind)
        if resource is not None and not resource.namespaced:
            return ""
        return str(obj.meta.get("namespace") or "default") if resource is not None else str(obj.meta.get("namespace") or "")

    def _apply(self, obj: _Object, *, dry_run: bool) -> _Response:
        resource = self._resource(obj.api_version, obj.kind)
        if resource is None:
            message = f"the API server serves no {obj.kind} in {obj.api_version}: neither built in nor defined by an installed CRD"
            return _Response(404, {"message": message}, ())
        prefix = "/api/v1" if obj.api_version == "v1" else f"/apis/{obj.api_version}"
        namespace = self._namespace_of(obj)
        collection = f"{prefix}/namespaces/{_quote(namespace)}/{resource.plural}" if resource.namespaced else f"{prefix}/{resource.plural}"
        params = {"fieldManager": FIELD_MANAGER, "fieldValidation": "Strict"}
        if dry_run:
            params["dryRun"] = "All"
        doc = obj.doc
        if namespace and obj.meta.get("namespace") != namespace:
            doc = {**doc, "metadata": {**obj.meta, "namespace": namespace}}
        if not obj.name:  # generateName: only a create can name it
            return self._request("POST", collection, doc, params=params)
        return self._request("PATCH", f"{collection}/{_quote(obj.name)}", doc, params={**params, "force": "true"}, apply=True)

    def _resource(self, api_version: str, kind: str) -> _Resource | None:
        with self._resources_lock:
            if (api_version, kind) not in self._resources and api_version not in self._discovered:
                self._discover(api_version)
            return self._resources.get((api_version, kind))

    def _discover(self, api_version: str) -> None:
        self._discovered.add(api_version)
        path = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        response = self._request("GET", path)
        if not response.ok:
            return
        for item in response.body.get("resources") or []:
            if "/" in item.get("name", ""):  # subresources
                continue
            self._resources[(api_version, item["kind"])] = _Resource(item["name"], bool(item.get("namespaced")))

    # -- HTTP ------------------------------------------------------------------------------

    def _map(self, fn: Any, items: Sequence[Any]) -> list[_Response]:
        """``fn`` over ``items`` on the plane's worker threads (each keeps one connection)."""
        if not items:
            return []
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="strata-server")
        return list(self._pool.map(fn, items))

    def _connection(self, timeout: float) -> http.client.HTTPSConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPSConnection(LOOPBACK, self._port, context=self._tls, timeout=timeout)
            self._local.conn = conn
            with self._connections_lock:
                self._connections.add(conn)
        conn.timeout = timeout  # for the next connect; an open socket needs telling itself
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
            with self._connections_lock:
                self._connections.discard(conn)

    def _close_connections(self) -> None:
        if self._pool is not None:
            # After Ctrl-C: queued requests are dropped, running ones fail once the server stops.
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        with self._connections_lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()

    def _request(self, method: str, path: str, body: Any = None, *, params: dict[str, str] | None = None,
                 apply: bool = False, timeout: float = REQUEST_TIMEOUT) -> _Response:
        url = path + ("?" + urllib.parse.urlencode(params) if params else "")
        headers = {"Authorization": f"Bearer {self._token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/apply-patch+yaml" if apply else "application/json"  # JSON is YAML
        for attempt in (1, 2):
            conn = self._connection(timeout)
            try:
                conn.request(method, url, body=data, headers=headers)
                raw = conn.getresponse()
                payload = raw.read()
                warnings = tuple(_warning_text(w) for w in raw.headers.get_all("Warning") or [])
                break
            except TimeoutError:
                self._drop_connection()
                raise
            except (OSError, http.client.HTTPException):
                # A kept-alive connection the server closed while idle: once more on a new one.
                self._drop_connection()
                if attempt == 2:
                    raise
        try:
            parsed = json.loads(payload) if payload else {}
        except ValueError:
            parsed = {"message": payload.decode(errors="replace")}
        return _Response(raw.status, parsed if isinstance(parsed, dict) else {}, warnings)


def _problems(obj: _Object, response: _Response, namespace: str, display: str) -> list[Problem]:
    where = obj.where(display, namespace)
    out = [dataclasses.replace(SERVER.problem((), w, Severity.WARNING), where=where) for w in response.warnings]
    if not response.ok:
        out.append(dataclasses.replace(SERVER.problem((), response.message()), where=where))
    return out


def _warning_text(header: str) -> str:
    """``299 - "message"`` (RFC 7234 warn-code, agent, quoted text) -> ``message``."""
    parts = header.split(" ", 2)
    if len(parts) == 3 and parts[0].isdigit():
        text = parts[2].strip()
        if len(text) >= 2 and text[0] == text[-1] == '"':
            text = text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        return " ".join(text.split())
    return " ".join(header.split())


def _read_objects(root: Path, files: Sequence[str]) -> list[_Object]:
    objects = []
    for file in files:
        for doc in yaml.load_all((root / file).read_text(encoding="utf-8"), Loader=_Loader):
            if isinstance(doc, dict) and doc:
                objects.append(_Object(file, doc))
    return objects


def _crd_documents(directory: Path) -> Iterator[dict[str, Any]]:
    for path in sorted(directory.rglob("*.y*ml")):
        for doc in yaml.load_all(path.read_text(encoding="utf-8"), Loader=_Loader):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                yield doc


def _quote(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


def _free_ports(count: int) -> list[int]:
    """Ports the kernel hands out on loopback now; all held open together so they differ."""
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(count):
            sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.bind((LOOPBACK, 0))
            ports.append(sock.getsockname()[1])
        return ports


def _write_credentials(work: Path, token: str) -> ssl.SSLContext:
    """A CA and the serving certificate it signs for 127.0.0.1, the service-account signing
    key pair and a token file with one random token; all for this run only."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    def pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())

    now = datetime.datetime.now(datetime.UTC)
    valid = (now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=1))
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "strata throwaway CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(valid[0]).not_valid_after(valid[1])
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False, key_agreement=False,
                                       encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    serving = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
               .issuer_name(ca_name).public_key(key.public_key())
               .serial_number(x509.random_serial_number()).not_valid_before(valid[0]).not_valid_after(valid[1])
               .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(LOOPBACK))]), critical=False)
               .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
               .sign(ca_key, hashes.SHA256()))
    sa_key = ec.generate_private_key(ec.SECP256R1())
    files = {
        "ca.crt": ca.public_bytes(serialization.Encoding.PEM),
        "serving.crt": serving.public_bytes(serialization.Encoding.PEM),
        "serving.key": pem_key(key),
        "service-accounts.key": pem_key(sa_key),
        "service-accounts.pub": sa_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo),
        "tokens.csv": f"{token},strata,strata,system:masters\n".encode(),
    }
    for name, content in files.items():
        path = work / name
        path.touch(mode=0o600)
        path.write_bytes(content)
    context = ssl.create_default_context(cafile=str(work / "ca.crt"))
    return context


def _log_tail(workdir: Path | None, name: str, lines: int = 5) -> str:
    if workdir is None:
        return "(no log)"
    try:
        text = (workdir / f"{name}.log").read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(text[-lines:]) or "(empty log)"


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _die_with_parent() -> None:
    """In the child before exec (Linux): get SIGKILL when strata's thread that started it dies."""
    if sys.platform != "linux":
        return
    import ctypes

    PR_SET_PDEATHSIG = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
