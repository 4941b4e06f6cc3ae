#!/bin/bash
# Peak RSS of a CLI import and of a loaded serve on issue 12's catalog (SQLite, or
# PostgreSQL with RSS_PG, below): the import under /usr/bin/time, then a serve, VmHWM
# when ready and after a search of every city of every product and a prebook of every
# hotel (docs/performance.md: the RSS goal of the
# current figures, and of earlier ones).
# Not part of the tests. Needs python3 and curl (and psql for PostgreSQL).
# Usage: go build -o /tmp/tw ./cmd/tradewind && scripts/serve-rss.sh /tmp/tw
# PostgreSQL: RSS_PG=postgres://postgres@127.0.0.1:5432 scripts/serve-rss.sh /tmp/tw
# (drops and re-creates its database tradewind_rss on that server).
set -u
TW=$1; D=${RSS_DIR:-/tmp/rss}; DB=sqlite:$D/tw.db
mkdir -p $D && cd $D && rm -f tw.db tw.db-* tw.requestlog.db*
if [ -n "${RSS_PG:-}" ]; then
  psql -q "$RSS_PG/postgres" -c 'DROP DATABASE IF EXISTS tradewind_rss' -c 'CREATE DATABASE tradewind_rss' || exit 1
  DB=$RSS_PG/tradewind_rss
fi
[ -f cat.json ] || $TW catalog generate --hotels 20000 --activities 5000 --rentals 5000 --packages 1000 --cities 20 --days 365 --seed 7 > cat.json
/usr/bin/time -f "import: %e s, peak RSS %M KB" $TW --db $DB catalog import cat.json 2>&1 | tail -1
$TW --db $DB partner create --name bench --credit-limit 100000000.00 --rate-limit 1000000 > /dev/null
KEY=$($TW --db $DB --json key issue --partner bench --mode live | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
$TW --db $DB serve --addr 127.0.0.1:18080 --portal-addr "" > serve.log 2>&1 &
PID=$!
until curl -sf http://127.0.0.1:18080/readyz > /dev/null; do sleep 1; done
echo "ready: VmHWM $(grep VmHWM /proc/$PID/status | awk '{print $2}') KB"
python3 - "$KEY" <<'PY'
import json, sys, urllib.request, concurrent.futures as cf, datetime
key=sys.argv[1]; d=json.load(open('cat.json'))
base='http://127.0.0.1:18080/api/partner/v1'
day=lambda n:(datetime.date.today()+datetime.timedelta(days=n)).isoformat()
def post(path, body):
    r=urllib.request.Request(base+path, data=json.dumps(body).encode(), headers={'auth-api-key':key,'Content-Type':'application/json'}, method='POST')
    try:
        return urllib.request.urlopen(r).status
    except urllib.error.HTTPError as e:
        return e.code
reqs=[]
for kind,path,body in [('hotels','/hotels/search',lambda c:{'destination':c,'check_in':day(10),'check_out':day(13)}),
                       ('activities','/activities/search',lambda c:{'destination':c,'date':day(10)}),
                       ('rentals','/rentals/search',lambda c:{'destination':c,'check_in':day(10),'check_out':day(13)}),
                       ('packages','/packages/search',lambda c:{'destination':c})]:
    for c in sorted({x['city'] for x in d[kind]}): reqs.append((path, body(c)))
for i,h in enumerate(d['hotels']):
    reqs.append(('/bookings/prebook', {'product_type':'hotel','hotel_id':h['id'],'room_id':h['rooms'][0]['id'],'check_in':day(5+i%200),'check_out':day(6+i%200),'rooms':1,'adults':1}))
codes={}
with cf.ThreadPoolExecutor(8) as ex:
    for s in ex.map(lambda r: post(*r), reqs): codes[s]=codes.get(s,0)+1
print('requests by status:', codes)
PY
echo "loaded: VmHWM $(grep VmHWM /proc/$PID/status | awk '{print $2}') KB"
kill $PID; wait $PID 2>/dev/null
