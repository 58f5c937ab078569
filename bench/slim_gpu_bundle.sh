#!/usr/bin/env bash
# The GPU machine's offline dependency bundle, slimmed to fit beside this repository: the device
# tool carries at most 64 MiB (the tracked tree, 41 MB by 2026-11-25, plus what `carry` names), and
# ../shared/gpu-bundle is 36 MB. Kept: optuna, SQLAlchemy, alembic and the rest the loop imports;
# Ray with its binaries and shared objects stripped of symbols and without ray.data, serve, llm,
# tune and train (ray.init never imports them; include_dashboard=False). Left out: openai and its
# dependencies (the --llm path; run it with the full bundle). Writes .gpu-slim/ (22 MB); GPU
# rounds 321-328 ran from it (at 24 MB, before the shared objects were stripped, round 327's
# carry with pytest-xdist beside it was refused as over the limit):
#
#     bash bench/slim_gpu_bundle.sh [SRC] && echo /.gpu-slim/ >> .git/info/exclude
#     # device run, carry [".gpu-slim"]:
#     python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .gpu-slim/*.whl
#     tar xJf .gpu-slim/ray-slim.tar.xz -C /tmp/site; export PYTHONPATH=/tmp/site:$PWD
set -euo pipefail
src=${1:-../shared/gpu-bundle}
out=.gpu-slim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$out" && mkdir -p "$out"
for wheel in "$src"/*.whl; do
    case $(basename "$wheel") in
        openai-*|pydantic*|jiter-*|httpx*|httpcore*|distro-*|sniffio-*|truststore-*|annotated_types-*|typing_inspection-*) ;;
        *) cp "$wheel" "$out/" ;;
    esac
done
tar xJf "$src/ray-slim.tar.xz" -C "$work"
rm -rf "$work"/ray/{data,serve,llm,tune,train}
strip --strip-unneeded "$work/ray/core/src/ray/gcs/gcs_server" "$work/ray/core/src/ray/raylet/raylet"
# every shared object too: _raylet.so, and the runtime-env agent's aiohttp, multidict, propcache
# and frozenlist, shipped with their symbols (2 MB of the archive)
find "$work/ray" -name "*.so" -exec strip --strip-unneeded {} +
(cd "$work" && tar cf - ray ray-*.dist-info) | xz -9e -T4 > "$out/ray-slim.tar.xz"
du -sh "$out"
