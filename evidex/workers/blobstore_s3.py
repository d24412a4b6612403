"""Blobs in an S3 bucket: AWS S3 or any S3-compatible server (MinIO, Ceph, moto...).

The only module that imports ``boto3``. botocore's errors are translated here, once, into the
store's two errors (``stores.py``)::

    ClientError NoSuchKey / 404 / NotFound            -> BlobNotFound (the key is absent)
    botocore ConnectionError (endpoint, connect
      timeout, proxy), HTTPClientError (read timeout,
      connection closed), ClientError 5xx / SlowDown  -> StoreUnavailable (transient: retry later)

Anything else (AccessDenied, NoSuchBucket, bad credentials) is a configuration mistake and
propagates as botocore's own ``ClientError``, whose message names the bucket and the operation.
Requests use botocore's ``standard`` retry mode with bounded connect/read timeouts, so a dead
endpoint fails in seconds instead of hanging a worker; a custom ``endpoint_url`` uses path-style
addressing, which every S3-compatible server understands.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, cast

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError

from evidex.workers.stores import BlobNotFound, StoreUnavailable

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.literals import BucketLocationConstraintType

__all__ = ["S3BlobStore"]

_MISSING = frozenset({"NoSuchKey", "404", "NotFound"})
_TRANSIENT = frozenset(
    {"SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout", "503", "500"}
)


def _code(error: ClientError) -> tuple[str, int]:
    code = str(error.response.get("Error", {}).get("Code", ""))
    status = int(error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0))
    return code, status


@contextmanager
def _translated(what: str) -> Iterator[None]:
    try:
        yield
    except ClientError as error:
        code, status = _code(error)
        if code in _MISSING or status == 404:
            raise BlobNotFound(what) from None
        if code in _TRANSIENT or status >= 500:
            raise StoreUnavailable(f"S3 is unavailable ({what}): {error}") from error
        raise
    except (BotoConnectionError, HTTPClientError) as error:
        raise StoreUnavailable(f"S3 cannot be reached ({what}): {error}") from error


class S3BlobStore:
    """A :class:`~evidex.workers.stores.BlobStore` over one bucket.

    Credentials come from boto3's usual chain (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``,
    profile, instance role). Pass ``client`` to reuse a configured client (tests, custom auth).
    ``create_bucket=True`` creates the bucket when it does not exist (handy for MinIO and
    local set-ups; production buckets are usually provisioned separately).
    """

    def __init__(
        self,
        bucket: str,
        endpoint_url: str | None = None,
        region: str = "us-east-1",
        client: S3Client | None = None,
        *,
        create_bucket: bool = False,
        connect_timeout: float = 5.0,
        read_timeout: float = 30.0,
        max_attempts: int = 3,
    ) -> None:
        self.bucket = bucket
        self.region = region
        if client is None:
            config = Config(
                region_name=region,
                connect_timeout=connect_timeout,
                read_timeout=read_timeout,
                retries={"mode": "standard", "max_attempts": max_attempts},
                s3={"addressing_style": "path"} if endpoint_url else None,
            )
            client = boto3.client("s3", endpoint_url=endpoint_url, config=config)
        self.client: S3Client = client
        if create_bucket:
            self.ensure_bucket()

    def ensure_bucket(self) -> None:
        """Create the bucket unless it exists already."""
        with _translated(f"bucket {self.bucket}"):
            try:
                self.client.head_bucket(Bucket=self.bucket)
                return
            except ClientError as error:
                code, status = _code(error)
                if status != 404 and code not in ("404", "NoSuchBucket", "NotFound"):
                    raise
            try:
                if self.region == "us-east-1":
                    self.client.create_bucket(Bucket=self.bucket)
                else:
                    self.client.create_bucket(
                        Bucket=self.bucket,
                        CreateBucketConfiguration={
                            "LocationConstraint": cast("BucketLocationConstraintType", self.region)
                        },
                    )
            except ClientError as error:
                if _code(error)[0] != "BucketAlreadyOwnedByYou":
                    raise

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        with _translated(key):
            self.client.put_object(
                Bucket=self.bucket, Key=key, Body=bytes(data), ContentType=content_type
            )

    def get(self, key: str) -> bytes:
        with _translated(key):
            response = self.client.get_object(Bucket=self.bucket, Key=key)
            return response["Body"].read()

    def delete(self, key: str) -> None:
        with _translated(key):
            self.client.delete_object(Bucket=self.bucket, Key=key)

    def exists(self, key: str) -> bool:
        try:
            with _translated(key):
                self.client.head_object(Bucket=self.bucket, Key=key)
        except BlobNotFound:
            return False
        return True
