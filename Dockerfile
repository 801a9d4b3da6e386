# The hosted demo as a container image, following Hugging Face Spaces' Docker SDK conventions
# (non-root user 1000, the port in $PORT, 7860 by default). See deploy/README.md.
#
#   docker build -t selfattn .                           # Docker keeps the HEALTHCHECK
#   podman build --format docker -t selfattn .           # podman/buildah drop it unless --format docker
#   docker run --rm -p 7860:7860 selfattn                # one Streamlit process (the default)
#
# Build arguments: TORCH_INDEX_URL (where the CPU build of torch comes from; empty: as pip is
# configured), PREFETCH (hub models to bake in, e.g. bert-base-chinese; empty by default, so the
# build needs no Hugging Face hub), WITH_NGINX=1 (nginx for deploy/serve.sh).
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
    PIP_COMPILE=0 \
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
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
RUN TORCH_INDEX_URL="$TORCH_INDEX_URL" bash deploy/install.sh deps

# The app, its Chinese character vectors built into $SELFATTN_CACHE_DIR, and an import check. pip
# compiles nothing (PIP_COMPILE=0 above; pip reads PIP_NO_COMPILE=1 as "compile"): the check's
# imports write the bytecode of what the server runs, not of every module torch and transformers
# ship (docs/benchmarks.md).
COPY --chown=user . .
RUN bash deploy/install.sh cache check

# Hub models baked in for the Sentence embeddings page (safetensors only), e.g.
# --build-arg PREFETCH=bert-base-chinese: that build needs the Hugging Face hub (or a mirror in
# --build-arg HF_ENDPOINT=...). Empty by default, so the image builds without the hub; the page then
# offers the English model and the character vectors, which come with the image.
ARG PREFETCH=
ARG HF_ENDPOINT=
RUN if [ -n "$PREFETCH" ]; then \
        if [ -z "$HF_ENDPOINT" ]; then unset HF_ENDPOINT; fi; \
        SELFATTN_PREFETCH="$PREFETCH" bash deploy/install.sh prefetch; \
    else \
        echo "PREFETCH is empty: no hub model baked in (--build-arg PREFETCH=bert-base-chinese adds one)"; \
    fi
# The running container never contacts the hub unless the host lifts this (see deploy/README.md).
ENV HF_HUB_OFFLINE=1

EXPOSE $PORT
# Kept in Docker-format images only; OCI images have no health check field, so a platform that
# runs one calls `python /home/user/app/deploy/healthcheck.py` (or GET /_stcore/health) itself.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "/home/user/app/deploy/healthcheck.py"]
CMD ["sh", "-c", "python deploy/warm.py & exec streamlit run app.py --server.port \"$PORT\" --server.address 0.0.0.0 --server.headless true --server.fileWatcherType none --browser.gatherUsageStats false"]
