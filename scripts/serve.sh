# Sourced by the scripts that serve repositories. `serve_setup [ONYX]` builds this checkout's
# `onyx` (or takes ONYX, another build of it), makes the work folder `$work`, and on exit
# stops what was served and removes `$work`. `serve ARGS` starts `$onyx ARGS --listen
# 127.0.0.1:0` in the background (its pid added to `pids`, its output in `$work`) and sets
# `address` to the last word of its first line, once it has printed it.
serve_setup() {
  if [ -n "${1:-}" ]; then
    onyx=$1
  else
    cargo build --release -q -p onyx-cli
    onyx=$PWD/target/release/onyx
  fi
  work=$(mktemp -d)
  pids=()
  trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
}

serve() {
  local out="$work/out.${#pids[@]}"
  "$onyx" "$@" --listen 127.0.0.1:0 >"$out" &
  pids+=($!)
  until [ -s "$out" ]; do sleep 0.05; done
  address=$(head -n 1 "$out" | awk '{ print $NF }')
}
