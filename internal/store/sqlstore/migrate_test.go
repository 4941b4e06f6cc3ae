package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/postgres"
	"github.com/tradewind/tradewind/internal/store/sqlite"
	"github.com/tradewind/tradewind/internal/store/sqlstore"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// unmigrated opens an empty database of each dialect, for tests that migrate it step by step.
var unmigrated = []struct {
	name string
	open func(t *testing.T) *sqlstore.DB
}{
	{"sqlite", func(t *testing.T) *sqlstore.DB {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "m.db")+"?_pragma=foreign_keys(1)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return sqlstore.New(db, sqlite.Dialect)
	}},
	{"postgres", func(t *testing.T) *sqlstore.DB {
		db, err := sql.Open("pgx", storetest.PostgresDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return sqlstore.New(db, postgres.Dialect)
	}},
}

// TestMigrationDuplicateDeliveryIndex: migration 00014 drops the index on webhook
// deliveries' subscription id, which (subscription_id, status) already serves.
func TestMigrationDuplicateDeliveryIndex(t *testing.T) {
	for _, o := range unmigrated {
		t.Run(o.name, func(t *testing.T) {
			ctx := context.Background()
			s := o.open(t)
			indexes := func() map[string]bool {
				t.Helper()
				query := `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'webhook_deliveries'`
				if o.name == "postgres" {
					query = `SELECT indexname FROM pg_indexes WHERE tablename = 'webhook_deliveries' AND schemaname = current_schema()`
				}
				rows, err := s.SQL().QueryContext(ctx, query)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				out := map[string]bool{}
				for rows.Next() {
					var name string
					if err := rows.Scan(&name); err != nil {
						t.Fatal(err)
					}
					out[name] = true
				}
				return out
			}
			if err := s.MigrateTo(ctx, 13); err != nil {
				t.Fatal(err)
			}
			if got := indexes(); !got["webhook_deliveries_subscription"] || !got["webhook_deliveries_subscription_status"] {
				t.Fatalf("before 00014: %v", got)
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if got := indexes(); got["webhook_deliveries_subscription"] || !got["webhook_deliveries_subscription_status"] {
				t.Fatalf("after 00014: %v", got)
			}
		})
	}
}

// TestMigrationIdempotencyMode: migration 00009 scopes idempotency records to the mode.
// Records made before it take the mode of the booking they created and an empty request
// hash (it matches any request: the body they were made with is unknown), and the same
// key becomes usable once in each mode.
func TestMigrationIdempotencyMode(t *testing.T) {
	for _, o := range unmigrated {
		t.Run(o.name, func(t *testing.T) {
			ctx := context.Background()
			s := o.open(t)
			if err := s.MigrateTo(ctx, 8); err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
			p := &tradewind.Partner{Name: "acme", PricingMode: "net", Currency: "EUR", CreditLimit: 10000, RateLimit: 120, CreatedAt: now}
			if err := s.PartnerCreate(ctx, p); err != nil || p.ID != 1 {
				t.Fatalf("PartnerCreate: %v (id %d)", err, p.ID)
			}
			for _, b := range []struct {
				ref, key string
				test     bool
			}{{"HTL-LIVE0001", "live-key", false}, {"HTL-TEST0001", "test-key", true}} {
				if err := createOldBooking(ctx, s, &tradewind.Booking{Reference: b.ref, PartnerID: 1, ProductType: "hotel",
					Status: tradewind.StatusConfirmed, Test: b.test, PricingMode: "net", TotalPrice: 100, Currency: "EUR",
					IdempotencyKey: b.key, ItemID: 7, StartDate: "2027-01-01", EndDate: "2027-01-02", Quote: []byte(`{}`),
					Guest: []byte(`{}`), Details: []byte(`{}`), CreatedAt: now, UpdatedAt: now}); err != nil {
					t.Fatal(err)
				}
				// The record as the schema before 00009 held it.
				if _, err := s.SQL().ExecContext(ctx, `INSERT INTO idempotency_keys (partner_id, key, created_at) VALUES (1, $1, $2)`,
					b.key, now); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			for key, mode := range map[string]tradewind.Mode{"live-key": tradewind.ModeLive, "test-key": tradewind.ModeTest} {
				rec, err := s.IdempotencyGet(ctx, 1, mode, key)
				if err != nil || rec.RequestHash != "" || !rec.CreatedAt.Equal(now) {
					t.Errorf("%s in %s after the migration = %+v, %v", key, mode, rec, err)
				}
				if b, err := s.BookingGetByIdempotencyKey(ctx, 1, mode, key); err != nil || b.Test != (mode == tradewind.ModeTest) {
					t.Errorf("booking of %s in %s = %+v, %v", key, mode, b, err)
				}
			}
			if _, err := s.IdempotencyGet(ctx, 1, tradewind.ModeLive, "test-key"); err == nil {
				t.Error("the test key's record answers in live mode")
			}
			// The test key's key is free in live mode, and still taken in test mode.
			if err := s.IdempotencyClaim(ctx, store.IdempotencyRecord{PartnerID: 1, Mode: tradewind.ModeLive, Key: "test-key", RequestHash: "h", CreatedAt: now}); err != nil {
				t.Errorf("live claim of a key used in test mode: %v", err)
			}
			if err := s.IdempotencyClaim(ctx, store.IdempotencyRecord{PartnerID: 1, Mode: tradewind.ModeTest, Key: "test-key", RequestHash: "h", CreatedAt: now}); err == nil {
				t.Error("second test claim of the key succeeded")
			}
		})
	}
}

// createOldBooking inserts b with the columns bookings had before migration 00031
// (request_hash), as BookingCreate did then: the migration tests write rows into the
// schema of an older version, which today's BookingCreate no longer fits.
func createOldBooking(ctx context.Context, s *sqlstore.DB, b *tradewind.Booking) error {
	var pref, ikey any
	if b.PartnerReference != "" {
		pref = b.PartnerReference
	}
	if b.IdempotencyKey != "" {
		ikey = b.IdempotencyKey
	}
	return s.SQL().QueryRowContext(ctx, `INSERT INTO bookings (reference, partner_id, key_id, product_type, status, test,
		pricing_mode, total_price, currency, credit_drawn, partner_reference, idempotency_key, item_id, unit_kind,
		unit_id, start_date, end_date, quantity, quote, guest, details, cancel_reason, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
		RETURNING id`, b.Reference, b.PartnerID, b.KeyID, string(b.ProductType), b.Status, b.Test, b.PricingMode, b.TotalPrice,
		b.Currency, b.CreditDrawn, pref, ikey, b.ItemID, b.UnitKind, b.UnitID, b.StartDate, b.EndDate, b.Quantity,
		string(b.Quote), string(b.Guest), string(b.Details), b.CancelReason, b.CreatedAt.UTC(), b.UpdatedAt.UTC()).Scan(&b.ID)
}

// TestMigrationBookingRequestHash: migration 00031 gives the bookings made before it an
// empty fingerprint (their key's record keeps theirs), a booking made after it keeps
// its own, and its Down step moves the fingerprints into records of their keys.
func TestMigrationBookingRequestHash(t *testing.T) {
	for _, o := range unmigrated {
		t.Run(o.name, func(t *testing.T) {
			ctx := context.Background()
			s := o.open(t)
			if err := s.MigrateTo(ctx, 30); err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
			p := &tradewind.Partner{Name: "acme", PricingMode: "net", Currency: "EUR", CreditLimit: 10000, RateLimit: 120, CreatedAt: now}
			if err := s.PartnerCreate(ctx, p); err != nil {
				t.Fatal(err)
			}
			booking := func(ref, key string) *tradewind.Booking {
				return &tradewind.Booking{Reference: ref, PartnerID: p.ID, ProductType: "hotel", Status: tradewind.StatusConfirmed,
					PricingMode: "net", TotalPrice: 100, Currency: "EUR", IdempotencyKey: key, ItemID: 7, StartDate: "2027-01-01",
					EndDate: "2027-01-02", Quote: []byte(`{}`), Guest: []byte(`{}`), Details: []byte(`{}`), CreatedAt: now, UpdatedAt: now}
			}
			if err := createOldBooking(ctx, s, booking("HTL-OLD00001", "old")); err != nil {
				t.Fatal(err)
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if b, err := s.BookingGetByIdempotencyKey(ctx, p.ID, tradewind.ModeLive, "old"); err != nil || b.RequestHash != "" {
				t.Fatalf("the old booking after 00031: %+v, %v; want an empty fingerprint", b, err)
			}
			nb := booking("HTL-NEW00001", "new")
			nb.RequestHash = "fingerprint"
			if err := s.BookingCreate(ctx, nb); err != nil {
				t.Fatal(err)
			}
			if b, err := s.BookingGetByReference(ctx, p.ID, "HTL-NEW00001"); err != nil || b.RequestHash != "fingerprint" {
				t.Fatalf("a new booking: %+v, %v; want its fingerprint kept", b, err)
			}
			// Down: the fingerprint goes back into a record of its key, as 00030 reads it.
			if err := s.MigrateDownTo(ctx, 30); err != nil {
				t.Fatal(err)
			}
			if rec, err := s.IdempotencyGet(ctx, p.ID, tradewind.ModeLive, "new"); err != nil || rec.RequestHash != "fingerprint" {
				t.Fatalf("after 00031's Down, the key's record: %+v, %v; want the booking's fingerprint", rec, err)
			}
			if _, err := s.IdempotencyGet(ctx, p.ID, tradewind.ModeLive, "old"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("after 00031's Down, a record for the booking without a fingerprint: %v", err)
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
