#!/usr/bin/env bash
# Runs the Java Paimon oracle built by scripts/setup-oracles.sh. Same CLI as pypaimon_oracle.py
# (write / read / version); JSON on stdout only, logs and errors on stderr.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# PAIMON_RT_ORACLE_JAVA_DIR: another build (target/ and lib/ as .oracles/java has them), e.g. one
# made with javac from changed sources before scripts/setup-oracles.sh rebuilds .oracles/java.
J="${PAIMON_RT_ORACLE_JAVA_DIR:-$ROOT/.oracles/java}"
if [ ! -f "$J/target/paimon-java-oracle-0.0.1.jar" ]; then
  echo "java-oracle: not built; run scripts/setup-oracles.sh" >&2
  exit 3
fi
# Class data sharing: scripts/setup-oracles.sh records the classes a write + compaction loads into
# oracle.jsa (a dynamic AppCDS archive), which halves each JVM's start-up CPU (measured: a small read
# 4.3-4.8 s -> 2.3-2.5 s of CPU). A stale or missing archive only costs that time; JVM messages go to
# stderr so stdout stays JSON.
cds=()
if [ -n "${PAIMON_RT_ORACLE_CDS_DUMP:-}" ]; then
  cds=(-XX:ArchiveClassesAtExit="$PAIMON_RT_ORACLE_CDS_DUMP")
elif [ -f "$J/oracle.jsa" ]; then
  cds=(-XX:SharedArchiveFile="$J/oracle.jsa")
fi
exec java "${cds[@]}" -Xlog:disable -Xlog:all=warning:stderr -Duser.timezone="${PAIMON_RT_ORACLE_JAVA_TZ:-UTC}" -Dfile.encoding=UTF-8 \
  -Dorg.apache.commons.logging.Log=org.apache.commons.logging.impl.NoOpLog \
  -XX:+IgnoreUnrecognizedVMOptions -XX:TieredStopAtLevel=1 \
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED \
  -cp "$J/target/paimon-java-oracle-0.0.1.jar:$J/lib/*" oracle.PaimonOracle "$@"
