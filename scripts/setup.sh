#!/usr/bin/env bash
# One-time setup on a fresh machine: Java 17+ for DynamoDB Local (from apt when missing), then
# the exact dependency tree of package-lock.json. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

java_major() {
  java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}

if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
  echo "setup: Java 17+ not found; installing openjdk-17-jre-headless with apt" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi
echo "setup: $(java -version 2>&1 | head -n 1)" >&2

npm ci --no-audit --no-fund --loglevel=error
