# perfbot as a Docker container action (action.yml: runs.using docker, image: Dockerfile).
# The runner builds this image, mounts the workspace at /github/workspace (its working
# directory) and runs `perfbot review ...` with the action's inputs as arguments.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

COPY pyproject.toml README.md /opt/perfbot/
COPY src /opt/perfbot/src
RUN pip install "/opt/perfbot[github]" && rm -rf /opt/perfbot

ENTRYPOINT ["perfbot"]
