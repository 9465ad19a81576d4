"""The filesystem a URL names (fsspec), or a clear error when it cannot be reached here.

Inputs (``handlab ingest s3://bucket/archive/``) and lakes (``--lake s3://bucket/lake``)
may be fsspec URLs, each scheme served by a package of its own (s3fs for ``s3://``, gcsfs
for ``gs://``, requests and aiohttp for ``http://``).  fsspec says a package is missing
with an ImportError and a scheme it does not know with a ValueError, which reached the
user as tracebacks; :func:`url_filesystem` says either in words, as an
:class:`~analytics.warehouse.errors.UnsupportedURL`.
"""

from __future__ import annotations

from typing import Any

from fsspec.core import url_to_fs
from fsspec.registry import known_implementations

from analytics.warehouse.errors import UnsupportedURL

__all__ = ["url_filesystem"]


def url_filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem of ``url`` and the path in its own terms; raise
    :class:`~analytics.warehouse.errors.UnsupportedURL` when its scheme is unknown or its
    package is not installed (``s3://... : s3:// needs the s3fs package: pip install
    s3fs``)."""
    try:
        fs, path = url_to_fs(url)
    except ImportError as error:
        raise UnsupportedURL(f"{url}: {_missing_package(_scheme(url), error)}") from None
    except ValueError as error:
        if "Protocol not known" in str(error):
            raise UnsupportedURL(f"{url}: unknown URL scheme {_scheme(url)}://") from None
        raise UnsupportedURL(f"{url}: {error}") from None
    return fs, str(path)


def _scheme(url: str) -> str:
    """The scheme of ``url`` (of its last filesystem when several are chained: ``a::s3://``)."""
    return url.split("://", 1)[0].rsplit("::", 1)[-1]


def _missing_package(scheme: str, error: ImportError) -> str:
    """What to install for ``scheme``: its package when it is a package of its own (fsspec's
    registry names the class that serves it), else fsspec's own words."""
    served_by = str(known_implementations.get(scheme, {}).get("class", ""))
    package = served_by.split(".", 1)[0]
    if package and package != "fsspec":
        return f"{scheme}:// needs the {package} package: pip install {package}"
    return f"{scheme}:// needs packages that are not installed: {error}"
