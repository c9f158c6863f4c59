#!/usr/bin/env bash
# Runs the Java Paimon oracle built by scripts/setup-oracles.sh. Same CLI as pypaimon_oracle.py
# (write / read / version); JSON on stdout only, logs and errors on stderr.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
J="$ROOT/.oracles/java"
if [ ! -f "$J/target/paimon-java-oracle-0.0.1.jar" ]; then
  echo "java-oracle: not built; run scripts/setup-oracles.sh" >&2
  exit 3
fi
exec java -Duser.timezone=UTC -Dfile.encoding=UTF-8 \
  -Dorg.apache.commons.logging.Log=org.apache.commons.logging.impl.NoOpLog \
  -XX:+IgnoreUnrecognizedVMOptions -XX:TieredStopAtLevel=1 \
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \
  -cp "$J/target/paimon-java-oracle-0.0.1.jar:$J/lib/*" oracle.PaimonOracle "$@"
