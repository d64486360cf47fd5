# The Red7 service image: the API (gunicorn) and the workers (`red7 worker`) run from it.
#   docker compose up --build --scale worker=3
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src

# Only what the package needs (there is no .dockerignore: copy by name).
COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY service/ service/
COPY workers/ workers/
COPY replays/ replays/
RUN pip install ".[deploy]" \
 && useradd --create-home --uid 10001 red7

WORKDIR /home/red7
USER red7
EXPOSE 8000

CMD ["gunicorn", "--config", "python:service.processes.gunicorn_config", "service.processes.wsgi:app"]
