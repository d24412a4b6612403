"""One contract for every BlobStore backend: local files, memory, and S3 on a real moto server."""

from __future__ import annotations

import http.client
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from service_stack import clean_env, free_port, process

from evidex.workers.blobstore_local import LocalBlobStore
from evidex.workers.blobstore_memory import MemoryBlobStore
from evidex.workers.blobstore_s3 import S3BlobStore
from evidex.workers.factory import make_blob_store
from evidex.workers.settings import WorkerSettings
from evidex.workers.stores import BlobNotFound, BlobStore, StoreUnavailable


def _answers(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        connection.request("GET", "/")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


@pytest.fixture(scope="session")
def moto_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A moto S3 server in its own process on a free local port, for the whole session."""
    port = free_port()
    argv = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with process(argv, clean_env(), log) as server:
        deadline = time.monotonic() + 30
        while not _answers(port):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"moto server did not start on port {port}: see {log}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Dummy credentials, no shared config, no proxies, no instance metadata lookups."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture(params=["local", "memory", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> BlobStore:
    if request.param == "local":
        return LocalBlobStore(tmp_path / "blobs")
    if request.param == "memory":
        return MemoryBlobStore()
    endpoint = request.getfixturevalue("moto_endpoint")
    request.getfixturevalue("aws_env")
    bucket = f"evidex-test-{uuid.uuid4().hex[:12]}"
    return S3BlobStore(bucket, endpoint_url=endpoint, create_bucket=True)


# --- the contract, over every backend ----------------------------------------------------------


@pytest.mark.parametrize("data", [bytes(range(256)) * 3, b""], ids=["all-bytes", "empty"])
def test_put_then_get_returns_the_same_bytes(store: BlobStore, data: bytes) -> None:
    store.put("acme/job_1/document", data, "application/pdf")
    assert store.get("acme/job_1/document") == data


def test_put_overwrites_the_previous_bytes(store: BlobStore) -> None:
    store.put("acme/job_1/result.json", b'{"v": 1}')
    store.put("acme/job_1/result.json", b'{"v": 2}')
    assert store.get("acme/job_1/result.json") == b'{"v": 2}'


def test_get_of_a_missing_key_raises_blob_not_found(store: BlobStore) -> None:
    with pytest.raises(BlobNotFound) as caught:
        store.get("acme/job_404/document")
    assert caught.value.args == ("acme/job_404/document",)
    assert isinstance(caught.value, KeyError)


def test_exists_tells_whether_a_key_was_put(store: BlobStore) -> None:
    assert store.exists("acme/job_1/document") is False
    store.put("acme/job_1/document", b"%PDF-1.7")
    assert store.exists("acme/job_1/document") is True
    assert store.exists("acme/job_1") is False


def test_delete_removes_one_key_and_is_idempotent(store: BlobStore) -> None:
    store.put("acme/job_1/document", b"one")
    store.put("acme/job_1/result.json", b"two")
    store.delete("acme/job_1/document")
    store.delete("acme/job_1/document")
    store.delete("acme/never-stored")
    assert store.exists("acme/job_1/document") is False
    with pytest.raises(BlobNotFound):
        store.get("acme/job_1/document")
    assert store.get("acme/job_1/result.json") == b"two"


# --- local files only --------------------------------------------------------------------------


def _tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.mark.parametrize(
    "key", ["../x", "/etc/passwd", "a/../../b", "a\\b", "", "a//b", "./a", "a/.hidden", "a/"]
)
def test_local_rejects_keys_that_could_escape_the_root(tmp_path: Path, key: str) -> None:
    store = LocalBlobStore(tmp_path / "blobs")
    for operation in (
        lambda: store.put(key, b"evil"),
        lambda: store.get(key),
        lambda: store.exists(key),
        lambda: store.delete(key),
    ):
        with pytest.raises(ValueError, match="invalid blob key"):
            operation()
    assert _tree(tmp_path) == []


def test_local_rejects_a_key_through_a_symlink_out_of_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "blobs"
    root.mkdir()
    (root / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ValueError, match="resolves outside"):
        LocalBlobStore(root).put("link/x", b"evil")
    assert list(outside.iterdir()) == []


def test_local_writes_leave_only_the_keys_no_temporary_files(tmp_path: Path) -> None:
    store = LocalBlobStore(tmp_path)
    store.put("acme/job_1/document", b"a")
    store.put("acme/job_1/document", b"b")
    store.put("acme/job_2/document", b"c")
    assert _tree(tmp_path) == [
        "acme",
        "acme/job_1",
        "acme/job_1/document",
        "acme/job_2",
        "acme/job_2/document",
    ]
    assert (tmp_path / "acme/job_1/document").read_bytes() == b"b"


# --- S3 only -----------------------------------------------------------------------------------


@pytest.mark.usefixtures("aws_env")
def test_s3_keeps_the_content_type_and_creates_the_bucket(moto_endpoint: str) -> None:
    bucket = f"evidex-test-{uuid.uuid4().hex[:12]}"
    store = S3BlobStore(bucket, endpoint_url=moto_endpoint, create_bucket=True)
    store.ensure_bucket()  # a second time: already there, no error
    store.put("acme/job_1/document", b"%PDF", "application/pdf")
    head = store.client.head_object(Bucket=bucket, Key="acme/job_1/document")
    assert head["ContentType"] == "application/pdf"
    assert [b["Name"] for b in store.client.list_buckets()["Buckets"]].count(bucket) == 1


@pytest.mark.usefixtures("aws_env")
def test_s3_server_down_raises_store_unavailable() -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    store = S3BlobStore("evidex", endpoint_url=closed, connect_timeout=1, max_attempts=1)
    for operation in (
        lambda: store.put("acme/job_1/document", b"x"),
        lambda: store.get("acme/job_1/document"),
        lambda: store.exists("acme/job_1/document"),
        lambda: store.delete("acme/job_1/document"),
    ):
        with pytest.raises(StoreUnavailable, match="S3 cannot be reached"):
            operation()


# --- factory -----------------------------------------------------------------------------------


def test_make_blob_store_local_roots_the_store_at_data_dir(tmp_path: Path) -> None:
    store = make_blob_store(WorkerSettings(blob_store="local", data_dir=tmp_path))
    assert isinstance(store, LocalBlobStore)
    store.put("acme/job_1/document", b"x")
    assert (tmp_path / "acme/job_1/document").read_bytes() == b"x"


@pytest.mark.usefixtures("aws_env")
def test_make_blob_store_s3_uses_bucket_endpoint_and_region(moto_endpoint: str) -> None:
    settings = WorkerSettings(
        blob_store="s3",
        s3_bucket="evidex-docs",
        s3_endpoint_url=moto_endpoint,
        s3_region="eu-west-1",
    )
    store = make_blob_store(settings)
    assert isinstance(store, S3BlobStore)
    assert (store.bucket, store.client.meta.region_name) == ("evidex-docs", "eu-west-1")
    assert store.client.meta.endpoint_url == moto_endpoint
