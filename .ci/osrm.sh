# Starts a real OSRM routing engine on 127.0.0.1 over the Monaco extract
# (routesuggest/testdata/monaco, © OpenStreetMap contributors, ODbL) and
# exports CONNECT_TEST_OSRM_URL; stop_osrm stops it. Sourced by .ci/run,
# as root on Debian 12. OSRM is packaged in Debian sid only (it needs a newer
# glibc than Debian 12's), so it is installed into a minimal sid root with
# debootstrap (about 25 s and 50 MB of downloads the first time) and run with
# chroot. The road tests (package osrmtest) start servers of their own from
# the same root.

start_osrm() {
  local root=${CONNECT_OSRM_ROOT:-/opt/osrm-sid} port=5000 pbf
  pbf=$(pwd)/routesuggest/testdata/monaco/monaco.osm.pbf
  if [ ! -x "$root/usr/bin/osrm-routed" ]; then
    echo "installing OSRM into $root"
    command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
    debootstrap --variant=minbase --include=osrm-backend sid "$root" >"$root.debootstrap.log" 2>&1 ||
      { tail -20 "$root.debootstrap.log" >&2; return 1; }
    rm -rf "$root"/var/cache/apt/archives/*.deb
  fi
  # The car graph with contraction hierarchies, rebuilt when the extract changed.
  mkdir -p "$root/data"
  if [ ! -f "$root/data/monaco.osrm.hsgr" ] || ! cmp -s "$pbf" "$root/data/monaco.osm.pbf"; then
    cp "$pbf" "$root/data/monaco.osm.pbf"
    chroot "$root" osrm-extract -p /usr/share/osrm/profiles/car.lua -t 2 /data/monaco.osm.pbf >"$root/data/extract.log" 2>&1
    chroot "$root" osrm-contract -t 2 /data/monaco.osrm >"$root/data/contract.log" 2>&1
  fi
  # Loopback only; tables up to 1,000 points (osrm-routed's default is 100).
  chroot "$root" osrm-routed -i 127.0.0.1 -p "$port" -a CH --max-table-size 1000 /data/monaco.osrm >"$root/data/routed.log" 2>&1 &
  OSRM_PID=$!
  for _ in $(seq 1 500); do
    curl -fso /dev/null "http://127.0.0.1:$port/nearest/v1/driving/7.4206,43.7384" && break
    sleep 0.05
  done
  curl -fso /dev/null "http://127.0.0.1:$port/nearest/v1/driving/7.4206,43.7384" || { tail -20 "$root/data/routed.log" >&2; return 1; }
  export CONNECT_TEST_OSRM_URL="http://127.0.0.1:$port"
  echo "OSRM $(chroot "$root" osrm-routed --version 2>&1 | tail -1) at $CONNECT_TEST_OSRM_URL"
}

stop_osrm() {
  [ -n "${OSRM_PID:-}" ] && kill "$OSRM_PID" 2>/dev/null || true
}
