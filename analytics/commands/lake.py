"""``handlab lake compact DIR`` and ``handlab lake vacuum DIR --keep N``: keep a Parquet lake
fast and small (docs/scale-out.md).  DIR is a folder or an fsspec URL (``s3://bucket/lake``).

Exit code 0 when done, 2 for a lake that cannot be read or written, or a commit that other
jobs kept winning (nothing of the compaction visible: run it again).
"""

from __future__ import annotations

from typing import Annotated

import typer

from analytics.commands import terminal
from analytics.words import counted

__all__ = ["lake"]

_console = terminal.console(stderr=True)


def _require_lake(root: str) -> None:
    """Exit 2 unless ``root`` holds a committed lake (a typo must not look like an empty
    lake; a file is no lake either), or when it cannot be reached (a URL whose scheme is
    unknown or whose package is not installed)."""
    from analytics.warehouse import WarehouseError
    from analytics.warehouse.lake.core import latest_version

    try:
        found = latest_version(root)
    except (WarehouseError, OSError) as error:
        _console.print(terminal.error(error))
        raise typer.Exit(2) from None
    if not found:
        _console.print(terminal.error(f"{root}: no lake here (no committed manifest)"))
        raise typer.Exit(2)

lake = typer.Typer(help="Keep a Parquet lake fast and small: compact, vacuum.",
                   no_args_is_help=True, rich_markup_mode="markdown")


@lake.command()
def compact(
    root: Annotated[str, typer.Argument(help="The lake: a folder or an fsspec URL.")],
    target_mb: Annotated[int, typer.Option(
        "--target-mb", min=1, help="MiB of Parquet per compacted file.")] = 128,
) -> None:
    """Merge each partition's small Parquet files into files of about --target-mb and commit
    them as a new version (readers see the old state or the new, never a mix)."""
    from analytics.warehouse import WarehouseError
    from analytics.warehouse.lake.maintenance import compact as run_compact

    _require_lake(root)
    try:
        result = run_compact(root, target_bytes=target_mb * 1024**2)
    except (WarehouseError, OSError) as error:
        _console.print(terminal.error(error))
        raise typer.Exit(2) from None
    if result.version is None:
        _console.print(f"{root}: nothing to compact ({counted(result.files_before, 'file')}, each "
                       f"partition's as large as --target-mb allows)")
        return
    _console.print(f"{root}: version {result.version}: {counted(result.merged, 'file')} merged "
                   f"into {result.written:,}; {counted(result.files_before, 'file')} before, "
                   f"{result.files_after:,} now")


@lake.command()
def vacuum(
    root: Annotated[str, typer.Argument(help="The lake: a folder or an fsspec URL.")],
    keep: Annotated[int, typer.Option(
        "--keep", min=1, help="Keep the files of the newest N manifest versions (readers "
        "still on an older one fail).")] = 2,
    grace_hours: Annotated[float, typer.Option(
        "--grace-hours", min=0, help="Keep unlisted files younger than this: a running "
        "job's files are listed only at its commit (0 only when no job is running).")] = 24.0,
) -> None:
    """Delete the files no manifest among the newest --keep versions lists, and the older
    manifests."""
    from analytics.warehouse import WarehouseError
    from analytics.warehouse.lake.maintenance import vacuum as run_vacuum

    _require_lake(root)
    try:
        result = run_vacuum(root, keep, grace_seconds=grace_hours * 3600)
    except (WarehouseError, OSError) as error:
        _console.print(terminal.error(error))
        raise typer.Exit(2) from None
    versions = ", ".join(str(v) for v in result.kept_versions) or "none"
    kept = "version" if len(result.kept_versions) == 1 else "versions"
    _console.print(f"{root}: kept {kept} {versions}; deleted "
                   f"{counted(result.deleted_files, 'file')} "
                   f"({result.deleted_bytes / 2**20:,.1f} MiB) and "
                   f"{counted(result.deleted_manifests, 'older manifest')}; "
                   f"{counted(result.young_files, 'unlisted file')} younger than "
                   f"{grace_hours:g} h kept")
