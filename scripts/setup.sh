#!/usr/bin/env bash
# One-time setup on a fresh machine: a JDK 17+ for DynamoDB Local and a Chromium for the API
# reference page's browser test (both from apt when missing), then the exact dependency tree of
# package-lock.json, which includes Node 22 itself (the `node` package: Lambda's runtime, used by
# every npm script). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

major_of() {
  sed -n 's/.*"\([0-9][0-9]*\)[."].*/\1/p; s/^javac \([0-9][0-9]*\).*/\1/p' | head -n 1
}

# javac too, not only java: DynamoDB Local runs through a small launcher compiled on first start
# (local/aws-stack/LoopbackDynamoDbLocal.java) that binds it to 127.0.0.1.
java_major=$( (java -version 2>&1 || true) | major_of)
javac_major=$( (javac -version 2>&1 || true) | major_of)
if [ "${java_major:-0}" -lt 17 ] || [ "${javac_major:-0}" -lt 17 ]; then
  echo "setup: JDK 17+ not found (java ${java_major:-none}, javac ${javac_major:-none}); installing openjdk-17-jdk-headless with apt" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq openjdk-17-jdk-headless >/dev/null
fi
echo "setup: $(java -version 2>&1 | head -n 1); $(javac -version 2>&1)" >&2

# Headless Chromium for test/e2e/reference-page.test.ts (docs/api-guide.md#api-reference); the
# test finds it the same way (CHROMIUM_PATH, then these names on PATH).
chromium_bin="${CHROMIUM_PATH:-}"
if [ -z "$chromium_bin" ]; then
  for name in chromium chromium-browser google-chrome-stable google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then chromium_bin=$(command -v "$name"); break; fi
  done
fi
if [ -z "$chromium_bin" ] || [ ! -x "$chromium_bin" ]; then
  echo "setup: no Chromium found; installing chromium (and fonts-liberation) with apt" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
  chromium_bin=$(command -v chromium)
fi
echo "setup: $("$chromium_bin" --version 2>/dev/null | head -n 1) at $chromium_bin" >&2

npm ci --no-audit --no-fund --loglevel=error
echo "setup: npm scripts run on Node $(npm exec --offline -- node --version 2>/dev/null) from node_modules" >&2
