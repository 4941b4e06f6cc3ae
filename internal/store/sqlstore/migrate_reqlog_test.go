package sqlstore_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
)

// TestMigrationRequestLogBodyEncoding: a request log row written before migration 00017
// (bodies as captured) reads the same after it, beside a row whose big bodies the store
// compresses.
func TestMigrationRequestLogBodyEncoding(t *testing.T) {
	for _, o := range unmigrated {
		t.Run(o.name, func(t *testing.T) {
			ctx := context.Background()
			s := o.open(t)
			if err := s.MigrateTo(ctx, 16); err != nil {
				t.Fatal(err)
			}
			at := time.Date(2027, 1, 4, 12, 0, 0, 0, time.UTC)
			oldBody := bytes.Repeat([]byte(`{"hotel_id":"h-1"},`), 100) // big, stored raw before 00017
			if _, err := s.SQL().ExecContext(ctx, `INSERT INTO request_logs (partner_id, mode, at, method, path, query, route,
				status, error_code, duration_us, key_id, key_prefix, client_addr, user_agent, request_id, idempotency_key, console,
				request_body, request_size, response_body, response_size)
				VALUES (1, 'test', $1, 'POST', '/x', '', 'POST /x', 200, '', 10, 1, 'tw_test_ab', '', '', 'req-old', '', false,
				$2, $3, $4, $5)`, at, []byte(`{"a":1}`), 7, oldBody, len(oldBody)); err != nil {
				t.Fatal(err)
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			newer := &store.RequestLogEntry{PartnerID: 1, Mode: tradewind.ModeTest, At: at.Add(time.Second), Method: "POST", Path: "/x",
				Route: "POST /x", Status: 200, KeyID: 1, KeyPrefix: "tw_test_ab", RequestID: "req-new",
				RequestBody: []byte(`{"a":2}`), RequestSize: 7, ResponseBody: oldBody, ResponseSize: int64(len(oldBody))}
			if err := s.RequestLogInsert(ctx, []*store.RequestLogEntry{newer}); err != nil {
				t.Fatal(err)
			}
			var encodings []string
			rows, err := s.SQL().QueryContext(ctx, `SELECT body_encoding FROM request_logs ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var e string
				if err := rows.Scan(&e); err != nil {
					t.Fatal(err)
				}
				encodings = append(encodings, e)
			}
			rows.Close()
			if len(encodings) != 2 || encodings[0] != "" || encodings[1] != "s2" {
				t.Errorf("body_encoding of the old and the new row: %q, want \"\" and s2", encodings)
			}
			list, err := s.RequestLogList(ctx, store.RequestLogFilter{PartnerID: 1, Limit: 10})
			if err != nil || len(list) != 2 {
				t.Fatalf("list: %v, %v", list, err)
			}
			for _, e := range list {
				got, err := s.RequestLogGet(ctx, 1, e.ID)
				if err != nil {
					t.Fatal(err)
				}
				wantReq := `{"a":1}`
				if got.RequestID == "req-new" {
					wantReq = `{"a":2}`
				}
				if string(got.RequestBody) != wantReq || !bytes.Equal(got.ResponseBody, oldBody) {
					t.Errorf("%s read back: %s, %d bytes of answer", got.RequestID, got.RequestBody, len(got.ResponseBody))
				}
			}
		})
	}
}
