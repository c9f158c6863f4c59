#!/usr/bin/env bash
# Installs the interop test oracles into .oracles/ (git-ignored), idempotently:
#   .oracles/venv            Python venv with pypaimon (pinned in test/interop/oracle/requirements.txt)
#   .oracles/java/           Java Paimon oracle (test/interop/oracle/java, paimon-bundle and paimon-s3 for
#                            s3:// warehouses, from Maven Central):
#     target/paimon-java-oracle-0.0.1.jar + lib/*.jar
#
# Usage: scripts/setup-oracles.sh [--python-only | --java-only] [--force]
# Env:   PYTHON (default python3), SKIP_JAVA=1, PIP_CACHE_DIR / maven.repo.local as usual.
# Needs: PyPI (python), Maven Central + JDK 17 + mvn (java). Re-running with nothing changed is a no-op.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORACLE_SRC="$ROOT/test/interop/oracle"
OUT="$ROOT/.oracles"
VENV="$OUT/venv"
REQ="$ORACLE_SRC/requirements.txt"
PYTHON="${PYTHON:-python3}"

do_python=1
do_java=1
force=0
for arg in "$@"; do
  case "$arg" in
    --python-only) do_java=0 ;;
    --java-only) do_python=0 ;;
    --force) force=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "setup-oracles: unknown argument $arg" >&2; exit 2 ;;
  esac
done
[ "${SKIP_JAVA:-0}" = "1" ] && do_java=0

mkdir -p "$OUT"
hash_of() { cat "$@" | sha256sum | cut -c1-16; }
now() { date +%s; }
t0=$(now)

# ---------------------------------------------------------------- pypaimon
if [ "$do_python" = 1 ]; then
  stamp="$VENV/.paimon-rt-stamp"
  want="$(hash_of "$REQ")-$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  if [ "$force" = 0 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$VENV/bin/python" ]; then
    echo "setup-oracles: pypaimon venv up to date ($VENV)"
  else
    t1=$(now)
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=:all: -r "$REQ"
    echo "$want" > "$stamp"
    echo "setup-oracles: installed pypaimon venv in $(( $(now) - t1 ))s"
  fi
  echo "setup-oracles: python oracle: $(cd "$ORACLE_SRC" && TZ=UTC "$VENV/bin/python" pypaimon_oracle.py version)"
fi

# ---------------------------------------------------------------- Java Paimon
if [ "$do_java" = 1 ]; then
  JAVA_OUT="$OUT/java"
  if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
    echo "setup-oracles: mvn/java not found; skipping the Java oracle" >&2
  else
    stamp="$JAVA_OUT/.paimon-rt-stamp"
    want="$(hash_of "$ORACLE_SRC/java/pom.xml" $(find "$ORACLE_SRC/java/src" -type f | sort))"
    if [ "$force" = 0 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
       && [ -f "$JAVA_OUT/target/paimon-java-oracle-0.0.1.jar" ]; then
      echo "setup-oracles: Java oracle up to date ($JAVA_OUT)"
    else
      t1=$(now)
      rm -rf "$JAVA_OUT"
      mkdir -p "$JAVA_OUT"
      log="$OUT/java-build.log"
      if (cd "$ORACLE_SRC/java" && mvn -B -q -ntp package dependency:copy-dependencies \
            -DincludeScope=runtime -DoutputDirectory="$JAVA_OUT/lib") >"$log" 2>&1; then
        echo "$want" > "$stamp"
        echo "setup-oracles: built Java oracle in $(( $(now) - t1 ))s"
      else
        echo "setup-oracles: Java oracle build failed (log: $log):" >&2
        tail -20 "$log" >&2
        exit 1
      fi
    fi
    # A class-data-sharing archive of what a write with compaction and deletion vectors loads
    # (test/interop/oracle/java-oracle.sh uses it): every later oracle JVM starts with half the CPU.
    jsa="$JAVA_OUT/oracle.jsa"
    if [ -f "$JAVA_OUT/target/paimon-java-oracle-0.0.1.jar" ] && [ ! -f "$jsa" ]; then
      t1=$(now)
      cds_wh=$(mktemp -d)
      if PAIMON_RT_ORACLE_CDS_DUMP="$jsa" "$ROOT/test/interop/oracle/java-oracle.sh" write "$cds_wh" samples.pk_dv_deletes \
           "$ORACLE_SRC/specs-java/samples.pk_dv_deletes.json" >/dev/null 2>"$OUT/java-cds.log" && [ -f "$jsa" ]; then
        echo "setup-oracles: Java class-data-sharing archive in $(( $(now) - t1 ))s"
      else
        rm -f "$jsa"
        echo "setup-oracles: no Java class-data-sharing archive (log: $OUT/java-cds.log); the oracle runs without it" >&2
      fi
      rm -rf "$cds_wh"
    fi
    echo "setup-oracles: java oracle: $("$ROOT/test/interop/oracle/java-oracle.sh" version 2>/dev/null || echo 'not runnable')"
  fi
fi

echo "setup-oracles: done in $(( $(now) - t0 ))s"
