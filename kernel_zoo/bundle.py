"""One zoo entry as one file, to move a verified kernel between machines: `kzoo zoo export|import`.

A bundle is a JSON object (UTF-8), readable and diffable as it is:

    {"format": "kzoo-entry-bundle", "bundle_version": 1,
     "op": "softmax", "version": "1.1.0",
     "manifest": {...the entry's manifest.json, as an object...},
     "files": {"softmax_sm_90_float32.py": "...the file's text..."}}

The manifest is the one the zoo holds, schema 1, 2 or 3 as stored; either way the bundle carries
every file's source under its name in the manifest (a schema-2 or -3 entry's are read from its
blobs, decompressed), so an export from one zoo imports into another, as schema 3. Kernel sources
are Python text, so they are stored as strings, not base64. Importing checks every
file against the manifest's sha256 before anything is written, so a bundle edited in transit is
refused; like the zoo itself, this detects modification, not a forger who rewrites the manifest
too. The export holds no date or host, so exporting the same entry twice gives the same bytes.

Standard library only.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from kernel_zoo import store

FORMAT = "kzoo-entry-bundle"
BUNDLE_VERSION = 1


def export_entry(entry: store.Entry, out: Path) -> dict[str, Any]:
    """Write `entry` to `out` as a bundle, after checking every file's sha256; returns a summary.

    The file appears whole or not at all (written beside `out`, then renamed over it).
    """
    texts: dict[str, str] = {}
    for name, data in store.read_entry_files(entry.path, entry.manifest).items():
        try:
            texts[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            raise store.ZooError(
                f"{store.entry_file_path(entry.path, entry.manifest, name)}: not UTF-8 text; a "
                "bundle carries source files only"
            ) from None
    bundle = {
        "format": FORMAT,
        "bundle_version": BUNDLE_VERSION,
        "op": entry.op,
        "version": entry.version,
        "manifest": entry.manifest,
        "files": texts,
    }
    text = json.dumps(bundle, indent=2) + "\n"
    out = Path(out).expanduser()
    if _is_stream(out):
        # a FIFO, a terminal, /dev/stdout: written in place. Renaming a file over one would
        # replace the device node with a regular file (over /dev/null, for everyone)
        with open(out, "w", encoding="utf-8") as handle:
            handle.write(text)
        return {"op": entry.op, "version": entry.version, "out": str(out), "files": sorted(texts)}
    out = out.resolve()
    if out.is_dir():
        raise store.ZooError(f"{out}: is a folder; name the bundle file (e.g. "
                             f"{out / (entry.op + '.json')})")
    if not out.parent.is_dir():
        raise store.ZooError(f"{out.parent}: no such folder to write the bundle into")
    # open(..., "x") rather than tempfile: the bundle gets the umask's usual permissions, not 0600
    tmp = out.parent / f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        with open(tmp, "x", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return {"op": entry.op, "version": entry.version, "out": str(out), "files": sorted(texts)}


def _is_stream(path: Path) -> bool:
    """Whether `path` exists and is neither a regular file nor a folder (through links)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def read_bundle(path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The manifest and file bytes of a bundle, its shape checked (hashes are import's job).

    Raises ZooError naming `path` for anything that is not a well-formed bundle.
    """
    path = Path(path).expanduser()
    try:
        bundle = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise store.ZooError(f"{path}: no such bundle file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise store.ZooError(f"{path}: not a zoo bundle (cannot read it as JSON: {err})") from None
    if not isinstance(bundle, dict) or bundle.get("format") != FORMAT:
        raise store.ZooError(f"{path}: not a zoo bundle (no \"format\": \"{FORMAT}\")")
    if bundle.get("bundle_version") != BUNDLE_VERSION:
        raise store.ZooError(
            f"{path}: bundle_version {bundle.get('bundle_version')!r} is not supported "
            f"(want {BUNDLE_VERSION})"
        )
    manifest = store.validate_manifest(bundle.get("manifest"), f"{path}: manifest")
    if (bundle.get("op"), bundle.get("version")) != (manifest["op"], manifest["version"]):
        raise store.ZooError(
            f"{path}: the bundle says {bundle.get('op')} {bundle.get('version')} but its manifest "
            f"{manifest['op']} {manifest['version']}"
        )
    texts = bundle.get("files")
    if not isinstance(texts, dict) or not all(isinstance(t, str) for t in texts.values()):
        raise store.ZooError(f"{path}: 'files' must map file names to their text")
    try:
        files = {name: text.encode("utf-8") for name, text in texts.items()}
    except UnicodeEncodeError as err:  # a lone surrogate escaped into the JSON
        raise store.ZooError(f"{path}: a file's text is not valid Unicode: {err}") from None
    return manifest, files


def import_bundle(path: Path, zoo_dir: Path) -> dict[str, str]:
    """Verify a bundle and add its entry to `zoo_dir`; see `store.import_entry` for the rules."""
    manifest, files = read_bundle(path)
    return store.import_entry(manifest, files, zoo_dir=zoo_dir, source=str(Path(path)))
