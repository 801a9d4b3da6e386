# The hosted demo as a container image, following Hugging Face Spaces' Docker SDK conventions
# (non-root user 1000, the port in $PORT, 7860 by default). See deploy/README.md.
#
#   docker build -t selfattn .
#   docker run --rm -p 7860:7860 selfattn                # one Streamlit process (the default)
#
# N replicas behind nginx with sticky sessions (deploy/serve.sh) need nginx in the image:
#   docker build --build-arg WITH_NGINX=1 -t selfattn .
#   docker run --rm -p 7860:7860 selfattn bash deploy/serve.sh --replicas 2 --port 7860
FROM python:3.11-slim

ARG WITH_NGINX=0
RUN if [ "$WITH_NGINX" = 1 ]; then \
        apt-get update \
        && apt-get install -y --no-install-recommends nginx \
        && rm -rf /var/lib/apt/lists/*; \
    fi

RUN useradd --create-home --uid 1000 user
USER user
ENV HOME=/home/user \
    PATH=/home/user/venv/bin:$PATH \
    PYTHON=/home/user/venv/bin/python \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SELFATTN_HOSTED=1 \
    SELFATTN_CACHE_DIR=/home/user/.cache/selfattn \
    PORT=7860
WORKDIR /home/user/app
RUN python -m venv /home/user/venv

# Dependencies first (CPU-only torch from the PyTorch CPU index, then requirements.txt), so that a
# change to the app's code does not download them again.
COPY --chown=user requirements.txt ./
COPY --chown=user deploy/install.sh deploy/
RUN bash deploy/install.sh deps

# The app, its Chinese character vectors built into $SELFATTN_CACHE_DIR, and an import check.
COPY --chown=user . .
RUN bash deploy/install.sh cache check

# A real Chinese model for the Sentence embeddings page, downloaded now so that visitors get it
# offline (safetensors only). Build with --build-arg PREFETCH= to leave it out (the page can still
# download an allow-listed model when a visitor asks).
ARG PREFETCH=bert-base-chinese
RUN if [ -n "$PREFETCH" ]; then SELFATTN_PREFETCH="$PREFETCH" bash deploy/install.sh prefetch; fi

EXPOSE $PORT
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/_stcore/health' % os.environ['PORT'], timeout=4)" || exit 1
CMD ["sh", "-c", "exec streamlit run app.py --server.port \"$PORT\" --server.address 0.0.0.0 --server.headless true --server.fileWatcherType none --browser.gatherUsageStats false"]
