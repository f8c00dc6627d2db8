#!/usr/bin/env bash
# Smoke test of `npm start` on the embedded default, done the way the README
# tells a newcomer to: a copy of this checkout in a fresh mode-700 directory
# (like a clone under /root), no DATABASE_URL, a fresh data dir. It runs the
# curl lines the service prints, restarts it and checks the printed key still
# works, and stops it with SIGTERM expecting exit 0 and no PostgreSQL left.
# Then the production path: `npm run build` and `NODE_ENV=production npm start`
# on the same data: the built code serves the same key and data.
# Last line: "smoke-start: OK ..." or "smoke-start: FAILED: <why>" (exit 1).
set -Eeuo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
chmod 700 "$WORK"
APP="$WORK/assay"
LOG="$WORK/start.log"
PID=""

fail() {
  echo "---- output of npm start (last 60 lines) ----"
  tail -n 60 "$LOG" 2>/dev/null || true
  echo "smoke-start: FAILED: $*"
  exit 1
}

cleanup() {
  if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$PID" 2>/dev/null || break; sleep 0.5; done
  fi
  # A PostgreSQL this script's service started and left behind: stop it by the pid in its own lock file.
  local pidfile="$APP/data/pg/postmaster.pid"
  if [[ -f "$pidfile" ]]; then kill -INT "$(head -n 1 "$pidfile")" 2>/dev/null || true; sleep 1; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "smoke-start: FAILED: command failed at line $LINENO"' ERR

# Reads JSON on stdin and prints the JavaScript expression $1 evaluated with the document as `v`.
json() { node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const v=JSON.parse(s);console.log(eval(process.argv[1]))})' "$1"; }

echo "smoke-start: copying the checkout to $APP (mode-700 parent)"
mkdir -p "$APP"
tar -C "$SRC" --exclude=./node_modules --exclude=./data --exclude=./.test-data --exclude=./.git -cf - . | tar -C "$APP" -xf -
# node_modules too (hard links when on the same filesystem): the PostgreSQL binaries must live under the 700 directory.
cp -al "$SRC/node_modules" "$APP/node_modules" 2>/dev/null || cp -a "$SRC/node_modules" "$APP/node_modules"

PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
BASE="http://localhost:$PORT"

start() {
  : >"$LOG"
  (cd "$APP" && exec env -u DATABASE_URL PORT="$PORT" NODE_ENV="${NODE_ENV_FOR_START:-}" npm start >"$LOG" 2>&1) &
  PID=$!
  for _ in $(seq 1 240); do
    kill -0 "$PID" 2>/dev/null || fail "npm start exited early"
    if grep -q '^Read it back' "$LOG" && [[ $(curl -s -o /dev/null -w '%{http_code}' "$BASE/readyz") == 200 ]]; then return 0; fi
    sleep 0.5
  done
  fail "no /readyz 200 and banner within 120 s"
}

stop() {
  kill -TERM "$PID"
  local rc=0
  wait "$PID" || rc=$?
  PID=""
  [[ $rc -eq 0 ]] || fail "npm start exited with code $rc after SIGTERM (expected 0)"
  if pgrep -f -- "-D $APP/data/pg" >/dev/null; then fail "the embedded PostgreSQL is still running after shutdown"; fi
  [[ ! -f "$APP/data/pg/postmaster.pid" ]] || fail "postmaster.pid left behind: PostgreSQL did not shut down cleanly"
}

# The printed lines, exactly as a newcomer would copy them.
printed_line() { grep -A1 "^$1" "$LOG" | tail -n 1 | sed 's/^ *//'; }

echo "smoke-start: first start (fresh data dir, port $PORT)"
start
KEY=$(grep -o 'Demo API key: ak_live_[0-9A-Za-z]*' "$LOG" | awk '{print $4}')
[[ -n "$KEY" ]] || fail "no demo API key in the banner"
grep 'granted search permission' "$LOG" || true

LIST_LINE=$(printed_line 'List the demo tests:')
POST_LINE=$(printed_line 'Assign the first one')
READ_LINE=$(printed_line 'Read it back')

TOTAL=$(bash -c "$LIST_LINE" | json 'v.data.length + "/" + v.total')
[[ "$TOTAL" == "4/4" ]] || fail "the printed list line gave $TOTAL demo tests (expected 4/4)"
echo "smoke-start: printed list line: 4 demo tests"

CREATED=$(bash -c "$POST_LINE")
ASG=$(echo "$CREATED" | json 'v.status === "assigned" && v.startUrl ? v.assignmentId : ""') || fail "create answered: $CREATED"
[[ "$ASG" == asg_* ]] || fail "the printed create line answered: $CREATED"
echo "smoke-start: printed create line: $ASG"

STATUS=$(bash -c "${READ_LINE/ASSIGNMENT_ID/$ASG}" | json 'v.status')
[[ "$STATUS" == "assigned" ]] || fail "the printed read line gave status $STATUS"

# Test mode: the printed test-mode key creates a test-mode assignment, and the printed simulate line begins it.
TEST_KEY=$(grep -o 'Demo test-mode API key: ak_test_[0-9A-Za-z]*' "$LOG" | awk '{print $5}')
[[ -n "$TEST_KEY" ]] || fail "no demo test-mode API key in the banner"
TEST_POST_LINE=$(printed_line 'Test mode: assign')
SIMULATE_LINE=$(printed_line 'Simulate the student beginning')
TEST_CREATED=$(bash -c "$TEST_POST_LINE")
TEST_ASG=$(echo "$TEST_CREATED" | json 'v.status === "assigned" ? v.assignmentId : ""') || fail "test-mode create answered: $TEST_CREATED"
[[ "$TEST_ASG" == asg_* ]] || fail "the printed test-mode create line answered: $TEST_CREATED"
STATUS=$(bash -c "${SIMULATE_LINE/TEST_ASSIGNMENT_ID/$TEST_ASG}" | json 'v.status')
[[ "$STATUS" == "started" ]] || fail "the printed simulate line gave status $STATUS"
echo "smoke-start: printed test-mode lines: $TEST_ASG started by simulate"

echo "smoke-start: SIGTERM"
stop

echo "smoke-start: restart"
start
KEY2=$(grep -o 'Demo API key: ak_live_[0-9A-Za-z]*' "$LOG" | awk '{print $4}')
[[ "$KEY2" == "$KEY" ]] || fail "the restart printed a different demo key"
TEST_KEY2=$(grep -o 'Demo test-mode API key: ak_test_[0-9A-Za-z]*' "$LOG" | awk '{print $5}')
[[ "$TEST_KEY2" == "$TEST_KEY" ]] || fail "the restart printed a different demo test-mode key"
TOTAL=$(bash -c "$LIST_LINE" | json 'v.total')
[[ "$TOTAL" == "4" ]] || fail "after the restart the first key listed $TOTAL tests"
STATUS=$(bash -c "${READ_LINE/ASSIGNMENT_ID/$ASG}" | json 'v.status')
[[ "$STATUS" == "assigned" ]] || fail "after the restart the assignment reads as $STATUS"
stop

echo "smoke-start: npm run build, then NODE_ENV=production npm start (the built dist/)"
(cd "$APP" && npm run --silent build >"$WORK/build.log" 2>&1) || { cat "$WORK/build.log"; fail "npm run build failed"; }
[[ -f "$APP/dist/main.js" && -f "$APP/dist/modules/student/assets/student.js" ]] || fail "npm run build left no dist/main.js or page assets"
NODE_ENV_FOR_START=production start
KEY3=$(grep -o 'Demo API key: ak_live_[0-9A-Za-z]*' "$LOG" | awk '{print $4}')
[[ "$KEY3" == "$KEY" ]] || fail "the built code printed a different demo key"
STATUS=$(bash -c "${READ_LINE/ASSIGNMENT_ID/$ASG}" | json 'v.status')
[[ "$STATUS" == "assigned" ]] || fail "the built code reads the assignment as $STATUS"
[[ $(curl -s -o /dev/null -w '%{http_code}' "$BASE/assets/student.js") == 200 ]] || fail "the built code does not serve the page script"
stop

echo "smoke-start: OK (embedded start, printed key and curl lines, restart with the same key, clean SIGTERM exit, the built code in production mode)"
