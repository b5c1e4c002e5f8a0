# perfbot as a container image, for CI systems other than GitHub Actions and for local use
# (`docker run --rm -v "$PWD:/work" -w /work IMAGE check .`). The GitHub action (action.yml) is a
# composite action that installs the same perfbot on the runner; it does not use this image.
#
# Every dependency, and the build backend, comes from requirements/action.lock with its hash
# (pip-compile --generate-hashes; see the lock's header to regenerate it), so an action ref
# builds the same Python packages every day. The base image is pinned by digest, so a moved or
# re-pushed tag cannot change what runs; the tag it was read from:
#   python:3.11.10-slim-bookworm
# To move to a newer base, read the digest of the tag you choose
# (`docker buildx imagetools inspect python:3.11-slim`, the index digest) and replace both.
FROM python:3.11.10-slim-bookworm@sha256:5148c0e4bbb64271bca1d3322360ebf4bfb7564507ae32dd639322e4952a6b16

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PIP_NO_INPUT=1

COPY requirements/action.lock /opt/perfbot/requirements/action.lock
RUN pip install --no-deps --require-hashes -r /opt/perfbot/requirements/action.lock
COPY pyproject.toml README.md /opt/perfbot/
COPY src /opt/perfbot/src
RUN pip install --no-deps --no-build-isolation --no-index /opt/perfbot && rm -rf /opt/perfbot

ENTRYPOINT ["perfbot"]
