# Sourced by the benchmark scripts: `serve ARGS` starts `$onyx ARGS --listen 127.0.0.1:0` in
# the background (its pid added to `pids`, its output in `$work`) and sets `address` to the
# last word of its first line, once it has printed it.
serve() {
  local out="$work/out.${#pids[@]}"
  "$onyx" "$@" --listen 127.0.0.1:0 >"$out" &
  pids+=($!)
  until [ -s "$out" ]; do sleep 0.05; done
  address=$(head -n 1 "$out" | awk '{ print $NF }')
}
