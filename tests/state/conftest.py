"""The ``store`` fixture: the same behavioural tests against the local backend and S3 (moto_server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .workers import Spec


class Store:
    def __init__(self, kind: str, spec: Spec, bucket: Any = None) -> None:
        self.kind = kind
        self.spec = spec
        self.bucket = bucket

    def make(self, unsafe: bool = False, **options: Any) -> Any:
        spec = Spec(self.spec.url, self.spec.cwd, {**self.spec.options, **options})
        return spec.make(unsafe)

    def with_options(self, **options: Any) -> Spec:
        return Spec(self.spec.url, self.spec.cwd, {**self.spec.options, **options})

    def raw_put(self, stack: str, data: bytes) -> None:
        """Store bytes as the stack's state behind hotc's back."""
        if self.kind == "local":
            d = Path(self.spec.cwd) / ".hotc"
            d.mkdir(exist_ok=True)
            (d / f"{stack}.json").write_bytes(data)
        else:
            self.bucket.client().put_object(
                Bucket=self.bucket.name, Key=self.bucket.key(stack, "state.json"), Body=data
            )

    def raw_get(self, stack: str) -> bytes | None:
        if self.kind == "local":
            p = Path(self.spec.cwd) / ".hotc" / f"{stack}.json"
            return p.read_bytes() if p.exists() else None
        from botocore.exceptions import ClientError

        try:
            return (
                self.bucket.client()
                .get_object(Bucket=self.bucket.name, Key=self.bucket.key(stack, "state.json"))["Body"]
                .read()
            )
        except ClientError:
            return None


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.delenv("HOTC_BACKEND", raising=False)
    monkeypatch.delenv("HOTC_STATE_KEY", raising=False)
    if request.param == "local":
        return Store("local", Spec(None, str(tmp_path)))
    bucket = request.getfixturevalue("s3_bucket")
    return Store("s3", Spec(bucket.url, str(tmp_path), {"max_attempts": 3}), bucket)
