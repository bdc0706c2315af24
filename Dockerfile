# The Bridge Crew server, for hosting it with docker-compose next to a real PostgreSQL.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    BRIDGECREW_DATA_DIR=/data

WORKDIR /srv/bridgecrew

# Dependencies first, so editing the code does not reinstall them: exactly the locked versions,
# each checked against its hash (the lock also holds hatchling, which builds the app below).
COPY requirements.txt requirements.txt
RUN pip install --require-hashes --requirement requirements.txt

COPY . .
# Editable: templates/, static/ and migrations/ sit beside app/ in the source tree, where the code
# looks for them; a plain wheel install would leave them behind.
RUN pip install --no-deps --no-build-isolation -e . && useradd --system --home-dir /data bridgecrew \
    && mkdir -p /data && chown bridgecrew /data

USER bridgecrew
VOLUME /data
EXPOSE 8000
CMD ["bridgecrew", "serve"]
