#!/usr/bin/env bash
# A real S3 server for tests: single-node Ceph RGW (Debian packages), 127.0.0.1 only.
#
#   scripts/s3-server.sh start   installs ceph-mon/ceph-osd/radosgw/ceph-common with apt-get when
#                                missing, starts mon + RAM-backed OSD + radosgw, creates a test user
#                                and bucket, prints the environment (idempotent: a running server is
#                                reused and its environment printed again)
#   scripts/s3-server.sh env     prints the environment of the running server (exit 1 when down)
#   scripts/s3-server.sh stop    kills the daemons by their pid files and removes the state directory
#
# Use: eval "$(scripts/s3-server.sh start)"   then run the S3 tests.
# Why RGW: it honours `PUT If-None-Match: *` (412 for an existing key), which Paimon commits rely on;
# the npm S3 fakes silently overwrite. Auth is disabled inside the cluster (it only listens on
# loopback); S3 requests are still SigV4-signed and checked against the test user's keys.
#
# Variables: PAIMON_RT_S3_DIR (state directory, default /tmp/paimon-rt-s3), PAIMON_RT_S3_PORT (7480),
# PAIMON_RT_S3_MON_PORT (Ceph monitor, 3300), PAIMON_RT_S3_BUCKET (paimon-test). A second server on the
# same machine needs its own directory and both ports.
set -euo pipefail

dir="${PAIMON_RT_S3_DIR:-/tmp/paimon-rt-s3}"
port="${PAIMON_RT_S3_PORT:-7480}"
mon_port="${PAIMON_RT_S3_MON_PORT:-3300}"
bucket="${PAIMON_RT_S3_BUCKET:-paimon-test}"
access_key="paimonrtaccess"
secret_key="paimonrtsecret0123456789"
region="us-east-1"
endpoint="http://127.0.0.1:${port}"

log() { echo "s3-server: $*" >&2; }

print_env() {
  cat <<EOF
export AWS_ENDPOINT_URL=${endpoint}
export AWS_ACCESS_KEY_ID=${access_key}
export AWS_SECRET_ACCESS_KEY=${secret_key}
export AWS_REGION=${region}
export PAIMON_RT_S3_TEST_BUCKET=${bucket}
EOF
}

http_up() { curl -s -o /dev/null --max-time 2 "${endpoint}/" 2>/dev/null; }

alive() {
  local f
  for f in mon osd rgw; do
    [ -f "$dir/$f.pid" ] && kill -0 "$(cat "$dir/$f.pid")" 2>/dev/null || return 1
  done
}

ceph_cmd() { "$@" -c "$dir/ceph.conf"; }

install_packages() {
  if command -v ceph-mon >/dev/null && command -v ceph-osd >/dev/null && command -v radosgw >/dev/null \
    && command -v radosgw-admin >/dev/null && command -v monmaptool >/dev/null && command -v curl >/dev/null; then
    return
  fi
  log "installing ceph-mon ceph-osd radosgw ceph-common (apt-get)"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  $sudo apt-get install -y -qq --no-install-recommends ceph-mon ceph-osd radosgw ceph-common curl >&2
}

stop_server() {
  local f pid
  for f in rgw osd mon; do
    if [ -f "$dir/$f.pid" ]; then
      pid=$(cat "$dir/$f.pid")
      if kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
      fi
    fi
  done
  rm -rf "$dir"
}

start_server() {
  if alive && http_up; then
    print_env
    return
  fi
  install_packages
  stop_server # leftovers of a half-started server
  mkdir -p "$dir/mon" "$dir/osd" "$dir/run"
  cat > "$dir/ceph.conf" <<EOF
[global]
fsid = $(cat /proc/sys/kernel/random/uuid)
mon host = v2:127.0.0.1:${mon_port}
public network = 127.0.0.0/8
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc secure
ms bind msgr1 = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/\$name.log
pid file = $dir/run/\$name.pid
keyring = $dir/keyring
[mon]
mon data = $dir/mon/\$cluster-\$id
[osd]
osd data = $dir/osd/\$cluster-\$id
osd objectstore = memstore
memstore device bytes = 1073741824
osd max object name len = 460
osd max object namespace len = 64
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:${port}
rgw data = $dir/rgw
EOF
  ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  monmaptool --create --clobber --addv a "[v2:127.0.0.1:${mon_port}]" --fsid "$(sed -n 's/^fsid = //p' "$dir/ceph.conf")" "$dir/monmap" >/dev/null
  ceph_cmd ceph-mon --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring" >/dev/null 2>&1
  ceph_cmd ceph-mon -i a
  for _ in $(seq 1 50); do [ -f "$dir/run/mon.a.pid" ] && break; sleep 0.1; done
  cp "$dir/run/mon.a.pid" "$dir/mon.pid"
  local osd_uuid osd_id
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  osd_id=$(timeout 60 ceph -c "$dir/ceph.conf" osd new "$osd_uuid" 2>/dev/null)
  mkdir -p "$dir/osd/ceph-$osd_id"
  ceph_cmd ceph-osd -i "$osd_id" --mkfs --osd-uuid "$osd_uuid" >/dev/null 2>&1
  ceph_cmd ceph-osd -i "$osd_id" 2>>"$dir/osd.stderr"
  for _ in $(seq 1 50); do [ -f "$dir/run/osd.$osd_id.pid" ] && break; sleep 0.1; done
  cp "$dir/run/osd.$osd_id.pid" "$dir/osd.pid"
  mkdir -p "$dir/rgw"
  ceph_cmd radosgw -n client.rgw.a
  for _ in $(seq 1 50); do [ -f "$dir/run/client.rgw.a.pid" ] && break; sleep 0.1; done
  cp "$dir/run/client.rgw.a.pid" "$dir/rgw.pid"
  local up=""
  for _ in $(seq 1 600); do
    if http_up; then up=1; break; fi
    sleep 0.1
  done
  if [ -z "$up" ]; then
    log "radosgw did not answer on ${endpoint} within 60 s; logs in $dir"
    tail -20 "$dir/client.rgw.a.log" >&2 || true
    exit 1
  fi
  timeout 60 radosgw-admin -c "$dir/ceph.conf" user create --uid=paimon-test --display-name="paimon-rt tests" \
    --access-key="$access_key" --secret-key="$secret_key" >/dev/null 2>&1 || true
  # create the bucket with a SigV4-signed request (curl's --aws-sigv4; RGW wants the payload hash
  # header, which curl 7.88 does not add), retried while RGW settles
  local empty_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
  local code=""
  for _ in $(seq 1 100); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H "x-amz-content-sha256: ${empty_sha256}" --aws-sigv4 "aws:amz:${region}:s3" \
      --user "${access_key}:${secret_key}" "${endpoint}/${bucket}" || true)
    case "$code" in 200|409) break ;; esac
    sleep 0.2
  done
  case "$code" in
    200|409) ;;
    *) log "could not create bucket ${bucket} (HTTP ${code})"; exit 1 ;;
  esac
  log "Ceph RGW up on ${endpoint}, bucket ${bucket} (state in $dir)"
  print_env
}

case "${1:-}" in
  start) start_server ;;
  stop) stop_server ;;
  env)
    if alive && http_up; then print_env; else log "not running"; exit 1; fi
    ;;
  *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
