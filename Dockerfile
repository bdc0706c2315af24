# The Bridge Crew server, for hosting it with docker-compose next to a real PostgreSQL.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    BRIDGECREW_DATA_DIR=/data

WORKDIR /srv/bridgecrew

# Dependencies first, so editing the code does not reinstall them.
COPY pyproject.toml ./
RUN mkdir app && touch app/__init__.py && pip install . && pip uninstall -y bridgecrew

COPY . .
# Editable: templates/, static/ and migrations/ sit beside app/ in the source tree, where the code
# looks for them; a plain wheel install would leave them behind.
RUN pip install --no-deps -e . && useradd --system --home-dir /data bridgecrew \
    && mkdir -p /data && chown bridgecrew /data

USER bridgecrew
VOLUME /data
EXPOSE 8000
CMD ["bridgecrew", "serve"]
